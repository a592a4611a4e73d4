/** lib/transport/sse-client.ts: the 2024-11-05 HTTP+SSE client transport against the SDK 1.x server. */
import { describe, expect, test } from 'bun:test'
import type { McpxError } from '../../../lib/errors/index.ts'
import { createSseTransport } from '../../../lib/transport/index.ts'
import { testSettings } from '../../harness.ts'
import { callTool, initialize, initialized, listTools, open, resultOf, startHttpPeer, toolText } from './peer-harness.ts'

const settings = testSettings()

/** An HTTP+SSE peer whose GET stream is written by `script`; POSTs are answered 202. */
function serveSse(script: (write: (text: string) => void, close: () => void) => void) {
  const posts: string[] = []
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    idleTimeout: 0,
    async fetch(request) {
      if (request.method === 'POST') {
        posts.push(await request.text())
        return new Response('Accepted', { status: 202 })
      }
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          script(
            (text) => controller.enqueue(new TextEncoder().encode(text)),
            () => controller.close(),
          )
        },
      })
      return new Response(stream, { headers: { 'content-type': 'text/event-stream' } })
    },
  })
  return { url: `http://127.0.0.1:${server.port}/sse`, posts, [Symbol.dispose]: () => server.stop(true) }
}

describe('HTTP+SSE (2024-11-05) client transport', () => {
  test('against the SDK 1.x SSEServerTransport: endpoint event, initialize, tools/list, tools/call', async () => {
    await using peer = await startHttpPeer('sdk-legacy-fixture.ts', 'sse')
    await using conn = await open(createSseTransport({ url: peer.url }, settings))
    expect(conn.transport.endpoint).toStartWith(`${new URL(peer.url).origin}/messages?sessionId=`)
    await conn.transport.send(initialize(1, '2024-11-05'))
    expect(resultOf<{ protocolVersion: string }>(await conn.rec.response(1)).protocolVersion).toBe('2024-11-05')
    await conn.transport.send(initialized)
    await conn.transport.send(listTools('l'))
    expect(resultOf<{ tools: unknown[] }>(await conn.rec.response('l')).tools.length).toBeGreaterThan(0)
    await conn.transport.send(callTool(2, 'notify', { count: 2 }))
    expect(toolText(await conn.rec.response(2))).toBe('sent 2')
    expect(conn.rec.messages.filter((m) => 'method' in m).length).toBe(2)
  })

  test('close() ends the stream and calls onClose once with no reason', async () => {
    await using peer = await startHttpPeer('sdk-legacy-fixture.ts', 'sse')
    const conn = await open(createSseTransport({ url: peer.url }, settings))
    await conn.transport.close()
    await conn.transport.close()
    expect(await conn.rec.closed).toBeUndefined()
    expect(conn.rec.closeCount()).toBe(1)
    await expect(conn.transport.send(listTools(1))).rejects.toMatchObject({ code: 'CONNECT' })
  })

  test('an endpoint on another origin is refused', async () => {
    using server = serveSse((write) => write('event: endpoint\ndata: http://evil.example/messages\n\n'))
    const error = (await createSseTransport({ url: server.url }, settings)
      .start({ onMessage() {}, onClose() {} })
      .catch((e: unknown) => e)) as McpxError
    expect(error.code).toBe('CONNECT')
    expect(error.message).toContain('another origin')
  })

  test('a relative endpoint resolves against the SSE URL; messages arrive as message events', async () => {
    using server = serveSse((write) => {
      write(': hello\n\nevent: endpoint\ndata: messages?s=1\n\n')
      write('event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}\n\n')
    })
    await using conn = await open(createSseTransport({ url: server.url }, settings))
    expect(conn.transport.endpoint).toBe(server.url.replace('/sse', '/messages?s=1'))
    await conn.rec.next((m) => 'method' in m && m.method === 'notifications/message')
    await conn.transport.send(listTools(1))
    expect(server.posts).toEqual([JSON.stringify(listTools(1))])
  })

  test('a stream the server ends closes the transport with CONNECT', async () => {
    let end!: () => void
    using server = serveSse((write, close) => {
      write('event: endpoint\ndata: /messages\n\n')
      end = close
    })
    await using conn = await open(createSseTransport({ url: server.url }, settings))
    end()
    const reason = await conn.rec.closed
    expect(reason?.code).toBe('CONNECT')
    expect(reason?.message).toContain('closed by the server')
  })

  test('no endpoint event within sseEndpointTimeoutMs fails start() with CONNECT; a non-SSE answer names the status', async () => {
    using silent = serveSse((write) => write(': nothing\n\n'))
    const error = (await createSseTransport({ url: silent.url }, testSettings({ sseEndpointTimeoutMs: 50 }))
      .start({ onMessage() {}, onClose() {} })
      .catch((e: unknown) => e)) as McpxError
    expect(error.code).toBe('CONNECT')
    expect(error.data).toMatchObject({ timeoutMs: 50 })
    using notSse = {
      server: Bun.serve({ port: 0, fetch: () => new Response('nope', { status: 404 }) }),
      [Symbol.dispose]() {
        this.server.stop(true)
      },
    }
    const refused = (await createSseTransport({ url: `http://127.0.0.1:${notSse.server.port}/sse` }, settings)
      .start({ onMessage() {}, onClose() {} })
      .catch((e: unknown) => e)) as McpxError
    expect(refused.data).toMatchObject({ httpStatus: 404, body: 'nope' })
  })
})
