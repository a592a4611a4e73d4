/**
 * An upstream whose results break their schema (malformed-results-fixture.ts): what mcpx can read
 * without loss is passed on in the shape hosts parse; what it cannot (an isError that is no boolean,
 * a list that is no list) gets its call refused with an error that names what is wrong (on the tool
 * surfaces, a tool error result), on every way a host reaches it: the raw surface (its plain
 * calls relayed as they are), code mode's mcpx_call, resources/read and prompts/get. Before, a
 * `content` that was no array reached the host as an empty result, as if the tool had said nothing.
 * The other calls on the same upstream keep being served.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { LoggingMessageNotificationSchema, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js'
import { homeLayout, parseConfig } from '../../lib/config/index.ts'
import { type Daemon, readToken, startGatewayDaemon } from '../../lib/daemon/index.ts'
import { REPO_ROOT, tempDir, testSettings } from '../harness.ts'

const dir = tempDir('mcpx-malformed')
let daemon: Daemon
let headers: Record<string, string>

beforeAll(async () => {
  const fixture = join(REPO_ROOT, 'test/fixtures/peers/malformed-results-fixture.ts')
  const servers = {
    bad: { command: process.execPath, args: [fixture] },
    caps: { command: process.execPath, args: [fixture, 'sloppy-capabilities'] },
  }
  const config = parseConfig(JSON.stringify({ mcpServers: servers }), 'malformed.json', {})
  const layout = homeLayout(join(dir.path, 'home'), join(dir.path, 'config.json'))
  daemon = await startGatewayDaemon({ settings: testSettings({ daemonIdleMs: 0 }), config, layout, version: '0.0.0-test' })
  headers = { Authorization: `Bearer ${readToken(layout.token)}` }
})
afterAll(async () => {
  await daemon?.shutdown('test done')
  dir[Symbol.dispose]()
})

async function host(query: string): Promise<Client> {
  const client = new Client({ name: 'malformed-host', version: '1.0.0' })
  const url = new URL(`${daemon.info().tcp.url}/mcp${query}`)
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }))
  return client
}

/**
 * The two ways a host meets an upstream's own items: the raw surface (names prefixed by the
 * server, resource URIs under mcpx://server/, plain calls relayed as they are) and pass-through
 * (the upstream as itself).
 */
const LANES = [
  {
    surface: 'the raw surface',
    query: '?codemode=false',
    name: (name: string) => `bad_${name}`,
    uri: (uri: string) => `mcpx://bad/${uri}`,
  },
  { surface: 'passthrough', query: '?passthrough=bad', name: (name: string) => name, uri: (uri: string) => uri },
] as const

/** Content that is no list of typed blocks, and what the host gets: the same content, losslessly as blocks. */
const LIBERAL: ReadonlyArray<readonly [string, { type: 'text'; text: string }[]]> = [
  ['string_content', [{ type: 'text', text: 'the text, not in a block' }]],
  ['null_block', [{ type: 'text', text: 'null' }]],
  ['untyped_block', [{ type: 'text', text: '{"text":"no type"}' }]],
]

describe('the raw surface', () => {
  for (const [tool, content] of LIBERAL) {
    test(`${tool}: the content reaches the host as content blocks, nothing of it lost (before: an empty result)`, async () => {
      const client = await host('?codemode=false')
      expect(await client.callTool({ name: `bad_${tool}`, arguments: {} })).toEqual({ content })
      await client.close()
    })
  }

  test("string_is_error: the host gets an error result naming the problem, not the tool's (is it an error or not?)", async () => {
    const client = await host('?codemode=false')
    // An upstream's failed call reaches the model as a tool error (as every failed call on this surface does).
    expect(await client.callTool({ name: 'bad_string_is_error', arguments: {} })).toEqual({
      content: [
        { type: 'text', text: "tools/call string_is_error: the server's result is malformed: `isError` is a string, not a boolean" },
      ],
      isError: true,
    })
    // The upstream's connection and the host's session both go on.
    expect(await client.callTool({ name: 'bad_fine', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'fine' }] })
    await client.close()
  })

  test('resources/read and prompts/get name their malformed lists', async () => {
    const client = await host('?codemode=false')
    const resources = await client.listResources()
    const uri = resources.resources.find((r) => r.uri.endsWith('test://bad'))?.uri
    expect(uri).toBeDefined()
    await expect(client.readResource({ uri: uri! })).rejects.toThrow('`contents` is an object, not an array')
    const prompts = await client.listPrompts()
    const prompt = prompts.prompts.find((p) => p.name.endsWith('bad'))?.name
    expect(prompt).toBeDefined()
    await expect(client.getPrompt({ name: prompt! })).rejects.toThrow('`messages` is a string, not an array')
    await client.close()
  })
})

describe("an upstream's tools with fields of the wrong type", () => {
  for (const { surface, query, name: nameOf } of LANES) {
    test(`${surface}: the host's parser takes the whole list, each tool kept with what fits the schema`, async () => {
      const client = await host(query)
      // The SDK checks every tool of the list against the schema: one that does not fit refuses them all.
      const { tools } = await client.listTools()
      const byName = new Map(tools.map((tool) => [tool.name, tool]))
      expect(byName.has(nameOf('fine'))).toBe(true)
      expect(byName.get(nameOf('sloppy_schema'))?.inputSchema).toEqual({ type: 'object' })
      expect(byName.get(nameOf('sloppy_no_schema'))?.inputSchema).toEqual({ type: 'object' })
      expect(byName.get(nameOf('sloppy_array_schema'))?.inputSchema).toEqual({ type: 'object' })
      const fields = byName.get(nameOf('sloppy_fields'))!
      expect(fields.title).toBeUndefined()
      expect(fields.description).toBeUndefined()
      expect(fields.annotations).toEqual({ openWorldHint: true })
      expect(byName.get(nameOf('sloppy_properties'))?.inputSchema).toEqual({
        type: 'object',
        properties: { a: {}, b: {}, c: { not: {} }, d: { type: 'integer' } },
      })
      expect(await client.callTool({ name: nameOf('sloppy_no_schema'), arguments: { any: 1 } })).toMatchObject({
        content: [{ type: 'text', text: 'fine' }],
      })
      await client.close()
    })
  }
})

describe("an upstream's resources, templates and prompts with fields of the wrong type", () => {
  for (const { surface, query, uri: uriOf, name: nameOf } of LANES) {
    test(`${surface}: every list parses; a missing name is the URI, a field of the wrong type left out, an item without identity not listed`, async () => {
      const client = await host(query)
      const { resources } = await client.listResources()
      expect(resources.find((r) => r.uri === uriOf('test://no-name'))).toEqual({
        uri: uriOf('test://no-name'),
        name: uriOf('test://no-name'),
      })
      expect(resources.find((r) => r.uri === uriOf('test://typed'))).toEqual({ uri: uriOf('test://typed'), name: 'typed' })
      expect(resources.some((r) => r.name === 'no-uri')).toBe(false)
      const { resourceTemplates } = await client.listResourceTemplates()
      const ours = resourceTemplates.filter((t) => t.uriTemplate.startsWith(uriOf('')))
      expect(ours).toEqual([{ uriTemplate: uriOf('test://{x}'), name: uriOf('test://{x}') }])
      const { prompts } = await client.listPrompts()
      expect(prompts.find((p) => p.name === nameOf('sloppy_prompt'))).toEqual({ name: nameOf('sloppy_prompt'), arguments: [{ name: 'a' }] })
      expect(prompts.some((p) => p.description === 'no name')).toBe(false)
      await client.close()
    })
  }
})

describe('null where a list or an optional field is (Go servers write nil so)', () => {
  for (const { surface, query, name: nameOf } of LANES) {
    const name = nameOf('go_nulls')
    test(`${surface}: read as empty and absent, and the host's parser takes the result`, async () => {
      const client = await host(query)
      expect(await client.callTool({ name, arguments: {} })).toEqual({ content: [] })
      await client.close()
    })
  }
})

describe('resource contents missing what their type requires', () => {
  for (const { surface, query, uri: uriOf } of LANES) {
    test(`${surface}: each reaches the host as text holding its JSON, so the host's parser takes the read`, async () => {
      const client = await host(query)
      const uri = uriOf('test://incomplete')
      const { contents } = await client.readResource({ uri })
      expect(contents).toEqual([
        { uri, text: JSON.stringify({ uri }) },
        { uri: '', text: '{"text":"no uri"}' },
        { uri, text: JSON.stringify({ uri, text: 5 }) },
        { uri, text: 'fine' },
      ])
      await client.close()
    })
  }
})

describe('a prompt message with a role MCP does not have', () => {
  for (const { surface, query, name: nameOf } of LANES) {
    const name = nameOf('system_role')
    test(`${surface}: it reaches the host as the user's, so the host's parser takes the prompt`, async () => {
      const client = await host(query)
      const { messages } = await client.getPrompt({ name })
      expect(messages).toEqual([
        { role: 'user', content: { type: 'text', text: 'be brief' } },
        { role: 'user', content: { type: 'text', text: 'hi' } },
      ])
      await client.close()
    })
  }
})

describe('content blocks missing what their type requires', () => {
  for (const { surface, query, name: nameOf } of LANES) {
    const name = nameOf('incomplete_blocks')
    test(`${surface}: each reaches the host as a text block holding its JSON, so the host's parser takes the result`, async () => {
      const client = await host(query)
      expect(await client.callTool({ name, arguments: {} })).toEqual({
        content: [
          { type: 'text', text: '{"type":"text"}' },
          { type: 'text', text: '{"type":"image","data":"AAAA"}' },
          { type: 'text', text: '{"type":"resource_link","uri":"test://x"}' },
          { type: 'text', text: 'ok' },
          // Annotations that are no object are left out; the block stays.
          { type: 'text', text: 'annotated' },
        ],
      })
      await client.close()
    })
  }
})

describe('capabilities spelt otherwise than as objects', () => {
  test('passthrough: the host completes the handshake and sees them as objects; the tools serve', async () => {
    const client = await host('?passthrough=caps')
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {} })
    expect(client.getServerCapabilities()?.resources?.subscribe).toBeUndefined()
    expect(await client.callTool({ name: 'fine', arguments: {} })).toMatchObject({ content: [{ text: 'fine' }] })
    await client.close()
  })
})

describe("an upstream's log line outside the schema", () => {
  test("reaches the host spelled as its schema requires (another logger's level name as its syslog one, else info; data null), not dropped", async () => {
    const client = await host('?codemode=false')
    const lines: LoggingMessageNotification['params'][] = []
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void lines.push(n.params))
    await client.setLoggingLevel('debug')
    expect(await client.callTool({ name: 'bad_odd_log', arguments: {} })).toMatchObject({ content: [{ text: 'logged' }] })
    expect(lines).toEqual([
      { level: 'debug', data: null },
      { level: 'warning', data: 'disk low' },
      { level: 'info', data: 'who knows' },
    ])
    await client.close()
  })
})

describe("an upstream's progress outside the schema", () => {
  test('only what the host can read reaches it: no update without a number, no total or message of the wrong type', async () => {
    const client = await host('?codemode=false')
    const updates: unknown[] = []
    const result = await client.callTool({ name: 'bad_odd_progress', arguments: {} }, undefined, {
      onprogress: (p) => void updates.push(p),
    })
    expect(result).toMatchObject({ content: [{ text: 'progressed' }] })
    expect(updates).toEqual([{ progress: 1 }])
    await client.close()
  })
})

describe('code mode', () => {
  test('mcpx_call answers an error result naming the problem; the valid tool still answers', async () => {
    const client = await host('')
    const failed = await client.callTool({ name: 'mcpx_call', arguments: { tool: 'bad.string_is_error', arguments: {} } })
    expect(failed.isError).toBe(true)
    expect(JSON.stringify(failed.content)).toContain("the server's result is malformed: `isError` is a string, not a boolean")
    const text = await client.callTool({ name: 'mcpx_call', arguments: { tool: 'bad.string_content', arguments: {} } })
    expect(text).toMatchObject({ content: [{ type: 'text', text: 'the text, not in a block' }] })
    const fine = await client.callTool({ name: 'mcpx_call', arguments: { tool: 'bad.fine', arguments: {} } })
    expect(fine).toMatchObject({ content: [{ type: 'text', text: 'fine' }] })
    await client.close()
  })
})
