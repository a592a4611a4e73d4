/**
 * Surfaces that change while hosts are connected: list_changed from an upstream reaches a legacy
 * host (its session's GET stream) and a modern host (a subscriptions/listen stream); the reactive
 * surface grows a bounded working set as searches and calls name tools, announcing each change.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { homeLayout, parseConfig } from '../../lib/config/index.ts'
import { type Daemon, readToken, startGatewayDaemon } from '../../lib/daemon/index.ts'
import { readEventStream } from '../../lib/transport/index.ts'
import { META } from '../../lib/wire/index.ts'
import { REPO_ROOT, tempDir, testSettings } from '../harness.ts'
import { validateSpec } from '../support/spec-schema.ts'

type Json = Record<string, unknown>

const WORKING_SET = 2
const dir = tempDir('mcpx-surfaces')
let daemon: Daemon
let base: string
let auth: Record<string, string>

beforeAll(async () => {
  const config = parseConfig(
    JSON.stringify({
      mcpServers: { up: { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/peers/gateway-upstream-fixture.ts')] } },
    }),
    'surfaces.json',
    {},
  )
  const layout = homeLayout(join(dir.path, 'home'), join(dir.path, 'config.json'))
  daemon = await startGatewayDaemon({
    settings: testSettings({ daemonIdleMs: 0, reactiveWorkingSetSize: WORKING_SET }),
    config,
    layout,
    version: '0.0.0-test',
  })
  base = `${daemon.info().tcp.url}/mcp`
  auth = { Authorization: `Bearer ${readToken(layout.token)}` }
})
afterAll(async () => {
  await daemon?.shutdown('test done')
  dir[Symbol.dispose]()
})

/** A legacy host that records tools/list_changed notifications and can wait for the next one. */
async function legacyHost(query: string) {
  const client = new Client({ name: 'host', version: '1.0.0' })
  let changes = 0
  let waiters: (() => void)[] = []
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    changes += 1
    for (const wake of waiters) wake()
    waiters = []
  })
  await client.connect(new StreamableHTTPClientTransport(new URL(base + query), { requestInit: { headers: auth } }))
  const nextChange = (after: number) => (changes > after ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve)))
  return { client, changes: () => changes, nextChange, [Symbol.asyncDispose]: () => client.close() }
}

const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name)

describe('list_changed reaches hosts', () => {
  test('legacy host on the raw surface: an upstream adding a tool is announced and listed', async () => {
    await using host = await legacyHost('?codemode=false')
    const seen = host.changes()
    await host.client.callTool({ name: 'up_touch', arguments: {} })
    await host.nextChange(seen)
    expect(await names(host.client)).toContain('up_added_1')
  })

  test('modern host: a subscriptions/listen stream is acknowledged and carries the change, tagged', async () => {
    const meta = { [META.PROTOCOL_VERSION]: '2026-07-28', [META.CLIENT_CAPABILITIES]: {} }
    const headers = {
      ...auth,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2026-07-28',
    }
    const abort = new AbortController()
    const response = await fetch(`${base}?codemode=false`, {
      method: 'POST',
      headers: { ...headers, 'Mcp-Method': 'subscriptions/listen' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'listen-1',
        method: 'subscriptions/listen',
        params: { notifications: { toolsListChanged: true }, _meta: meta },
      }),
      signal: abort.signal,
    })
    const received: { method: string; params: Record<string, unknown> }[] = []
    let acknowledged!: () => void
    let changed!: () => void
    const ack = new Promise<void>((resolve) => (acknowledged = resolve))
    const change = new Promise<void>((resolve) => (changed = resolve))
    const reading = readEventStream(response.body!, {
      onEvent: (event) => {
        if (!event.data) return
        const message = JSON.parse(event.data)
        received.push(message)
        if (message.method === 'notifications/subscriptions/acknowledged') acknowledged()
        if (message.method === 'notifications/tools/list_changed') changed()
      },
    })
    await ack
    await fetch(`${base}?codemode=false`, {
      method: 'POST',
      headers: { ...headers, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'up_touch' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'touch-1',
        method: 'tools/call',
        params: { name: 'up_touch', arguments: {}, _meta: meta },
      }),
    }).then((r) => r.text())
    await change
    abort.abort()
    await reading
    expect(received.map((m) => m.method).slice(0, 2)).toEqual([
      'notifications/subscriptions/acknowledged',
      'notifications/tools/list_changed',
    ])
    for (const message of received) expect((message.params._meta as Record<string, unknown>)[META.SUBSCRIPTION_ID]).toBe('listen-1')
  })
})

describe('reactive surface', () => {
  test('searches and calls bring tools into a bounded working set, announced with list_changed', async () => {
    await using host = await legacyHost('?mode=reactive')
    const before = await names(host.client)
    expect(before).toContain('mcpx_search')
    expect(before.filter((n) => n.startsWith('up_'))).toEqual([])

    let seen = host.changes()
    await host.client.callTool({ name: 'mcpx_call', arguments: { tool: 'up.echo', arguments: { text: 'x' } } })
    await host.nextChange(seen)
    expect((await names(host.client)).filter((n) => n.startsWith('up_'))).toEqual(['up_echo'])
    expect(await host.client.callTool({ name: 'up_echo', arguments: { text: 'direct' } })).toMatchObject({
      content: [{ type: 'text', text: 'direct' }],
    })

    seen = host.changes()
    await host.client.callTool({ name: 'mcpx_call', arguments: { tool: 'up.add', arguments: { a: 1, b: 2 } } })
    await host.nextChange(seen)
    seen = host.changes()
    await host.client.callTool({ name: 'mcpx_call', arguments: { tool: 'up.pid', arguments: {} } })
    await host.nextChange(seen)
    // Bounded: the least recently used (echo) made room for pid.
    expect((await names(host.client)).filter((n) => n.startsWith('up_'))).toEqual(['up_add', 'up_pid'])
  })
})

describe('each surface describes itself as it is', () => {
  /** initialize at `revision` on `query`'s surface, then tools/list, over plain HTTP. */
  async function describeSurface(query: string, revision: '2025-06-18' | '2025-11-25') {
    const post = async (body: object, session?: string) => {
      const response = await fetch(base + query, {
        method: 'POST',
        headers: {
          ...auth,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ...(session && { 'Mcp-Session-Id': session, 'MCP-Protocol-Version': revision }),
        },
        body: JSON.stringify(body),
      })
      expect(response.headers.get('content-type')).toStartWith('application/json')
      return { session: response.headers.get('mcp-session-id') ?? undefined, message: (await response.json()) as { result: Json } }
    }
    const capabilities = {}
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: revision, capabilities, clientInfo: { name: 't', version: '1' } },
    })
    const list = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, init.session)
    const tools = list.message.result.tools as Json[]
    return {
      instructions: init.message.result.instructions as string | undefined,
      capabilities: init.message.result.capabilities as Json,
      tools,
      result: list.message.result,
    }
  }

  for (const revision of ['2025-06-18', '2025-11-25'] as const)
    for (const query of ['', '?codemode=false', '?mode=reactive', '?passthrough=up'])
      test(`${query || 'code mode'} at ${revision}: tools carry only the revision's Tool members, instructions name only listed tools`, async () => {
        const surface = await describeSurface(query, revision)
        expect(surface.tools.length).toBeGreaterThan(0)
        expect(validateSpec(revision, 'ListToolsResult', surface.result, { strict: true })).toEqual([])
        const named = new Set(surface.instructions?.match(/\bmcpx_[a-z]+/g) ?? [])
        const listed = new Set(surface.tools.map((tool) => tool.name))
        for (const name of named) expect(listed).toContain(name)
        if (query === '?passthrough=up') expect(surface.instructions).toBeUndefined()
        else expect(surface.instructions).toContain('mcpx is a gateway')
        // The upstream offers no completions (nor prompts or templates to complete): none are declared.
        expect(surface.capabilities.completions).toBeUndefined()
      })
})

describe('the raw surface names its tools as the host knows them', () => {
  test('arguments that miss the schema: an isError result naming up_echo', async () => {
    await using host = await legacyHost('?codemode=false')
    const result = await host.client.callTool({ name: 'up_echo', arguments: { txet: 'x' } })
    expect(result.isError).toBe(true)
    const text = (result.content as { text: string }[])[0]!.text
    expect(text).toStartWith('arguments for up_echo do not match its inputSchema')
  })
})
