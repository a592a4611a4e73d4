/**
 * An upstream that went away is restarted in the background until it is back (setting
 * restartBackoffMs, doubling per failed attempt up to restartBackoffMaxMs), not only once: a remote
 * server that takes a few seconds to come back is served again, and its tools listed to hosts again,
 * without a call having to find it first. server-everything over HTTP+SSE (2024-11-05), restarted.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { REPO_ROOT } from '../harness.ts'
import { testGateway } from '../support/gateway-daemon.ts'
import { freePort } from '../support/ports.ts'

const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js')
/** Longer than the first restart attempts (restartBackoffMs below), so they find no server. */
const AWAY_MS = 1_500
const SETTLE_MS = 15_000

const port = freePort()
let upstream: Bun.Subprocess<'ignore', 'ignore', 'pipe'> | undefined

/** server-everything over HTTP+SSE on `port`, once it says (on stderr) it listens. */
async function startUpstream(): Promise<Bun.Subprocess<'ignore', 'ignore', 'pipe'>> {
  const proc = Bun.spawn(['node', EVERYTHING, 'sse'], {
    env: { ...process.env, PORT: String(port) },
    stdin: 'ignore',
    stdout: 'ignore',
    stderr: 'pipe',
  })
  const reader = proc.stderr.getReader()
  let text = ''
  while (!/running on port/i.test(text)) {
    const next = await reader.read()
    if (next.done) throw new Error(`server-everything exited before listening: ${text}`)
    text += new TextDecoder().decode(next.value)
  }
  void (async () => {
    while (!(await reader.read()).done) {}
  })()
  return proc
}

beforeAll(async () => {
  upstream = await startUpstream()
})
const gateway = testGateway(
  'upstream-restart-backoff',
  { old: { url: `http://127.0.0.1:${port}/sse`, transport: 'sse' } },
  { restartBackoffMs: 100, restartBackoffMaxMs: 400, connectFailureHoldMs: 100 },
)
afterAll(() => {
  upstream?.kill()
})

/** The pool's state of the upstream, from the daemon's /v1 (what `mcpx servers` shows). */
async function stateOf(name: string): Promise<string> {
  const response = await fetch(`${gateway.daemon.info().tcp.url}/v1/servers`, { headers: gateway.headers })
  return ((await response.json()) as { name: string; state: string }[]).find((server) => server.name === name)?.state ?? 'absent'
}

async function until(name: string, state: string): Promise<string> {
  const deadline = Date.now() + SETTLE_MS
  while ((await stateOf(name)) !== state && Date.now() < deadline) await Bun.sleep(50)
  return stateOf(name)
}

describe('an upstream that went away', () => {
  test('is restarted in the background until it is back, with no call made', async () => {
    // A host's surface connects it.
    const client = new Client({ name: 'host', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.mcpUrl}?codemode=false`), { requestInit: { headers: gateway.headers } }),
    )
    try {
      expect(await until('old', 'ready')).toBe('ready')
      upstream?.kill()
      await upstream?.exited
      expect(await until('old', 'failed')).toBe('failed')
      // The first restarts find no server.
      await Bun.sleep(AWAY_MS)
      upstream = await startUpstream()
      expect(await until('old', 'ready')).toBe('ready')
      expect((await client.callTool({ name: 'old_get-sum', arguments: { a: 1, b: 2 } })).isError ?? false).toBe(false)
    } finally {
      await client.close()
    }
  })
})
