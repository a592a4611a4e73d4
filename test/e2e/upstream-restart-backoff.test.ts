/**
 * An upstream that went away is restarted in the background until it is back (setting
 * restartBackoffMs, doubling per failed attempt up to restartBackoffMaxMs), not only once: a remote
 * server that takes a few seconds to come back is served again, and its tools listed to hosts again,
 * without a call having to find it first; so is one that was not up yet when it was first tried.
 * server-everything over HTTP+SSE (2024-11-05), restarted or started late.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { testGateway } from '../support/gateway-daemon.ts'
import { type ListeningPeer, SERVER_EVERYTHING, freePort, startListening } from '../support/restartable-peer.ts'

/** Longer than the first restart attempts (restartBackoffMs below), so they find no server. */
const AWAY_MS = 1_500
const SETTLE_MS = 15_000

const port = freePort()
const latePort = freePort()
let upstream: ListeningPeer | undefined
let late: ListeningPeer | undefined

/** server-everything over HTTP+SSE on `on`. */
function startUpstream(on = port): Promise<ListeningPeer> {
  return startListening(['node', SERVER_EVERYTHING, 'sse'], /running on port/i, { PORT: String(on) })
}

beforeAll(async () => {
  upstream = await startUpstream()
})
const gateway = testGateway(
  'upstream-restart-backoff',
  {
    old: { url: `http://127.0.0.1:${port}/sse`, transport: 'sse' },
    // Not up when the gateway first tries it.
    late: { url: `http://127.0.0.1:${latePort}/sse`, transport: 'sse' },
  },
  { restartBackoffMs: 100, restartBackoffMaxMs: 400, connectFailureHoldMs: 100 },
)
afterAll(() => {
  upstream?.kill()
  late?.kill()
})

/** The pool's status of the upstream, from the daemon's /v1 (what `mcpx servers` shows). */
async function statusOf(name: string): Promise<{ state: string; retryInMs?: number } | undefined> {
  const response = await fetch(`${gateway.daemon.info().tcp.url}/v1/servers`, { headers: gateway.headers })
  return ((await response.json()) as { name: string; state: string; retryInMs?: number }[]).find((server) => server.name === name)
}

async function stateOf(name: string): Promise<string> {
  return (await statusOf(name))?.state ?? 'absent'
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
      // Its lists reach the surface just after it is ready: the host calls once it sees the tool.
      const deadline = Date.now() + SETTLE_MS
      const listed = async () => (await client.listTools()).tools.some((tool) => tool.name === 'old_get-sum')
      while (!(await listed()) && Date.now() < deadline) await Bun.sleep(50)
      expect((await client.callTool({ name: 'old_get-sum', arguments: { a: 1, b: 2 } })).isError ?? false).toBe(false)
    } finally {
      await client.close()
    }
  })

  test('one not up when first tried is tried again until it is: its tools reach the host', async () => {
    const client = new Client({ name: 'host', version: '1.0.0' })
    let changes = 0
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++)
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.mcpUrl}?codemode=false`), { requestInit: { headers: gateway.headers } }),
    )
    try {
      expect(await until('late', 'failed')).toBe('failed')
      // Its status says when it is tried next (`mcpx servers`: "failed (next try in N s): …").
      expect((await statusOf('late'))?.retryInMs).toBeNumber()
      expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('late_get-sum')
      await Bun.sleep(AWAY_MS)
      late = await startUpstream(latePort)
      expect(await until('late', 'ready')).toBe('ready')
      const deadline = Date.now() + SETTLE_MS
      while (changes === 0 && Date.now() < deadline) await Bun.sleep(20)
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('late_get-sum')
    } finally {
      await client.close()
    }
  })
})
