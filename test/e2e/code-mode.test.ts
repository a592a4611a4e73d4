/**
 * Code mode end to end with the official SDK client as the host: search, types, then one mcpx_exec
 * that calls two tools on two upstreams (one over stdio, one over Streamable HTTP), combines the
 * results and returns a small value. The code-mode tools/list stays small whatever the upstreams.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client'
import { homeLayout, parseConfig } from '../../lib/config/index.ts'
import { type Daemon, readToken, startGatewayDaemon } from '../../lib/daemon/index.ts'
import { REPO_ROOT, tempDir, testSettings } from '../harness.ts'

const dir = tempDir('mcpx-codemode')
let daemon: Daemon
let fixture: ReturnType<typeof Bun.spawn>
let client: Client
let mcpUrl: URL
let headers: Record<string, string>

/** Start the everything fixture over HTTP on an ephemeral port; resolves with its URL. */
async function startHttpFixture(): Promise<string> {
  fixture = Bun.spawn([process.execPath, join(REPO_ROOT, 'test/fixtures/everything/main.ts'), '--port', '0'], {
    stderr: 'pipe',
    stdout: 'ignore',
  })
  const reader = (fixture.stderr as ReadableStream<Uint8Array>).getReader()
  let text = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`fixture exited: ${text}`)
    text += new TextDecoder().decode(value)
    const url = text.match(/listening on (\S+)/)?.[1]
    if (url) return url
  }
}

beforeAll(async () => {
  const url = await startHttpFixture()
  const config = parseConfig(
    JSON.stringify({
      mcpServers: {
        up: { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/peers/gateway-upstream-fixture.ts')] },
        ev: { url },
      },
    }),
    'code-mode.json',
    {},
  )
  const layout = homeLayout(join(dir.path, 'home'), join(dir.path, 'config.json'))
  daemon = await startGatewayDaemon({ settings: testSettings({ daemonIdleMs: 0 }), config, layout, version: '0.0.0-test' })
  mcpUrl = new URL(`${daemon.info().tcp.url}/mcp`)
  headers = { Authorization: `Bearer ${readToken(layout.token)}` }
  client = new Client({ name: 'host', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers } }))
})
afterAll(async () => {
  await client?.close()
  await daemon?.shutdown('test done')
  fixture?.kill()
  dir[Symbol.dispose]()
})

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text

describe('code mode through /mcp', () => {
  test('tools/list is the small gateway surface', async () => {
    const { tools } = await client.listTools()
    const names = tools.map((t) => t.name)
    expect(names).toEqual(expect.arrayContaining(['mcpx_exec', 'mcpx_search', 'mcpx_types', 'mcpx_call', 'mcpx_catalog']))
    expect(names.some((n) => n.startsWith('up_') || n.startsWith('ev_'))).toBe(false)
    // The surface's budget in a model's context (issue target: ≤ 4 KB whatever the upstreams offer).
    const CODE_MODE_TOOLS_LIST_MAX_BYTES = 4096
    expect(Buffer.byteLength(JSON.stringify(tools))).toBeLessThanOrEqual(CODE_MODE_TOOLS_LIST_MAX_BYTES)
  })

  test('search finds tools by what they do, across servers', async () => {
    const result = await client.callTool({ name: 'mcpx_search', arguments: { query: 'add two numbers' } })
    const hits = (result.structuredContent as { hits: { qualifiedName: string }[] }).hits.map((h) => h.qualifiedName)
    expect(hits[0]).toBe('up.add')
  })

  test('types declares the namespace functions exec provides', async () => {
    const result = await client.callTool({ name: 'mcpx_types', arguments: { tools: ['up.add', 'ev.test_simple_text'] } })
    const text = textOf(result)
    expect(text).toContain('add(')
    expect(text).toContain('test_simple_text(')
  })

  test('one exec calls a stdio upstream and an HTTP upstream and returns a small value', async () => {
    const code = [
      'const sum: number = await up.add({ a: 20, b: 22 })',
      'const text = await ev.test_simple_text({})',
      'console.log("got", sum)',
      'return { sum, words: String(text).split(" ").length }',
    ].join('\n')
    const result = await client.callTool({ name: 'mcpx_exec', arguments: { code } })
    expect(result.isError).toBeFalsy()
    expect(result.structuredContent).toEqual({ result: { sum: 42, words: 8 }, logs: ['got 42'] })
  })

  test('a tool error is a catchable exception, and a script error is reported as such', async () => {
    const caught = await client.callTool({
      name: 'mcpx_exec',
      arguments: { code: 'try { await ev.test_error_handling({}) } catch (e) { return "caught: " + e.message }' },
    })
    expect((caught.structuredContent as { result: string }).result).toMatch(/^caught: .*intentionally returns an error/)
    const broken = await client.callTool({ name: 'mcpx_exec', arguments: { code: 'return (' } })
    expect(broken.isError).toBe(true)
    expect((broken.structuredContent as { error: { error: string } }).error.error).toBe('syntax')
  })

  test('an elicitation raised by a tool called from inside a script reaches the host that ran the script', async () => {
    const asking = new Client({ name: 'asking-host', version: '1.0.0' }, { capabilities: { elicitation: {} } })
    asking.setRequestHandler(ElicitRequestSchema, async (request) => ({
      action: 'accept',
      content: { answer: `from the host: ${request.params.message}` },
    }))
    await asking.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers } }))
    try {
      const result = await asking.callTool({
        name: 'mcpx_exec',
        arguments: { code: 'const said = await up.ask({ question: "ok?" }); return said.toUpperCase()' },
      })
      expect(result.structuredContent).toEqual({ result: 'ACTION=ACCEPT ANSWER=FROM THE HOST: OK?', logs: [] })
    } finally {
      await asking.close()
    }
  })

  test('a 2026 host gets the question as input_required, and its retry resumes the same running script', async () => {
    const modern = new ModernClient(
      { name: 'modern-host', version: '2.0.0' },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    )
    modern.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { answer: 'modern' } }))
    await modern.connect(new ModernHttp(mcpUrl, { requestInit: { headers } }))
    try {
      // The counter proves the script ran once: a re-run on retry would log "start" twice.
      const code = 'console.log("start"); const said = await up.ask({ question: "q" }); return said'
      const result = await modern.callTool({ name: 'mcpx_exec', arguments: { code } })
      expect(result.structuredContent).toEqual({ result: 'action=accept answer=modern', logs: ['start'] })
    } finally {
      await modern.close()
    }
  })
})
