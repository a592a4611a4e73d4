/**
 * Resource updates through the pass-through surface: an in-process mcpx server (Streamable HTTP,
 * reached as 2026) whose tool announces `notifications/resources/updated`; a 2026 host listening
 * with `resourceSubscriptions` on the gateway hears it, and one listening to another URI does not.
 * The renamed surfaces (raw, code mode) follow upstream only what hosts subscribe to, under their
 * `mcpx://<ns>/<uri>` names: a 2026 listener and a legacy `resources/subscribe` each hear their update.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { homeLayout, parseConfig } from '../../lib/config/index.ts'
import { type Daemon, startGatewayDaemon } from '../../lib/daemon/index.ts'
import { Engine, type HttpServer, serveHttp } from '../../lib/server/index.ts'
import { notesServer } from '../fixtures/peers/notes-server.ts'
import { REPO_ROOT, tempDir, testSettings } from '../harness.ts'

const V = '2026-07-28'
const META = {
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw-host', version: '1.0.0' },
}
const dir = tempDir('mcpx-passthrough-updates')
let upstream: HttpServer
let daemon: Daemon
let url: string

beforeAll(async () => {
  const settings = testSettings()
  const engine = new Engine(notesServer(), settings)
  upstream = serveHttp(engine, settings)
  const config = parseConfig(
    JSON.stringify({
      mcpServers: {
        notes: { url: upstream.url },
        local: { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/peers/notes-fixture.ts')] },
      },
    }),
    'updates.json',
    {},
  )
  daemon = await startGatewayDaemon({
    settings: testSettings({ daemonIdleMs: 0, daemonRequireToken: false }),
    config,
    layout: homeLayout(join(dir.path, 'home'), join(dir.path, 'config.json')),
    version: '0.0.0-test',
  })
  url = `${daemon.info().tcp.url}/mcp?passthrough=notes`
})
afterAll(async () => {
  await daemon?.shutdown('test done')
  await upstream?.close()
  dir[Symbol.dispose]()
})

function post(method: string, params: Record<string, unknown>, name?: string, signal?: AbortSignal, at = url) {
  return fetch(at, {
    method: 'POST',
    signal,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': V,
      'mcp-method': method,
      ...(name && { 'mcp-name': name }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: Math.floor(Math.random() * 1e9), method, params: { ...params, _meta: META } }),
  })
}

/** An SSE response read message by message: `until` resolves with what was read up to the first match. */
function sseReader(response: Response) {
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  const pending: Record<string, unknown>[] = []
  return {
    async until(match: (message: Record<string, unknown>) => boolean): Promise<Record<string, unknown>[]> {
      const seen: Record<string, unknown>[] = []
      for (;;) {
        while (pending.length > 0) {
          const message = pending.shift()!
          seen.push(message)
          if (match(message)) return seen
        }
        const { value, done } = await reader.read()
        if (done) return seen
        buffer += decoder.decode(value, { stream: true })
        const lines = buffer.split('\n')
        buffer = lines.pop()!
        for (const line of lines) if (line.startsWith('data:') && line.length > 5) pending.push(JSON.parse(line.slice(5)))
      }
    },
  }
}

test('an upstream resources/updated reaches the host that subscribed to that URI', async () => {
  const stop = new AbortController()
  const listenA = sseReader(
    await post('subscriptions/listen', { notifications: { resourceSubscriptions: ['note://a'] } }, undefined, stop.signal),
  )
  const listenB = sseReader(
    await post('subscriptions/listen', { notifications: { resourceSubscriptions: ['note://b'] } }, undefined, stop.signal),
  )
  // Both acknowledged before the update is triggered.
  const acknowledged = (m: Record<string, unknown>) => m.method === 'notifications/subscriptions/acknowledged'
  await Promise.all([listenA.until(acknowledged), listenB.until(acknowledged)])
  const updated = (m: Record<string, unknown>) => m.method === 'notifications/resources/updated'
  const heardB = listenB.until(updated).catch(() => [] as Record<string, unknown>[])
  const touched = await (await post('tools/call', { name: 'touch', arguments: { uri: 'note://a' } }, 'touch')).text()
  expect(touched).toContain('touched')
  const messagesA = await listenA.until(updated)
  expect(messagesA.find(updated)?.params).toMatchObject({ uri: 'note://a' })
  // B hears nothing: when its stream is closed it has read no update.
  stop.abort()
  const messagesB = await heardB
  expect(messagesB.some((m) => m.method === 'notifications/resources/updated')).toBe(false)
})

describe('the renamed surfaces follow upstream what hosts subscribe to', () => {
  const updated = (m: Record<string, unknown>) => m.method === 'notifications/resources/updated'

  test('a 2026 host listening to mcpx://notes/note://a on the raw surface hears its update, named so', async () => {
    const raw = url.replace('?passthrough=notes', '?codemode=false')
    const stop = new AbortController()
    const listen = async (uri: string) =>
      sseReader(await post('subscriptions/listen', { notifications: { resourceSubscriptions: [uri] } }, undefined, stop.signal, raw))
    const listenA = await listen('mcpx://notes/note://a')
    const listenB = await listen('mcpx://notes/note://b')
    const acknowledged = (m: Record<string, unknown>) => m.method === 'notifications/subscriptions/acknowledged'
    const [ackA] = await Promise.all([listenA.until(acknowledged), listenB.until(acknowledged)])
    expect(ackA.find(acknowledged)?.params).toMatchObject({ notifications: { resourceSubscriptions: ['mcpx://notes/note://a'] } })
    const heardB = listenB.until(updated).catch(() => [] as Record<string, unknown>[])
    expect(
      await (await post('tools/call', { name: 'notes_touch', arguments: { uri: 'note://a' } }, 'notes_touch', undefined, raw)).text(),
    ).toContain('touched')
    expect((await listenA.until(updated)).find(updated)?.params).toMatchObject({ uri: 'mcpx://notes/note://a' })
    stop.abort()
    expect((await heardB).some(updated)).toBe(false)
  })

  test('a stdio upstream that crashed and was restarted is asked to follow the subscriptions again', async () => {
    const client = new Client({ name: 'subscriber', version: '1.0.0' })
    const heard: string[] = []
    let wake: () => void = () => {}
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (notification) => {
      heard.push(notification.params.uri)
      wake()
    })
    const heardOne = () => new Promise<void>((resolve) => (wake = resolve))
    await client.connect(new StreamableHTTPClientTransport(new URL(url.replace('?passthrough=notes', '?codemode=false'))))
    try {
      await client.subscribeResource({ uri: 'mcpx://local/note://a' })
      let next = heardOne()
      await client.callTool({ name: 'local_touch', arguments: { uri: 'note://a' } })
      await next
      const crashed = await client.callTool({ name: 'local_crash', arguments: {} })
      expect(crashed.isError).toBe(true)
      // The restarted server hears the subscription again before its tools are back on the surface's
      // connection; touching it until the update arrives bounds the wait by the restart, not a guess.
      next = heardOne()
      let arrived = false
      void next.then(() => (arrived = true))
      for (let i = 0; i < 100 && !arrived; i++) {
        await client.callTool({ name: 'local_touch', arguments: { uri: 'note://a' } }).catch(() => {})
        await Promise.race([next, Bun.sleep(100)])
      }
      expect(heard).toEqual(['mcpx://local/note://a', 'mcpx://local/note://a'])
    } finally {
      await client.close()
    }
  })

  test('a legacy host (SDK 1.x) subscribing on the code-mode surface gets notifications/resources/updated', async () => {
    const client = new Client({ name: 'subscriber', version: '1.0.0' })
    const heard: string[] = []
    let wake: () => void = () => {}
    const next = new Promise<void>((resolve) => (wake = resolve))
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (notification) => {
      heard.push(notification.params.uri)
      wake()
    })
    await client.connect(new StreamableHTTPClientTransport(new URL(url.replace('?passthrough=notes', ''))))
    try {
      expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true)
      await client.subscribeResource({ uri: 'mcpx://notes/note://b' })
      await client.callTool({ name: 'mcpx_call', arguments: { tool: 'notes.touch', arguments: { uri: 'note://b' } } })
      await next
      expect(heard).toEqual(['mcpx://notes/note://b'])
    } finally {
      await client.close()
    }
  })
})
