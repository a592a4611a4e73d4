/** lib/server/http/sse-stream.ts and event-store.ts: SSE framing, replay by Last-Event-ID, stream lifetime. */
import { describe, expect, test } from 'bun:test'
import { EventStore, parseEventId } from '../../../../lib/server/http/event-store.ts'
import { formatSseEvent, openSseStream, resumeSseStream, type SseStream } from '../../../../lib/server/http/sse-stream.ts'
import type { JsonRpcMessage } from '../../../../lib/wire/index.ts'

interface Parsed {
  id?: string
  event?: string
  retry?: number
  data: string
}

/** Minimal SSE parser (WHATWG event-stream interpretation) for assertions; comments are returned separately. */
function parseSse(text: string): { events: Parsed[]; comments: string[]; retries: number[] } {
  const events: Parsed[] = []
  const comments: string[] = []
  const retries: number[] = []
  for (const block of text.split('\n\n')) {
    if (block === '') continue
    const event: Parsed = { data: '' }
    const data: string[] = []
    let hasField = false
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        comments.push(line.slice(1).trim())
        continue
      }
      const colon = line.indexOf(':')
      const field = colon === -1 ? line : line.slice(0, colon)
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '')
      if (field === 'data') data.push(value), (hasField = true)
      if (field === 'id') (event.id = value), (hasField = true)
      if (field === 'event') event.event = value
      if (field === 'retry') (event.retry = Number(value)), retries.push(Number(value))
    }
    event.data = data.join('\n')
    if (hasField) events.push(event)
  }
  return { events, comments, retries }
}

const msg = (n: number): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: n } })
const result = (id: number): JsonRpcMessage => ({ jsonrpc: '2.0', id, result: { content: [] } })

describe('formatSseEvent', () => {
  test('fields and multi-line data', () => {
    expect(formatSseEvent({ id: 'a.1', event: 'endpoint', retryMs: 500, data: 'x\ny' })).toBe(
      'id: a.1\nevent: endpoint\nretry: 500\ndata: x\ndata: y\n\n',
    )
    expect(formatSseEvent({ data: '' })).toBe('data: \n\n')
  })
})

describe('EventStore (TR-21)', () => {
  test('ids encode the stream; replay returns only that stream, after the id', () => {
    const store = new EventStore({ sseEventBufferLength: 100 })
    const a = store.newStream()
    const b = store.newStream()
    const a0 = store.append(a, 'a0')
    store.append(b, 'b0')
    const a1 = store.append(a, 'a1')
    store.append(b, 'b1')
    store.append(a, 'a2')
    expect(parseEventId(a1)).toEqual({ streamId: a, seq: 1 })
    const replay = store.replayAfter(a0)!
    expect(replay.streamId).toBe(a)
    expect(replay.events.map((e) => e.data)).toEqual(['a1', 'a2'])
    expect(replay.complete).toBe(true)
    expect(store.replayAfter('nope.1')).toBeUndefined()
    expect(store.replayAfter('garbage')).toBeUndefined()
    expect(store.replayAfter(`${a}.99`)).toBeUndefined()
  })

  test('bounded by sseEventBufferLength; a gap is reported', () => {
    const store = new EventStore({ sseEventBufferLength: 3 })
    const a = store.newStream()
    const first = store.append(a, '0')
    for (let i = 1; i < 6; i++) store.append(a, String(i))
    expect(store.size).toBe(3)
    const replay = store.replayAfter(first)!
    expect(replay.events.map((e) => e.data)).toEqual(['3', '4', '5'])
    expect(replay.complete).toBe(false)
  })
})

describe('SseStream', () => {
  test('headers, messages in order, end closes the body', async () => {
    const stream = openSseStream({ sseKeepAliveMs: 0, headers: { 'mcp-session-id': 's1' } })
    expect(stream.response.headers.get('content-type')).toBe('text/event-stream')
    expect(stream.response.headers.get('cache-control')).toBe('no-cache')
    expect(stream.response.headers.get('x-accel-buffering')).toBe('no')
    expect(stream.response.headers.get('mcp-session-id')).toBe('s1')
    stream.send(msg(1))
    stream.send(result(7))
    stream.end()
    expect(stream.send(msg(2))).toBe(false)
    const { events } = parseSse(await stream.response.text())
    expect(events.map((e) => JSON.parse(e.data))).toEqual([msg(1), result(7)])
    expect(events.every((e) => e.id === undefined)).toBe(true)
  })

  test('with a store: priming event first (id, empty data, retry), then numbered events', async () => {
    const store = new EventStore({ sseEventBufferLength: 10 })
    const stream = openSseStream({ sseKeepAliveMs: 0, store, retryMs: 1234 })
    stream.send(result(1))
    stream.end()
    const { events } = parseSse(await stream.response.text())
    expect(events[0]).toEqual({ id: `${stream.streamId}.0`, retry: 1234, data: '' })
    expect(events[1]).toEqual({ id: `${stream.streamId}.1`, data: JSON.stringify(result(1)) })
  })

  test('TR-20: one message object is never sent on two streams', () => {
    const a = openSseStream({ sseKeepAliveMs: 0 })
    const b = openSseStream({ sseKeepAliveMs: 0 })
    const m = msg(1)
    a.send(m)
    expect(() => b.send(m)).toThrow('no broadcast')
    a.end()
    b.end()
  })

  test('keep-alive comments while connected', async () => {
    const stream = openSseStream({ sseKeepAliveMs: 5 })
    const reader = stream.response.body!.pipeThrough(new TextDecoderStream()).getReader()
    let text = ''
    while (!text.includes(': keep-alive\n\n')) text += (await reader.read()).value
    stream.end()
    await reader.cancel()
    expect(parseSse(text).comments).toContain('keep-alive')
  })
})

describe('SSE over a real listener (SEP-1699 polling, TR-21/22)', () => {
  async function withServer(
    run: (
      base: string,
      streams: { current?: SseStream; store: EventStore; aborted: ReturnType<typeof Promise.withResolvers<void>> },
    ) => Promise<void>,
  ) {
    const state = {
      current: undefined as SseStream | undefined,
      store: new EventStore({ sseEventBufferLength: 100 }),
      aborted: Promise.withResolvers<void>(),
    }
    await using server = Bun.serve({
      port: 0,
      fetch(request) {
        if (request.method === 'POST') {
          state.current = openSseStream({
            sseKeepAliveMs: 0,
            store: state.store,
            retryMs: 50,
            signal: request.signal,
            onAbort: () => state.aborted.resolve(),
          })
          return state.current.response
        }
        const lastEventId = request.headers.get('last-event-id') ?? ''
        return (
          resumeSseStream(state.store, lastEventId, { sseKeepAliveMs: 0, signal: request.signal })?.response ??
          new Response(null, { status: 404 })
        )
      },
    })
    await run(`http://127.0.0.1:${server.port}/mcp`, state)
  }

  test('closeMidStream → retry then close; the result sent while disconnected is replayed on GET + Last-Event-ID', async () => {
    await withServer(async (url, state) => {
      const post = await fetch(url, { method: 'POST' })
      state.current!.send(msg(1))
      state.current!.closeMidStream()
      const first = parseSse(await post.text())
      expect(first.retries).toContain(50)
      expect(first.events.map((e) => e.data)).toEqual(['', JSON.stringify(msg(1))])
      expect(state.current!.connected).toBe(false)
      // The logical stream continues without a connection.
      state.current!.send(msg(2))
      state.current!.send(result(1))
      state.current!.end()
      const lastEventId = first.events.at(-1)!.id!
      const resumed = await fetch(url, { headers: { 'last-event-id': lastEventId } })
      expect(resumed.headers.get('content-type')).toBe('text/event-stream')
      const replay = parseSse(await resumed.text())
      expect(replay.events.map((e) => JSON.parse(e.data))).toEqual([msg(2), result(1)])
      expect(replay.events.map((e) => e.id)).toEqual([`${state.current!.streamId}.2`, `${state.current!.streamId}.3`])
    })
  })

  test('resume while the stream is open: replay, then live events on the new connection', async () => {
    await withServer(async (url, state) => {
      const post = await fetch(url, { method: 'POST' })
      const stream = state.current!
      stream.closeMidStream()
      const primingId = parseSse(await post.text()).events[0]!.id!
      const resumed = await fetch(url, { headers: { 'last-event-id': primingId } })
      expect(stream.connected).toBe(true)
      stream.send(result(9))
      stream.end()
      expect(parseSse(await resumed.text()).events.map((e) => JSON.parse(e.data))).toEqual([result(9)])
    })
  })

  test("a resume never replays another stream's events (TR-21)", async () => {
    await withServer(async (url, state) => {
      const postA = await fetch(url, { method: 'POST' })
      const a = state.current!
      const postB = await fetch(url, { method: 'POST' })
      const b = state.current!
      a.send(msg(1))
      b.send(msg(2))
      a.send(msg(3))
      a.closeMidStream()
      b.end()
      await postB.text()
      const primingA = parseSse(await postA.text()).events[0]!.id!
      a.end()
      const replay = parseSse(await (await fetch(url, { headers: { 'last-event-id': primingA } })).text())
      expect(replay.events.map((e) => JSON.parse(e.data))).toEqual([msg(1), msg(3)])
      expect((await fetch(url, { headers: { 'last-event-id': 'unknown.0' } })).status).toBe(404)
    })
  })

  test('headers reach the client before any event (an idle stream is not a hung request)', async () => {
    await using server = Bun.serve({ port: 0, fetch: () => openSseStream({ sseKeepAliveMs: 0 }).response })
    const response = await fetch(`http://127.0.0.1:${server.port}/mcp`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    await response.body!.cancel()
  })

  test('client disconnect is detected (onAbort)', async () => {
    await withServer(async (url, state) => {
      const controller = new AbortController()
      const post = await fetch(url, { method: 'POST', signal: controller.signal })
      const reader = post.body!.getReader()
      await reader.read() // the priming event arrived: the stream is live
      controller.abort()
      await state.aborted.promise
      expect(state.current!.connected).toBe(false)
      expect(state.current!.ended).toBe(false)
    })
  })
})
