/**
 * Real hosts through the daemon's /mcp: the official SDK clients (1.x legacy, 2.x modern) list the
 * gateway surface, call upstream tools through mcpx_call and the raw surface, and answer an
 * elicitation an upstream raises mid-call — legacy and modern host × legacy and modern upstream.
 * Upstreams: `up` (SDK 1.x over stdio: legacy) and `ev` (mcpx's everything fixture over stdio:
 * dual-era, reached as modern).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client'
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { homeLayout, parseConfig } from '../../lib/config/index.ts'
import { type Daemon, readToken, startGatewayDaemon } from '../../lib/daemon/index.ts'
import { REPO_ROOT, tempDir, testSettings } from '../harness.ts'

const dir = tempDir('mcpx-gw')
let daemon: Daemon
let headers: Record<string, string>
let mcpUrl: string

beforeAll(async () => {
  const config = parseConfig(
    JSON.stringify({
      mcpServers: {
        up: { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/peers/gateway-upstream-fixture.ts')] },
        ev: { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/everything/main.ts'), '--stdio'] },
      },
    }),
    'gateway-hosts.json',
    {},
  )
  const layout = homeLayout(join(dir.path, 'home'), join(dir.path, 'config.json'))
  daemon = await startGatewayDaemon({ settings: testSettings({ daemonIdleMs: 0 }), config, layout, version: '0.0.0-test' })
  headers = { Authorization: `Bearer ${readToken(layout.token)}` }
  mcpUrl = `${daemon.info().tcp.url}/mcp`
})
afterAll(async () => {
  await daemon?.shutdown('test done')
  dir[Symbol.dispose]()
})

const textOf = (result: unknown) =>
  ((result as { content?: unknown }).content as { type: string; text: string }[]).map((c) => c.text).join('\n')

async function legacyHost<T>(path: string, run: (client: LegacyClient) => Promise<T>): Promise<T> {
  const client = new LegacyClient({ name: 'legacy-host', version: '1.0.0' }, { capabilities: { elicitation: {} } })
  client.setRequestHandler(ElicitRequestSchema, async (request) => ({
    action: 'accept',
    content: { answer: `legacy host saw "${request.params.message}"`, name: 'Ada' },
  }))
  await client.connect(new LegacyHttp(new URL(mcpUrl + path), { requestInit: { headers } }))
  try {
    return await run(client)
  } finally {
    await client.close()
  }
}

async function modernHost<T>(path: string, run: (client: ModernClient) => Promise<T>): Promise<T> {
  const client = new ModernClient(
    { name: 'modern-host', version: '2.0.0' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  )
  client.setRequestHandler('elicitation/create', async (request: { params: { message: string } }) => ({
    action: 'accept',
    content: { answer: `modern host saw "${request.params.message}"`, name: 'Grace' },
  }))
  await client.connect(new ModernHttp(new URL(mcpUrl + path), { requestInit: { headers } }))
  try {
    return await run(client)
  } finally {
    await client.close()
  }
}

describe('legacy host (SDK 1.x) on /mcp', () => {
  test('the code-mode surface is small and mcpx_call reaches an upstream', async () => {
    await legacyHost('', async (client) => {
      const names = (await client.listTools()).tools.map((t) => t.name)
      expect(names).toContain('mcpx_call')
      expect(names).toContain('mcpx_catalog')
      expect(names).not.toContain('up_echo')
      const result = await client.callTool({ name: 'mcpx_call', arguments: { tool: 'up.echo', arguments: { text: 'hi' } } })
      expect(textOf(result)).toBe('hi')
    })
  })

  test('the raw surface offers every upstream tool as <ns>_<tool>', async () => {
    await legacyHost('?codemode=false', async (client) => {
      const names = (await client.listTools()).tools.map((t) => t.name)
      expect(names).toContain('up_echo')
      expect(names).toContain('ev_test_simple_text')
      expect(names).not.toContain('mcpx_call')
      expect(textOf(await client.callTool({ name: 'up_add', arguments: { a: 2, b: 3 } }))).toBe('5')
    })
  })

  test('an elicitation from a legacy upstream reaches the host and completes the call', async () => {
    await legacyHost('', async (client) => {
      const result = await client.callTool({ name: 'mcpx_call', arguments: { tool: 'up.ask', arguments: { question: 'who are you?' } } })
      expect(textOf(result)).toBe('action=accept answer=legacy host saw "who are you?"')
    })
  })

  test("two of one host's calls asking at once on one legacy upstream: both questions reach that host, both calls complete", async () => {
    for (const path of ['?codemode=false', '']) {
      await legacyHost(path, async (client) => {
        const ask = (question: string) =>
          path === ''
            ? client.callTool({ name: 'mcpx_call', arguments: { tool: 'up.ask', arguments: { question } } })
            : client.callTool({ name: 'up_ask', arguments: { question } })
        const answers = await Promise.all([ask('first?'), ask('second?')])
        expect(answers.map(textOf).sort()).toEqual([
          'action=accept answer=legacy host saw "first?"',
          'action=accept answer=legacy host saw "second?"',
        ])
      })
    }
    // The same from one mcpx_exec script calling twice at once.
    await legacyHost('', async (client) => {
      const exec = await client.callTool({
        name: 'mcpx_exec',
        arguments: { code: 'return await Promise.all([up.ask({ question: "a?" }), up.ask({ question: "b?" })])' },
      })
      expect((exec.structuredContent as { result: unknown }).result).toEqual([
        'action=accept answer=legacy host saw "a?"',
        'action=accept answer=legacy host saw "b?"',
      ])
    })
  })

  test("a question while another host's call is in flight on that upstream is refused, never put to the wrong host", async () => {
    await legacyHost('?codemode=false', async (other) => {
      const slow = other.callTool({ name: 'up_slow', arguments: { ms: 1500 } })
      await Bun.sleep(200)
      await legacyHost('?codemode=false', async (client) => {
        const refused = await client.callTool({ name: 'up_ask', arguments: { question: 'whose?' } })
        expect(textOf(refused)).toContain('2 calls of different hosts are in flight on that connection')
      })
      expect(textOf(await slow)).toBe('slept 1500')
    })
  })

  test('an input_required from a modern upstream becomes a request to the host', async () => {
    await legacyHost('', async (client) => {
      const result = await client.callTool({
        name: 'mcpx_call',
        arguments: { tool: 'ev.test_input_required_result_elicitation', arguments: {} },
      })
      expect(textOf(result)).toBe('Hello, Ada!')
    })
  })
})

describe('modern host (SDK 2.x, 2026-07-28) on /mcp', () => {
  test('lists the surface and calls through mcpx_call and the raw surface', async () => {
    await modernHost('', async (client) => {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('mcpx_call')
      expect(textOf(await client.callTool({ name: 'mcpx_call', arguments: { tool: 'ev.test_simple_text' } }))).toBe(
        'This is a simple text response for testing.',
      )
    })
    await modernHost('?codemode=false', async (client) => {
      expect(textOf(await client.callTool({ name: 'up_echo', arguments: { text: 'raw' } }))).toBe('raw')
    })
  })

  test('an elicitation from a legacy upstream comes back as input_required and the retry completes the call', async () => {
    await modernHost('', async (client) => {
      const result = await client.callTool({
        name: 'mcpx_call',
        arguments: { tool: 'up.ask', arguments: { question: 'favourite colour?' } },
      })
      expect(textOf(result)).toBe('action=accept answer=modern host saw "favourite colour?"')
    })
  })

  test('an input_required from a modern upstream is relayed to the modern host', async () => {
    await modernHost('', async (client) => {
      const result = await client.callTool({
        name: 'mcpx_call',
        arguments: { tool: 'ev.test_input_required_result_elicitation', arguments: {} },
      })
      expect(textOf(result)).toBe('Hello, Grace!')
    })
  })
})
