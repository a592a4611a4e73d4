/**
 * Accept liberally (seed: subscriptions/listen "is accepted from a client of any era"): an SDK 1.x
 * host (2025-11-25, legacy) opens subscriptions/listen on the pass-through surface, over the
 * daemon's /mcp and over `mcpx serve --passthrough` (stdio), and receives the acknowledgment and
 * the list_changed and resources/updated notifications, tagged with its subscription id, that a
 * 2026 SDK 2.x host (`Client.listen`) listening beside it (same /mcp; its own serve process)
 * receives for the same upstream events; the session's own unsolicited list_changed is not sent
 * a second time.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client'
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio'
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { type Notification, ResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { homeLayout, parseConfig } from '../../lib/config/index.ts'
import { type Daemon, startGatewayDaemon } from '../../lib/daemon/index.ts'
import { Engine, type HttpServer, defineTool, serveHttp } from '../../lib/server/index.ts'
import { notesServer } from '../fixtures/peers/notes-server.ts'
import { mcpxCommand, tempDir, testSettings } from '../harness.ts'

const V = '2026-07-28'
const SUBSCRIPTION = 'io.modelcontextprotocol/subscriptionId'
const dir = tempDir('mcpx-legacy-listen')
let upstream: HttpServer
let daemon: Daemon
let url: string

beforeAll(async () => {
  const settings = testSettings()
  const engine = new Engine(
    notesServer([
      defineTool({
        name: 'retool',
        handler: (_args, ctx) => {
          ctx.notify.toolsListChanged()
          return { content: [{ type: 'text', text: 'retooled' }] }
        },
      }),
    ]),
    settings,
  )
  upstream = serveHttp(engine, settings)
  const home = join(dir.path, 'home')
  const configPath = join(dir.path, 'config.json')
  writeFileSync(configPath, JSON.stringify({ mcpServers: { notes: { url: upstream.url } } }))
  const config = parseConfig(JSON.stringify({ mcpServers: { notes: { url: upstream.url } } }), configPath, {})
  mkdirSync(home, { recursive: true })
  daemon = await startGatewayDaemon({
    settings: testSettings({ daemonIdleMs: 0, daemonRequireToken: false }),
    config,
    layout: homeLayout(home, configPath),
    version: '0.0.0-test',
  })
  url = `${daemon.info().tcp.url}/mcp?passthrough=notes`
})
afterAll(async () => {
  await daemon?.shutdown('test done')
  await upstream?.close()
  dir[Symbol.dispose]()
})

/** Everything a host heard, and a wait for the first message that matches. */
function collector() {
  const heard: Notification[] = []
  const waiters: { match: (n: Notification) => boolean; resolve: (n: Notification) => void }[] = []
  return {
    heard,
    push(n: Notification) {
      heard.push(n)
      for (const w of [...waiters]) if (w.match(n)) waiters.splice(waiters.indexOf(w), 1), w.resolve(n)
    },
    next(match: (n: Notification) => boolean): Promise<Notification> {
      const found = heard.find(match)
      return found ? Promise.resolve(found) : new Promise((resolve) => waiters.push({ match, resolve }))
    },
  }
}

const idOf = (n: Notification) => (n.params?._meta as Record<string, unknown> | undefined)?.[SUBSCRIPTION]

/** A legacy host listening for tools list_changed and updates of note://a; the events are triggered by its own calls. */
async function legacyListen(transport: Transport) {
  const client = new LegacyClient({ name: 'legacy-listener', version: '1.0.0' }, { capabilities: {} })
  const heard = collector()
  client.fallbackNotificationHandler = async (n) => heard.push(n)
  await client.connect(transport)
  try {
    const stop = new AbortController()
    const listening = client
      .request(
        {
          method: 'subscriptions/listen',
          params: { notifications: { toolsListChanged: true, resourceSubscriptions: ['note://a'] } },
        } as never,
        ResultSchema,
        { signal: stop.signal, timeout: 60_000 },
      )
      .catch(() => undefined)
    const ack = await heard.next((n) => n.method === 'notifications/subscriptions/acknowledged')
    expect(ack.params).toMatchObject({ notifications: { toolsListChanged: true, resourceSubscriptions: ['note://a'] } })
    const subscriptionId = idOf(ack)
    expect(subscriptionId).toBeDefined()
    await client.callTool({ name: 'retool', arguments: {} })
    const changed = await heard.next((n) => n.method === 'notifications/tools/list_changed')
    await client.callTool({ name: 'touch', arguments: { uri: 'note://a' } })
    const updated = await heard.next((n) => n.method === 'notifications/resources/updated')
    expect(idOf(changed)).toBe(subscriptionId)
    expect(idOf(updated)).toBe(subscriptionId)
    expect(updated.params).toMatchObject({ uri: 'note://a' })
    // Each event once: the session's unsolicited list_changed is not repeated beside the tagged one.
    expect(heard.heard.filter((n) => n.method === 'notifications/tools/list_changed').length).toBe(1)
    stop.abort()
    await listening
    return { changed, updated }
  } finally {
    await client.close()
  }
}

describe('subscriptions/listen from a legacy host', () => {
  test('over /mcp: the same tagged notifications a 2026 SDK 2.x host gets', async () => {
    // The 2026 host (SDK 2.x) listening on the same surface, for the same events.
    const modern = new ModernClient(
      { name: 'modern-listener', version: '2.0.0' },
      { capabilities: {}, versionNegotiation: { mode: { pin: V } } },
    )
    const modernHeard = collector()
    for (const method of ['notifications/tools/list_changed', 'notifications/resources/updated'] as const)
      modern.setNotificationHandler(method, (n) => modernHeard.push(n as Notification))
    await modern.connect(new ModernHttp(new URL(url)))
    try {
      const subscription = await modern.listen({ toolsListChanged: true, resourceSubscriptions: ['note://a'] })
      expect(subscription.honoredFilter).toMatchObject({ toolsListChanged: true, resourceSubscriptions: ['note://a'] })
      const { changed, updated } = await legacyListen(new LegacyHttp(new URL(url)))
      const modernChanged = await modernHeard.next((n) => n.method === changed.method)
      const modernUpdated = await modernHeard.next((n) => n.method === updated.method)
      // Same event, same notification; each tagged with its own listener's subscription id.
      const modernId = idOf(modernChanged)
      expect(modernId).toBeString()
      expect(modernId).not.toBe(idOf(changed))
      expect(modernChanged.params).toEqual({ ...changed.params, _meta: { [SUBSCRIPTION]: modernId } })
      expect(modernUpdated.params).toEqual({ ...updated.params, _meta: { [SUBSCRIPTION]: modernId } })
      await subscription.close()
      expect(await subscription.closed).toBe('local')
    } finally {
      await modern.close()
    }
  })

  test('over mcpx serve (stdio): the same tagged notifications a 2026 SDK 2.x host on its own serve gets', async () => {
    const [command, ...args] = mcpxCommand()
    const env = {
      ...(process.env as Record<string, string>),
      MCPX_HOME: join(dir.path, 'home'),
      MCPX_CONFIG: join(dir.path, 'config.json'),
    }
    const serve = { command: command!, args: [...args, 'serve', '--passthrough', 'notes'], env, stderr: 'ignore' as const }
    const modern = new ModernClient(
      { name: 'modern-listener', version: '2.0.0' },
      { capabilities: {}, versionNegotiation: { mode: { pin: V } } },
    )
    const modernHeard = collector()
    for (const method of ['notifications/tools/list_changed', 'notifications/resources/updated'] as const)
      modern.setNotificationHandler(method, (n) => modernHeard.push(n as Notification))
    await modern.connect(new ModernStdio(serve))
    try {
      const subscription = await modern.listen({ toolsListChanged: true, resourceSubscriptions: ['note://a'] })
      const { changed, updated } = await legacyListen(new StdioClientTransport(serve))
      const modernChanged = await modernHeard.next((n) => n.method === changed.method)
      const modernUpdated = await modernHeard.next((n) => n.method === updated.method)
      const modernId = idOf(modernChanged)
      expect(modernId).toBeString()
      expect(modernChanged.params).toEqual({ ...changed.params, _meta: { [SUBSCRIPTION]: modernId } })
      expect(modernUpdated.params).toEqual({ ...updated.params, _meta: { [SUBSCRIPTION]: modernId } })
      await subscription.close()
    } finally {
      await modern.close()
    }
  })
})
