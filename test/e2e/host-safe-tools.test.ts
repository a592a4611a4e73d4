/**
 * The raw surface shows tools as hosts' model APIs take them. Names: Claude Desktop, the Anthropic
 * and OpenAI APIs and Codex accept only ^[A-Za-z0-9_-]{1,64}$, and Claude Desktop withholds every
 * tool of a server with one name outside it (lib/gateway/naming.ts rawName). Input schemas: the
 * Anthropic API refuses anyOf/oneOf/allOf at a schema's top level, failing the host's whole request
 * (lib/wire/shape/model-rules.ts), and the OpenAI API an array schema without `items`; mcpx still
 * checks calls against the upstream's own schema.
 * Pass-through keeps the upstream's tools as they are, as the host would get them from it directly.
 */
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { BARE_ARRAYS_TOOL, COMBINATOR_TOOLS, DOTTED_NAMES } from '../fixtures/peers/host-rules-fixture.ts'
import { REPO_ROOT } from '../harness.ts'
import { testGateway } from '../support/gateway-daemon.ts'

const HOST_SAFE = /^[A-Za-z0-9_-]{1,64}$/
const gateway = testGateway('host-safe-tools', {
  cal: { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/peers/host-rules-fixture.ts')] },
})

async function host(query: string): Promise<Client> {
  const client = new Client({ name: 'host', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gateway.mcpUrl}${query}`), { requestInit: { headers: gateway.headers } }),
  )
  return client
}

const textOf = (result: unknown) => ((result as { content: { text: string }[] }).content[0] ?? { text: '' }).text

describe('tool names hosts accept', () => {
  test('raw surface: every name fits, distinct names stay distinct, and each calls its own tool', async () => {
    const client = await host('?codemode=false')
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name).filter((name) => name.startsWith('cal_'))
      const dotted = names.slice(0, DOTTED_NAMES.length)
      expect(dotted.slice(0, 3)).toEqual(['cal_calendar_read', 'cal_repos_list', 'cal_plain_name'])
      for (const name of names) expect(name).toMatch(HOST_SAFE)
      // The two long names share their first 64 characters: each ends in a hash of its whole name.
      expect(new Set(dotted).size).toBe(DOTTED_NAMES.length)
      const answers = await Promise.all(dotted.map(async (name) => textOf(await client.callTool({ name, arguments: {} }))))
      expect(answers).toEqual(DOTTED_NAMES)
    } finally {
      await client.close()
    }
  })

  test('pass-through: the upstream names as they are', async () => {
    const client = await host('?passthrough=cal')
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name)
      expect(names.slice(0, DOTTED_NAMES.length)).toEqual(DOTTED_NAMES)
      expect(textOf(await client.callTool({ name: 'calendar.read', arguments: {} }))).toBe('calendar.read')
    } finally {
      await client.close()
    }
  })
})

describe('input schemas hosts accept', () => {
  test('raw surface: no combinator at the top, every branch property kept, the rule said in the description', async () => {
    const client = await host('?codemode=false')
    try {
      const listed = Object.fromEntries((await client.listTools()).tools.map((tool) => [tool.name, tool]))
      for (const { name } of COMBINATOR_TOOLS) {
        const schema = listed[`cal_${name}`]!.inputSchema as Record<string, unknown>
        expect(Object.keys(schema).filter((key) => ['anyOf', 'oneOf', 'allOf'].includes(key))).toEqual([])
        expect(schema.type).toBe('object')
      }
      expect(listed.cal_attach!.inputSchema).toEqual({
        type: 'object',
        properties: { content: { type: 'string' }, url: { type: 'string' } },
      })
      expect(listed.cal_attach!.description).toStartWith('Attach a file\n\nThe arguments must also match this JSON Schema rule: {"anyOf":')
      expect(listed.cal_analyze!.inputSchema.required).toEqual(['prompt'])
      // Every allOf branch applies: what each requires is required.
      expect(listed.cal_merge!.inputSchema).toEqual({
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      })
    } finally {
      await client.close()
    }
  })

  test('raw surface: an array schema without items says items: {} (what its absence means), at any depth', async () => {
    const client = await host('?codemode=false')
    try {
      const tag = (await client.listTools()).tools.find((tool) => tool.name === 'cal_tag')!
      expect(tag.inputSchema.properties).toEqual({
        tags: { type: 'array', description: 'Tags', items: {} },
        rows: { type: 'array', items: { type: 'array', items: {} } },
        filter: { type: 'object', properties: { ids: { type: ['array', 'null'], items: {} } } },
        kept: { type: 'array', items: { type: 'string' } },
      })
      expect(tag.description).toBeUndefined()
      expect((await client.callTool({ name: 'cal_tag', arguments: { tags: [1, 'a'], rows: [[true]] } })).isError ?? false).toBe(false)
    } finally {
      await client.close()
    }
  })

  test("raw surface: calls are still checked against the upstream's whole schema", async () => {
    const client = await host('?codemode=false')
    try {
      const good = await client.callTool({ name: 'cal_analyze', arguments: { prompt: 'p', imageUrl: 'u' } })
      expect(good.isError ?? false).toBe(false)
      expect(good.structuredContent).toEqual({ arguments: { prompt: 'p', imageUrl: 'u' } })
      // Both images, or neither: oneOf refuses, as the upstream's schema says.
      for (const args of [{ prompt: 'p', imageUrl: 'u', imageBase64: 'b' }, { prompt: 'p' }]) {
        const refused = await client.callTool({ name: 'cal_analyze', arguments: args })
        expect(refused.isError).toBe(true)
        expect(textOf(refused)).toStartWith('arguments for cal_analyze do not match its inputSchema')
      }
      expect((await client.callTool({ name: 'cal_merge', arguments: { a: 1 } })).isError).toBe(true)
      expect((await client.callTool({ name: 'cal_attach', arguments: { url: 'x' } })).isError ?? false).toBe(false)
    } finally {
      await client.close()
    }
  })

  test('pass-through: the schemas as the upstream wrote them', async () => {
    const client = await host('?passthrough=cal')
    try {
      const listed = (await client.listTools()).tools.filter((tool) =>
        [...COMBINATOR_TOOLS, BARE_ARRAYS_TOOL].some(({ name }) => name === tool.name),
      )
      // Only the `type` hosts' parsers require is said where the upstream left it implicit (allOf of objects).
      expect(listed.map((tool) => tool.inputSchema)).toEqual(
        [...COMBINATOR_TOOLS, BARE_ARRAYS_TOOL].map(({ inputSchema }) => ({ type: 'object', ...inputSchema })) as never,
      )
    } finally {
      await client.close()
    }
  })
})
