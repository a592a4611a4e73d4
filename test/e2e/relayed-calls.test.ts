/**
 * A legacy host's plain calls on the raw surface are relayed to their upstream as they are
 * (lib/server/relay.ts, Upstream.relay); what the upstream does mid-call still reaches the host as
 * on the general way. An SDK 1.x host on the daemon's /mcp?codemode=false, a real SDK 1.x upstream
 * over stdio (sdk-legacy-fixture.ts): log lines and questions mid-call turn the answer into a
 * stream; a progress token takes the general way; a host's cancel reaches the upstream; a timeout,
 * an upstream that exits mid-call and a stopping daemon each answer the call.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js'
import { homeLayout, parseConfig } from '../../lib/config/index.ts'
import { type Daemon, readToken, startGatewayDaemon } from '../../lib/daemon/index.ts'
import { REPO_ROOT, tempDir, testSettings } from '../harness.ts'

/** The daemon's request deadline here: `leg_slow` past it times out, under it does not. */
const REQUEST_TIMEOUT_MS = 1_500

const dir = tempDir('mcpx-relayed')
let daemon: Daemon
let mcpUrl: URL
let headers: Record<string, string>

beforeAll(async () => {
  const fixture = join(REPO_ROOT, 'test/fixtures/peers/sdk-legacy-fixture.ts')
  const config = parseConfig(
    JSON.stringify({ mcpServers: { leg: { command: process.execPath, args: [fixture, 'stdio'] } } }),
    'relayed.json',
    {},
  )
  const layout = homeLayout(join(dir.path, 'home'), join(dir.path, 'config.json'))
  daemon = await startGatewayDaemon({
    settings: testSettings({ daemonIdleMs: 0, requestTimeoutMs: REQUEST_TIMEOUT_MS, shutdownGraceMs: 100 }),
    config,
    layout,
    version: '0.0.0-test',
  })
  headers = { Authorization: `Bearer ${readToken(layout.token)}` }
  mcpUrl = new URL(`${daemon.info().tcp.url}/mcp?codemode=false`)
})
afterAll(async () => {
  await daemon?.shutdown('test done')
  dir[Symbol.dispose]()
})

async function host(): Promise<{ client: Client; logs: LoggingMessageNotification['params'][] }> {
  const client = new Client({ name: 'relay-host', version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {} } })
  const logs: LoggingMessageNotification['params'][] = []
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params))
  client.setRequestHandler(ElicitRequestSchema, async (request) => ({
    action: 'accept',
    content: { answer: `re: ${request.params.message}` },
  }))
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: 'assistant',
    content: { type: 'text', text: 'sampled by the host' },
    model: 'test-model',
  }))
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers } }))
  return { client, logs }
}

const textOf = (result: unknown) => ((result as { content: { text: string }[] }).content[0] as { text: string }).text

describe('a legacy host on the raw surface, a legacy upstream', () => {
  test('a plain call is answered as JSON', async () => {
    const { client } = await host()
    expect(textOf(await client.callTool({ name: 'leg_echo', arguments: { text: 'relayed' } }))).toBe('relayed')
    await client.close()
  })

  test("the upstream's log lines mid-call reach the host before the result", async () => {
    const { client, logs } = await host()
    expect(textOf(await client.callTool({ name: 'leg_notify', arguments: { count: 3 } }))).toBe('sent 3')
    expect(logs.map((l) => l.data)).toEqual(['step 0', 'step 1', 'step 2'])
    await client.close()
  })

  test("the upstream's questions mid-call are the host's to answer (elicitation, sampling)", async () => {
    const { client } = await host()
    expect(textOf(await client.callTool({ name: 'leg_ask', arguments: { question: 'who?' } }))).toBe('action=accept answer=re: who?')
    expect(textOf(await client.callTool({ name: 'leg_sample', arguments: { prompt: 'hi' } }))).toBe(
      'sampled: {"type":"text","text":"sampled by the host"}',
    )
    await client.close()
  })

  test('a call with a progress token gets its progress (the general way)', async () => {
    const { client } = await host()
    const seen: number[] = []
    const result = await client.callTool({ name: 'leg_progress', arguments: { steps: 3 } }, undefined, {
      onprogress: (p) => void seen.push(p.progress),
    })
    expect(textOf(result)).toBe('done 3')
    expect(seen).toEqual([1, 2, 3])
    await client.close()
  })

  test("the host's cancel stops the call upstream, and the connection serves on", async () => {
    const { client } = await host()
    const abort = new AbortController()
    const started = performance.now()
    const cancelled = client.callTool({ name: 'leg_slow', arguments: { ms: REQUEST_TIMEOUT_MS - 500 } }, undefined, {
      signal: abort.signal,
    })
    setTimeout(() => abort.abort(new Error('host gave up')), 100)
    await expect(cancelled).rejects.toThrow('host gave up')
    // The upstream was told: its slow call ended early, so the next one is not queued behind it.
    expect(textOf(await client.callTool({ name: 'leg_echo', arguments: { text: 'after' } }))).toBe('after')
    expect(performance.now() - started).toBeLessThan(REQUEST_TIMEOUT_MS - 500)
    await client.close()
  })

  test('a call past the request deadline is answered with the timeout as an isError result', async () => {
    const { client } = await host()
    const result = await client.callTool({ name: 'leg_slow', arguments: { ms: REQUEST_TIMEOUT_MS + 1_000 } })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toContain(`got no answer within ${REQUEST_TIMEOUT_MS} ms`)
    await client.close()
  })

  test('an upstream that exits mid-call: the call may or may not have run, and the next call reaches its restart', async () => {
    const { client } = await host()
    const result = await client.callTool({ name: 'leg_exit', arguments: { code: 3 } })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toContain('may or may not have run')
    expect(textOf(await client.callTool({ name: 'leg_echo', arguments: { text: 'restarted' } }))).toBe('restarted')
    await client.close()
  })

  // Last: it stops the daemon.
  test('a call in flight when the daemon stops gets an error saying it may or may not have run', async () => {
    const { client } = await host()
    const inFlight = client.callTool({ name: 'leg_slow', arguments: { ms: REQUEST_TIMEOUT_MS - 200 } })
    await Bun.sleep(100)
    const stopping = daemon.shutdown('test stops it')
    await expect(inFlight).rejects.toThrow('may or may not have run')
    await stopping
    await client.close().catch(() => {})
  })
})
