/** lib/transport/http-client.ts: the Streamable HTTP client against the SDK 1.x and 2.x servers and its error contract. */
import { describe, expect, test } from 'bun:test'
import { McpxError } from '../../../lib/errors/index.ts'
import { type AuthProvider, createHttpTransport } from '../../../lib/transport/index.ts'
import { testSettings } from '../../harness.ts'
import { callTool, initialize, initialized, listTools, open, resultOf, startHttpPeer, toolText } from './peer-harness.ts'

const settings = testSettings()
const V = { 'MCP-Protocol-Version': '2025-11-25' }
const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }

interface Seen {
  method: string
  headers: Headers
}

/** A Bun.serve peer answering with `handler`; records method and headers of each request. */
function serve(handler: (request: Request) => Response | Promise<Response>) {
  const seen: Seen[] = []
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    idleTimeout: 0,
    fetch(request) {
      seen.push({ method: request.method, headers: new Headers(request.headers) })
      return handler(request)
    },
  })
  return { url: `http://127.0.0.1:${server.port}/mcp`, seen, [Symbol.dispose]: () => server.stop(true) }
}

async function legacySession(mode: string) {
  const peer = await startHttpPeer('sdk-legacy-fixture.ts', mode)
  const conn = await open(createHttpTransport({ url: peer.url }, settings))
  await conn.transport.send(initialize('init'))
  await conn.rec.response('init')
  await conn.transport.send(initialized, { headers: V })
  return {
    ...conn,
    url: peer.url,
    async [Symbol.asyncDispose]() {
      await conn.transport.close()
      await peer[Symbol.asyncDispose]()
    },
  }
}

describe('Streamable HTTP client against the SDK 1.x server', () => {
  for (const mode of ['http', 'http-json']) {
    test(`${mode}: session id from initialize, echoed; tools/list and tools/call with string and numeric ids`, async () => {
      await using s = await legacySession(mode)
      expect(s.transport.sessionId).toMatch(/^[0-9a-f-]{36}$/)
      await s.transport.send(listTools(7), { headers: V })
      expect(resultOf<{ tools: { name: string }[] }>(await s.rec.response(7)).tools.map((t) => t.name)).toContain('echo')
      await s.transport.send(callTool('e-1', 'echo', { text: 'héllo' }), { headers: V })
      expect(toolText(await s.rec.response('e-1'))).toBe('héllo')
    })
  }

  test('SSE answers deliver notifications before the result, in order', async () => {
    await using s = await legacySession('http')
    await s.transport.send(callTool(3, 'notify', { count: 3 }), { headers: V })
    await s.rec.response(3)
    const after = s.rec.messages.slice(1).map((m) => ('method' in m ? m.params?.data : `response ${m.id}`))
    expect(after).toEqual(['step 0', 'step 1', 'step 2', 'response 3'])
  })

  test('stateless: no session id, calls still work', async () => {
    await using s = await legacySession('http-stateless')
    expect(s.transport.sessionId).toBeUndefined()
    await s.transport.send(callTool(2, 'echo', { text: 'x' }), { headers: V })
    expect(toolText(await s.rec.response(2))).toBe('x')
  })

  test('2025-11-25 polling: a stream closed before the response is resumed with GET + Last-Event-ID', async () => {
    await using s = await legacySession('http')
    await s.transport.send(callTool('p', 'poll'), { headers: V })
    expect(toolText(await s.rec.response('p'))).toBe('answered after close')
    expect(s.rec.errors).toEqual([])
  })

  test('a server that dies mid-call: the broken stream is reported CONNECT with the request id', async () => {
    const peer = await startHttpPeer('sdk-legacy-fixture.ts', 'http')
    // The cut stream may read as ended rather than broken (Bun's fetch says either): then the
    // client tries to resume it from a server that may be restarting, backing off from sseRetryMs.
    const conn = await open(createHttpTransport({ url: peer.url }, testSettings({ sseRetryMs: 20 })))
    await conn.transport.send(initialize(1))
    await conn.rec.response(1)
    const reported = conn.rec.nextError()
    await conn.transport.send(callTool('dying', 'slow', { ms: 600_000 }), { headers: V })
    await peer[Symbol.asyncDispose]()
    const error = await reported
    expect(error.code).toBe('CONNECT')
    expect(error.data).toMatchObject({ requestId: 'dying', url: peer.url })
    await conn.transport.close()
  })

  test('a session the server no longer knows → CONNECT with httpStatus 404 and sessionExpired', async () => {
    await using s = await legacySession('http')
    const sessionId = s.transport.sessionId!
    const deleted = await fetch(s.url, { method: 'DELETE', headers: { 'Mcp-Session-Id': sessionId, ...V } })
    expect(deleted.status).toBe(200)
    const error = await s.transport.send(listTools(2), { headers: V }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(McpxError)
    expect((error as McpxError).code).toBe('CONNECT')
    expect((error as McpxError).data).toMatchObject({ httpStatus: 404, sessionExpired: true })
    s.transport.resetSession()
    expect(s.transport.sessionId).toBeUndefined()
  })

  test('close() DELETEs the session: the server forgets it', async () => {
    const peer = await startHttpPeer('sdk-legacy-fixture.ts', 'http')
    await using _ = peer
    const conn = await open(createHttpTransport({ url: peer.url }, settings))
    await conn.transport.send(initialize(1))
    await conn.rec.response(1)
    const sessionId = conn.transport.sessionId!
    await conn.transport.close()
    expect(await conn.rec.closed).toBeUndefined()
    const after = await fetch(peer.url, {
      method: 'POST',
      headers: { 'Mcp-Session-Id': sessionId, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...V },
      body: JSON.stringify(listTools(2)),
    })
    expect(after.status).toBe(404)
  })

  test('the standalone GET stream carries list_changed; a server without one answers 405 → false', async () => {
    await using s = await legacySession('http')
    expect(await s.transport.openListenStream()).toBe(true)
    await s.transport.send(callTool(2, 'touch'), { headers: V })
    expect(await s.rec.next((m) => 'method' in m && m.method === 'notifications/tools/list_changed')).toBeDefined()
    // The SDK 2.x entry serves legacy traffic statelessly and answers GET with 405.
    await using modern = await startHttpPeer('sdk-modern-fixture.ts', 'http')
    await using stateless = await open(createHttpTransport({ url: modern.url }, settings))
    expect(await stateless.transport.openListenStream()).toBe(false)
  })
})

describe('Streamable HTTP client against the SDK 2.x server (2026-07-28)', () => {
  const modernCall = (id: string | number, name: string, args: Record<string, unknown>, progressToken?: string) => ({
    jsonrpc: '2.0' as const,
    id,
    method: 'tools/call',
    params: { name, arguments: args, _meta: { ...MODERN_META, ...(progressToken ? { progressToken } : {}) } },
  })
  const modernHeaders = (method: string, name?: string) => ({
    'MCP-Protocol-Version': '2026-07-28',
    'Mcp-Method': method,
    ...(name ? { 'Mcp-Name': name } : {}),
  })

  test('server/discover and tools/call; progress notifications stream before the result; no session', async () => {
    await using peer = await startHttpPeer('sdk-modern-fixture.ts', 'http')
    await using conn = await open(createHttpTransport({ url: peer.url }, settings))
    await conn.transport.send(
      { jsonrpc: '2.0', id: 'd', method: 'server/discover', params: { _meta: MODERN_META } },
      { headers: modernHeaders('server/discover') },
    )
    expect(resultOf<{ supportedVersions: string[] }>(await conn.rec.response('d')).supportedVersions).toContain('2026-07-28')
    await conn.transport.send(modernCall(1, 'progress', { steps: 2 }, 'tok'), { headers: modernHeaders('tools/call', 'progress') })
    expect(toolText(await conn.rec.response(1))).toBe('done 2')
    expect(conn.rec.messages.slice(1).map((m) => ('method' in m ? m.method : 'response'))).toEqual([
      'notifications/progress',
      'notifications/progress',
      'response',
    ])
    expect(conn.transport.sessionId).toBeUndefined()
  })

  test('a modern-only server refusing a legacy initialize: the 400 JSON-RPC error is delivered, not thrown', async () => {
    await using peer = await startHttpPeer('sdk-modern-fixture.ts', 'http-strict')
    await using conn = await open(createHttpTransport({ url: peer.url }, settings))
    await conn.transport.send(initialize(1))
    const answer = (await conn.rec.response(1)) as { error: { code: number } }
    expect(answer.error.code).toBe(-32022)
    expect(conn.transport.sessionId).toBeUndefined()
  })

  test('aborting the signal cancels the call at the server (2026: closing the stream is cancellation)', async () => {
    await using peer = await startHttpPeer('sdk-modern-fixture.ts', 'http')
    await using conn = await open(createHttpTransport({ url: peer.url }, settings))
    const controller = new AbortController()
    const sent = conn.transport.send(modernCall(1, 'slow', { ms: 600_000 }), {
      headers: modernHeaders('tools/call', 'slow'),
      signal: controller.signal,
    })
    await peer.stderrLine(/slow started/)
    controller.abort()
    await expect(sent).rejects.toMatchObject({ code: 'CANCELLED' })
    expect(await peer.stderrLine(/slow aborted/)).toBe('slow aborted')
  })

  test('a modern error on a non-2xx status is delivered as the JSON-RPC response', async () => {
    await using peer = await startHttpPeer('sdk-modern-fixture.ts', 'http')
    await using conn = await open(createHttpTransport({ url: peer.url }, settings))
    await conn.transport.send(
      { jsonrpc: '2.0', id: 5, method: 'no/such', params: { _meta: MODERN_META } },
      { headers: modernHeaders('no/such') },
    )
    expect(await conn.rec.response(5)).toMatchObject({ id: 5, error: { code: -32601 } })
  })
})

describe('Streamable HTTP client: error contract and edge cases', () => {
  test('a 400 whose body is a JSON-RPC error with an id is delivered via onMessage (probing, -32022)', async () => {
    using server = serve(() =>
      Response.json(
        { jsonrpc: '2.0', id: 1, error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'] } } },
        { status: 400 },
      ),
    )
    await using conn = await open(createHttpTransport({ url: server.url }, settings))
    await conn.transport.send(listTools(1))
    expect(await conn.rec.response(1)).toMatchObject({ error: { code: -32022 } })
  })

  test("an HTML error page is one line of its text in the message; the page stays whole in the error's data", async () => {
    const page =
      '<!DOCTYPE html>\n<html lang="en">\n<head>\n<title>Error</title>\n</head>\n<body>\n<pre>Cannot POST /mcp</pre>\n</body>\n</html>\n'
    using server = serve(() => new Response(page, { status: 404, headers: { 'content-type': 'text/html; charset=utf-8' } }))
    await using conn = await open(createHttpTransport({ url: server.url }, settings))
    const error = (await conn.transport.send(listTools(1)).catch((e: unknown) => e)) as McpxError
    expect(error.message).toBe(`POST ${server.url} answered HTTP 404: Error Cannot POST /mcp`)
    expect(error.data?.body).toBe(page)
  })

  test('other non-2xx answers reject CONNECT with status, content type, first 2 KB of body and rpcError', async () => {
    using server = serve(async (request) => {
      const body = (await request.json()) as { id: number }
      if (body.id === 1) return new Response(`<html>${'x'.repeat(5000)}</html>`, { status: 405, headers: { 'content-type': 'text/html' } })
      return Response.json({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'bad' } }, { status: 400 })
    })
    await using conn = await open(createHttpTransport({ url: server.url }, settings))
    const error = (await conn.transport.send(listTools(1)).catch((e: unknown) => e)) as McpxError
    expect(error.code).toBe('CONNECT')
    expect(error.data).toMatchObject({ httpStatus: 405, contentType: 'text/html', sessionExpired: false, url: server.url })
    expect(String(error.data!.body)).toHaveLength(2048)
    expect(error.message).toContain('HTTP 405')
    const second = (await conn.transport.send(listTools(2)).catch((e: unknown) => e)) as McpxError
    expect(second.data).toMatchObject({ httpStatus: 400, rpcError: { code: -32600, message: 'bad' } })
  })

  describe('429 and 503 (the server did not take the request): sent again after Retry-After, within bounds', () => {
    const busy = testSettings({ httpBusyRetries: 2, httpBusyRetryDelayMs: 10, httpBusyRetryMaxWaitMs: 2_000 })
    /** Answers the first `refusals` POSTs with `status` (and `headers`), then each with an empty result. */
    function busyServer(status: number, refusals: number, headers: Record<string, string> = {}) {
      let posts = 0
      const server = serve(async (request) => {
        const body = (await request.json()) as { id: number }
        return ++posts <= refusals
          ? new Response('busy', { status, headers })
          : Response.json({ jsonrpc: '2.0', id: body.id, result: { posts } })
      })
      return Object.assign(server, { posts: () => posts })
    }

    test.each([
      ['503, Retry-After in seconds', 503, { 'retry-after': '0' }],
      ['429 without Retry-After (httpBusyRetryDelayMs, doubling)', 429, {}],
      ['503, Retry-After a date gone by', 503, { 'retry-after': new Date(Date.now() - 1_000).toUTCString() }],
    ] as const)('%s: answered on the third POST', async (_, status, headers) => {
      using server = busyServer(status, 2, headers)
      await using conn = await open(createHttpTransport({ url: server.url }, busy))
      await conn.transport.send(callTool(1, 'echo'))
      expect(resultOf(await conn.rec.response(1))).toEqual({ posts: 3 })
    })

    test('past httpBusyRetries the last refusal is the error', async () => {
      using server = busyServer(503, 5)
      await using conn = await open(createHttpTransport({ url: server.url }, busy))
      const error = (await conn.transport.send(callTool(1, 'echo')).catch((e: unknown) => e)) as McpxError
      expect(error.data).toMatchObject({ httpStatus: 503 })
      expect(server.posts()).toBe(3)
    })

    test('a Retry-After longer than httpBusyRetryMaxWaitMs fails at once; a 502 is not sent again (the server behind may have run it)', async () => {
      using long = busyServer(429, 1, { 'retry-after': '120' })
      await using conn = await open(createHttpTransport({ url: long.url }, busy))
      const refused = (await conn.transport.send(callTool(1, 'echo')).catch((e: unknown) => e)) as McpxError
      expect(refused.data).toMatchObject({ httpStatus: 429, retryAfterMs: 120_000 })
      expect(refused.message).toContain('answered HTTP 429 (it asks to be tried again in 120 s)')
      expect(long.posts()).toBe(1)
      using gateway = busyServer(502, 1)
      await using other = await open(createHttpTransport({ url: gateway.url }, busy))
      expect(((await other.transport.send(callTool(1, 'echo')).catch((e: unknown) => e)) as McpxError).data).toMatchObject({
        httpStatus: 502,
      })
      expect(gateway.posts()).toBe(1)
    })

    test('a request cancelled while it waits is not sent again', async () => {
      using server = busyServer(503, 1, { 'retry-after': '1' })
      await using conn = await open(createHttpTransport({ url: server.url }, busy))
      const controller = new AbortController()
      const sent = conn.transport.send(callTool(1, 'echo'), { signal: controller.signal }).catch((e: unknown) => e)
      await Bun.sleep(100)
      controller.abort()
      expect(((await sent) as McpxError).code).toBe('CANCELLED')
      await Bun.sleep(1_100)
      expect(server.posts()).toBe(1)
    })
  })

  describe('redirects, followed by mcpx: a POST stays a POST with its body', () => {
    /** Answers each POST with what it got: method, path, body id and whether an Authorization came along. */
    function echoServer() {
      return serve(async (request) => {
        const body = request.method === 'POST' ? ((await request.json()) as { id: number }) : undefined
        return Response.json({
          jsonrpc: '2.0',
          id: body?.id ?? 0,
          result: { method: request.method, path: new URL(request.url).pathname, authorization: request.headers.get('authorization') },
        })
      })
    }
    function redirecting(status: number, to: (path: string) => string) {
      return serve((request) => new Response(null, { status, headers: { location: to(new URL(request.url).pathname) } }))
    }

    test.each([301, 302, 307, 308])('%d to a path of the same origin: the POST, body and credentials go on', async (status) => {
      using server = serve(async (request) => {
        const path = new URL(request.url).pathname
        if (path === '/mcp') return new Response(null, { status, headers: { location: '/mcp/' } })
        const body = (await request.json()) as { id: number }
        return Response.json({
          jsonrpc: '2.0',
          id: body.id,
          result: { method: request.method, path, authorization: request.headers.get('authorization') },
        })
      })
      await using conn = await open(createHttpTransport({ url: server.url, headers: { Authorization: 'Bearer token' } }, settings))
      await conn.transport.send(callTool(1, 'echo'))
      expect(resultOf(await conn.rec.response(1))).toEqual({ method: 'POST', path: '/mcp/', authorization: 'Bearer token' })
    })

    test('to another origin: the POST goes on, its Authorization does not', async () => {
      using target = echoServer()
      using front = redirecting(301, (path) => `${target.url.replace(/\/mcp$/, '')}${path}/`)
      await using conn = await open(createHttpTransport({ url: front.url, headers: { Authorization: 'Bearer token' } }, settings))
      await conn.transport.send(callTool(1, 'echo'))
      expect(resultOf(await conn.rec.response(1))).toEqual({ method: 'POST', path: '/mcp/', authorization: null })
    })

    test('more than httpMaxRedirects is a CONNECT error naming the setting', async () => {
      using loop = serve((request) => new Response(null, { status: 307, headers: { location: new URL(request.url).pathname } }))
      await using conn = await open(createHttpTransport({ url: loop.url }, testSettings({ httpMaxRedirects: 3 })))
      const error = (await conn.transport.send(callTool(1, 'echo')).catch((e: unknown) => e)) as McpxError
      expect(error.code).toBe('CONNECT')
      expect(error.message).toContain('more than 3 redirects')
      expect(error.message).toContain('httpMaxRedirects')
      expect(loop.seen).toHaveLength(4)
    })
  })

  test('a session id is taken only from a successful initialize, and never offered on a new initialize', async () => {
    using server = serve(async (request) => {
      if (request.method === 'DELETE') return new Response(null, { status: 204 })
      const body = (await request.json()) as { id: number; method: string }
      const headers = { 'mcp-session-id': `s-${body.id}` }
      if (body.id === 1) return Response.json({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'no' } }, { headers })
      return Response.json({ jsonrpc: '2.0', id: body.id, result: {} }, { headers })
    })
    await using conn = await open(createHttpTransport({ url: server.url }, settings))
    await conn.transport.send(initialize(1))
    await conn.rec.response(1)
    expect(conn.transport.sessionId).toBeUndefined()
    await conn.transport.send(listTools(2))
    await conn.rec.response(2)
    expect(conn.transport.sessionId).toBeUndefined()
    await conn.transport.send(initialize(3))
    await conn.rec.response(3)
    expect(conn.transport.sessionId).toBe('s-3')
    await conn.transport.send(listTools(4))
    await conn.transport.send(initialize(5))
    await conn.rec.response(5)
    expect(server.seen.slice(0, 5).map((r) => r.headers.get('mcp-session-id'))).toEqual([null, null, null, 's-3', null])
  })

  test('headers: Accept and Content-Type on every POST, static and per-message headers, protocol version reused on DELETE', async () => {
    using server = serve(async (request) => {
      if (request.method === 'DELETE') return new Response(null, { status: 405 })
      const body = (await request.json()) as { id?: number }
      if (body.id === undefined) return new Response(null, { status: 202 })
      return Response.json({ jsonrpc: '2.0', id: body.id, result: {} }, { headers: { 'mcp-session-id': 'abc' } })
    })
    const conn = await open(createHttpTransport({ url: server.url, headers: { 'X-Api-Key': 'k', Accept: 'text/plain' } }, settings))
    await conn.transport.send(initialize(1))
    await conn.rec.response(1)
    await conn.transport.send(initialized, { headers: { 'MCP-Protocol-Version': '2025-06-18', 'Mcp-Method': 'notifications/initialized' } })
    await conn.transport.close()
    const [post, note, del] = server.seen
    expect(post!.headers.get('accept')).toBe('application/json, text/event-stream')
    expect(post!.headers.get('content-type')).toBe('application/json')
    expect(post!.headers.get('x-api-key')).toBe('k')
    expect(note!.headers.get('mcp-method')).toBe('notifications/initialized')
    expect(note!.headers.get('mcp-session-id')).toBe('abc')
    expect(del!.method).toBe('DELETE')
    expect(del!.headers.get('mcp-session-id')).toBe('abc')
    expect(del!.headers.get('mcp-protocol-version')).toBe('2025-06-18')
  })

  test('an unreachable server rejects CONNECT naming the URL', async () => {
    const server = serve(() => new Response())
    const url = server.url
    server[Symbol.dispose]()
    await using conn = await open(createHttpTransport({ url }, settings))
    const error = (await conn.transport.send(listTools(1)).catch((e: unknown) => e)) as McpxError
    expect(error.code).toBe('CONNECT')
    expect(error.message).toContain(url)
    expect(error.data).toMatchObject({ url })
  })

  test('aborting the signal closes that request stream (2026 cancellation), and nothing more is delivered', async () => {
    let sawAbort!: () => void
    const aborted = new Promise<void>((resolve) => (sawAbort = resolve))
    using server = serve((request) => {
      request.signal.addEventListener('abort', () => sawAbort())
      const stream = new ReadableStream({
        start(controller) {
          controller.enqueue(
            new TextEncoder().encode(
              'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}\n\n',
            ),
          )
        },
      })
      return new Response(stream, { headers: { 'content-type': 'text/event-stream' } })
    })
    await using conn = await open(createHttpTransport({ url: server.url }, settings))
    const controller = new AbortController()
    await conn.transport.send(callTool(1, 'slow'), { signal: controller.signal })
    await conn.rec.next((m) => 'method' in m && m.method === 'notifications/progress')
    controller.abort()
    await aborted
    expect(conn.rec.errors).toEqual([])
  })

  test('a stream that ends before the response with no event id is reported with the request id', async () => {
    using server = serve(
      () =>
        new Response('data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":1}}\n\n', {
          headers: { 'content-type': 'text/event-stream' },
        }),
    )
    await using conn = await open(createHttpTransport({ url: server.url }, settings))
    const reported = conn.rec.nextError()
    await conn.transport.send(callTool('r', 'x'))
    const error = await reported
    expect(error.code).toBe('CONNECT')
    expect(error.data).toMatchObject({ requestId: 'r' })
  })

  test('resumption honours retry:, sends Last-Event-ID, and gives up after sseMaxReconnects idle reconnects', async () => {
    using server = serve((request) => {
      if (request.method === 'POST')
        return new Response('id: e1\nretry: 5\ndata:\n\n', { headers: { 'content-type': 'text/event-stream' } })
      return new Response(': nothing new\n\n', { headers: { 'content-type': 'text/event-stream' } })
    })
    await using conn = await open(createHttpTransport({ url: server.url }, testSettings({ sseMaxReconnects: 2 })))
    const reported = conn.rec.nextError()
    await conn.transport.send(callTool(1, 'x'))
    const error = await reported
    expect(error.message).toContain('gave up after 2 reconnects')
    expect(server.seen.map((r) => [r.method, r.headers.get('last-event-id')])).toEqual([
      ['POST', null],
      ['GET', 'e1'],
      ['GET', 'e1'],
    ])
  })

  test('a JSON body over maxFrameBytes rejects PROTOCOL without being held', async () => {
    using server = serve(() => Response.json({ jsonrpc: '2.0', id: 1, result: { blob: 'x'.repeat(10_000) } }))
    await using conn = await open(createHttpTransport({ url: server.url }, testSettings({ maxFrameBytes: 1000 })))
    const error = (await conn.transport.send(listTools(1)).catch((e: unknown) => e)) as McpxError
    expect(error.code).toBe('PROTOCOL')
    expect(error.data).toMatchObject({ maxFrameBytes: 1000, requestId: 1 })
  })

  test("a request answered 200 with an empty body rejects PROTOCOL at once (its answer cannot come); a notification's is fine", async () => {
    using server = serve(() => new Response('', { status: 200, headers: { 'content-type': 'application/json' } }))
    await using conn = await open(createHttpTransport({ url: server.url }, settings))
    const error = (await conn.transport.send(callTool(9, 'echo', {})).catch((e: unknown) => e)) as McpxError
    expect(error.code).toBe('PROTOCOL')
    expect(error.message).toContain('answered tools/call with HTTP 200 and an empty body')
    expect(error.data).toMatchObject({ httpStatus: 200, requestId: 9, inFlight: true })
    await conn.transport.send(initialized)
  })

  test('a 200 whose Content-Type is neither JSON nor an event stream names it in the message', async () => {
    using server = serve(
      () => new Response(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: [] } }), { headers: { 'content-type': 'text/plain' } }),
    )
    await using conn = await open(createHttpTransport({ url: server.url }, settings))
    const error = (await conn.transport.send(listTools(1)).catch((e: unknown) => e)) as McpxError
    expect(error.code).toBe('CONNECT')
    expect(error.message).toContain('answered HTTP 200 (Content-Type "text/plain", neither application/json nor text/event-stream)')
  })

  test('401 goes through the AuthProvider: retried with new credentials, bounded by authMaxRetries', async () => {
    using server = serve((request) => {
      if (request.headers.get('authorization') === 'Bearer good') return Response.json({ jsonrpc: '2.0', id: 1, result: {} })
      return new Response('no', { status: 401, headers: { 'www-authenticate': 'Bearer resource_metadata="http://x/prm"' } })
    })
    let token = 'stale'
    const challenges: number[] = []
    const auth: AuthProvider = {
      authorization: async () => `Bearer ${token}`,
      async onAuthChallenge(response) {
        challenges.push(response.status)
        token = challenges.length === 1 ? 'good' : token
        return 'retry'
      },
    }
    await using conn = await open(createHttpTransport({ url: server.url, auth }, settings))
    await conn.transport.send(listTools(1))
    expect(await conn.rec.response(1)).toMatchObject({ result: {} })

    const stubborn: AuthProvider = { authorization: async () => 'Bearer bad', onAuthChallenge: async () => 'retry' }
    await using conn2 = await open(createHttpTransport({ url: server.url, auth: stubborn }, testSettings({ authMaxRetries: 2 })))
    const before = server.seen.length
    const error = (await conn2.transport.send(listTools(2)).catch((e: unknown) => e)) as McpxError
    expect(error.data).toMatchObject({ httpStatus: 401, wwwAuthenticate: 'Bearer resource_metadata="http://x/prm"' })
    expect(server.seen.length - before).toBe(3)
  })

  test('requestHeaders() adds per-request headers (a DPoP proof) after authorization(), fresh on every attempt', async () => {
    using server = serve((request) => {
      if (request.headers.get('dpop') === 'proof-2') return Response.json({ jsonrpc: '2.0', id: 1, result: {} })
      return new Response('no', { status: 401, headers: { 'www-authenticate': 'DPoP error="use_dpop_nonce"' } })
    })
    const asked: string[] = []
    const auth: AuthProvider = {
      authorization: async () => 'DPoP token',
      onAuthChallenge: async () => 'retry',
      async requestHeaders(request) {
        asked.push(`${request.method} ${request.url}`)
        return { DPoP: `proof-${asked.length}` }
      },
    }
    await using conn = await open(createHttpTransport({ url: server.url, auth }, settings))
    await conn.transport.send(listTools(1))
    expect(await conn.rec.response(1)).toMatchObject({ result: {} })
    expect(asked).toEqual([`POST ${server.url}`, `POST ${server.url}`])
    expect(server.seen.map((r) => [r.headers.get('authorization'), r.headers.get('dpop')])).toEqual([
      ['DPoP token', 'proof-1'],
      ['DPoP token', 'proof-2'],
    ])
  })
})

describe('a response stream cut before its answer', () => {
  test('fails its request at once with an error saying it may or may not have run (not at its deadline, not re-sent)', async () => {
    let posts = 0
    using peer = serve(() => {
      posts++
      // An SSE response without event ids that ends before the answer: it cannot be resumed.
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(': working\n\n'))
          setTimeout(() => controller.close(), 50)
        },
      })
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
    })
    const conn = await open(createHttpTransport({ url: peer.url }, testSettings({ requestTimeoutMs: 60_000 })))
    await conn.transport.send(callTool(7, 'append', {}), { headers: V })
    const answer = (await conn.rec.response(7)) as { error?: { message: string; data?: { inFlight?: boolean } } }
    expect(answer.error?.message).toContain('may or may not have run and was not re-sent')
    expect(answer.error?.data?.inFlight).toBe(true)
    expect(posts).toBe(1)
    await conn.transport.close()
  })
})
