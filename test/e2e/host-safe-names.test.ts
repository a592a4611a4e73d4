/**
 * The raw surface names tools as hosts' function-name rules allow (lib/gateway/naming.ts rawName):
 * Claude Desktop, the Anthropic and OpenAI APIs and Codex accept only ^[A-Za-z0-9_-]{1,64}$, and
 * Claude Desktop withholds every tool of a server with one name outside it. Pass-through keeps the
 * upstream's own names, as the host would get them from the server directly.
 */
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { DOTTED_NAMES } from '../fixtures/peers/dotted-names-fixture.ts'
import { REPO_ROOT } from '../harness.ts'
import { testGateway } from '../support/gateway-daemon.ts'

const HOST_SAFE = /^[A-Za-z0-9_-]{1,64}$/
const gateway = testGateway('host-safe-names', {
  cal: { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/peers/dotted-names-fixture.ts')] },
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
      expect(names.slice(0, 3)).toEqual(['cal_calendar_read', 'cal_repos_list', 'cal_plain_name'])
      expect(names).toHaveLength(DOTTED_NAMES.length)
      for (const name of names) expect(name).toMatch(HOST_SAFE)
      // The two long names share their first 64 characters: each ends in a hash of its whole name.
      expect(new Set(names).size).toBe(DOTTED_NAMES.length)
      const answers = await Promise.all(names.map(async (name) => textOf(await client.callTool({ name, arguments: {} }))))
      expect(answers).toEqual(DOTTED_NAMES)
    } finally {
      await client.close()
    }
  })

  test('pass-through: the upstream names as they are', async () => {
    const client = await host('?passthrough=cal')
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(DOTTED_NAMES)
      expect(textOf(await client.callTool({ name: 'calendar.read', arguments: {} }))).toBe('calendar.read')
    } finally {
      await client.close()
    }
  })
})
