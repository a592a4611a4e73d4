/**
 * Streams of the HTTP endpoint with a real Bun.serve: the legacy standalone GET stream carries
 * list_changed and resources/updated (TR-13); closing a 2026 response stream cancels the call;
 * a 2026 listen stream starts with its acknowledgement.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { Engine, defineServer, defineTool, serveHttp, type HttpServer } from '../../../lib/server/index.ts'
import { testSettings } from '../../harness.ts'

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }
const ACCEPT = 'application/json, text/event-stream'
let aborted!: (reason: unknown) => void
const abortSeen = new Promise<unknown>((resolve) => (aborted = resolve))

const server = defineServer({
  info: { name: 'streams', version: '1.0.0' },
  tools: [
    defineTool({
      name: 'touch',
      handler(_args, ctx) {
        ctx.notify.toolsListChanged()
        ctx.notify.resourceUpdated('test://watched')
        return { content: [] }
      },
    }),
    defineTool({
      name: 'wait_for_cancel',
      async handler(_args, ctx) {
        ctx.progress(0, 1)
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }))
        aborted(ctx.signal.reason)
        return { content: [] }
      },
    }),
  ],
  resources: [{ uri: 'test://watched', name: 'watched', read: () => ({ contents: [] }) }],
})

let http: HttpServer
beforeAll(() => {
  const settings = testSettings()
  http = serveHttp(new Engine(server, settings), settings)
})
afterAll(() => http.close())

const post = (body: unknown, headers: Record<string, string>) =>
  fetch(http.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
    body: JSON.stringify(body),
  })

/** Read SSE `data:` payloads until `count` JSON messages arrived. */
async function readMessages(body: ReadableStream<Uint8Array>, count: number): Promise<any[]> {
  const reader = body.getReader()
  const messages: any[] = []
  let text = ''
  while (messages.length < count) {
    const { value, done } = await reader.read()
    if (done) break
    text += new TextDecoder().decode(value)
    const events = text.split('\n\n')
    text = events.pop()!
    for (const event of events) {
      const data = event
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .join('\n')
      if (data) messages.push(JSON.parse(data))
    }
  }
  await reader.cancel()
  return messages
}

test('legacy standalone GET stream receives list_changed and subscribed resources/updated', async () => {
  const init = await post(
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    },
    {},
  )
  const session = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-06-18' }
  expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status).toBe(202)
  expect(
    await (await post({ jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: 'test://watched' } }, session)).json(),
  ).toMatchObject({ result: {} })
  const stream = await fetch(http.url, { headers: { accept: 'text/event-stream', ...session } })
  expect(stream.headers.get('content-type')).toBe('text/event-stream')
  expect(stream.headers.get('x-accel-buffering')).toBe('no')
  await post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'touch' } }, session)
  expect(await readMessages(stream.body!, 2)).toEqual([
    { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
    { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'test://watched' } },
  ])
})

test('closing a 2026 response stream cancels the call', async () => {
  const controller = new AbortController()
  const response = await fetch(http.url, {
    method: 'POST',
    signal: controller.signal,
    headers: {
      'content-type': 'application/json',
      accept: ACCEPT,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'wait_for_cancel',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'wait_for_cancel', _meta: { ...META, progressToken: 'p' } },
    }),
  })
  expect((await readMessages(response.body!, 1))[0].method).toBe('notifications/progress')
  controller.abort()
  expect(await abortSeen).toBeDefined()
})

test('a 2026 listen stream is acknowledged first and receives the filtered notifications', async () => {
  const modern = (method: string) => ({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': method })
  const listen = await post(
    { jsonrpc: '2.0', id: 'sub-1', method: 'subscriptions/listen', params: { _meta: META, notifications: { toolsListChanged: true } } },
    modern('subscriptions/listen'),
  )
  const reading = readMessages(listen.body!, 2)
  await post(
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'touch', _meta: META } },
    { ...modern('tools/call'), 'mcp-name': 'touch' },
  )
  const [ack, changed] = await reading
  expect(ack).toMatchObject({ method: 'notifications/subscriptions/acknowledged', params: { notifications: { toolsListChanged: true } } })
  expect(changed).toEqual({
    jsonrpc: '2.0',
    method: 'notifications/tools/list_changed',
    params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' } },
  })
})
