/**
 * Load through the daemon (a test of correctness under load, not a timing): 50 concurrent clients ×
 * 200 tools/call each on /mcp, every answer matched to its request by id and payload; then an
 * upstream killed mid-call fails only that caller, and the next call succeeds after the restart.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { homeLayout, parseConfig } from '../../lib/config/index.ts'
import { type Daemon, readToken, startGatewayDaemon } from '../../lib/daemon/index.ts'
import { META } from '../../lib/wire/index.ts'
import { REPO_ROOT, tempDir, testSettings } from '../harness.ts'

const CLIENTS = 50
const CALLS_PER_CLIENT = 200
const dir = tempDir('mcpx-load')
let daemon: Daemon
let url: string
let token: string

beforeAll(async () => {
  const config = parseConfig(
    JSON.stringify({
      mcpServers: { up: { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/peers/gateway-upstream-fixture.ts')] } },
    }),
    'load.json',
    {},
  )
  const layout = homeLayout(join(dir.path, 'home'), join(dir.path, 'config.json'))
  daemon = await startGatewayDaemon({
    settings: testSettings({ daemonIdleMs: 0, requestTimeoutMs: 30_000 }),
    config,
    layout,
    version: '0.0.0-test',
  })
  url = `${daemon.info().tcp.url}/mcp?codemode=false`
  token = readToken(layout.token)!
})
afterAll(async () => {
  await daemon?.shutdown('test done')
  dir[Symbol.dispose]()
})

/** One stateless 2026 tools/call (no session: every request stands alone). */
async function call(
  id: string,
  tool: string,
  args: Record<string, unknown>,
): Promise<{ id: unknown; text?: string; isError?: boolean; error?: unknown }> {
  const body = {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: tool,
      arguments: args,
      _meta: { [META.PROTOCOL_VERSION]: '2026-07-28', [META.CLIENT_CAPABILITIES]: {}, [META.CLIENT_INFO]: { name: 'load', version: '1' } },
    },
  }
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'tools/call',
      'Mcp-Name': tool,
    },
    body: JSON.stringify(body),
  })
  const message = (await response.json()) as { id: unknown; result?: { content: { text: string }[]; isError?: boolean }; error?: unknown }
  return { id: message.id, text: message.result?.content[0]?.text, ...(message.result?.isError && { isError: true }), error: message.error }
}

describe('daemon under load', () => {
  test(`${CLIENTS} concurrent clients × ${CALLS_PER_CLIENT} calls: every response matches its request`, async () => {
    const mismatches: string[] = []
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, client) => {
        for (let i = 0; i < CALLS_PER_CLIENT; i++) {
          const id = `c${client}-${i}`
          const answer = await call(id, 'up_echo', { text: `payload ${id}` })
          if (answer.id !== id || answer.text !== `payload ${id}`) mismatches.push(`${id}: ${JSON.stringify(answer)}`)
        }
      }),
    )
    expect(mismatches).toEqual([])
  })

  test('an upstream killed mid-call fails that caller clearly; concurrent and later calls succeed', async () => {
    const slow = call('slow-1', 'up_slow', { ms: 200 })
    const crash = call('crash-1', 'up_crash', {})
    const [slowAnswer, crashAnswer] = await Promise.all([slow, crash])
    // A tool whose upstream died is a tool execution error the model can see (SEP-1303), naming why.
    expect(crashAnswer).toMatchObject({ id: 'crash-1', isError: true })
    expect(crashAnswer.text).toMatch(/server exited with code 3: gateway fixture crashing on request/)
    // The slow call shared the dying process: it either finished first or fails the same clear way (never hangs).
    expect(slowAnswer.text === 'slept 200' || /exited/.test(slowAnswer.text ?? '')).toBe(true)
    expect(await call('after-1', 'up_echo', { text: 'back' })).toEqual({ id: 'after-1', text: 'back', error: undefined })
  })
})
