/** lib/transport/sse-parser.ts: the WHATWG event-stream parser. */
import { describe, expect, test } from 'bun:test'
import { createSseParser, type SseEvent } from '../../../lib/transport/index.ts'

function parse(chunks: (string | Uint8Array)[], maxEventChars?: number) {
  const events: SseEvent[] = []
  const retries: number[] = []
  const oversize: number[] = []
  const parser = createSseParser({
    onEvent: (e) => events.push(e),
    onRetry: (ms) => retries.push(ms),
    onOversize: (n) => oversize.push(n),
    maxEventChars,
  })
  for (const chunk of chunks) parser.push(chunk)
  parser.end()
  return { events, retries, oversize, parser }
}

describe('SSE parser (WHATWG event stream)', () => {
  test('fields, multi-line data, default event type, comments, unknown fields, no-space values', () => {
    const { events } = parse([': keep-alive\nevent: endpoint\ndata: /messages?x=1\n\ndata:a\ndata: b\nfoo: bar\n\n'])
    expect(events).toEqual([
      { event: 'endpoint', data: '/messages?x=1', id: '' },
      { event: 'message', data: 'a\nb', id: '' },
    ])
  })

  test('id persists across events, a NUL id is ignored, an id-only block dispatches nothing', () => {
    const { events, parser } = parse(['id: 7\ndata: x\n\ndata: y\n\nid: 8\0\ndata: z\n\nid: 9\n\n'])
    expect(events.map((e) => [e.id, e.data])).toEqual([
      ['7', 'x'],
      ['7', 'y'],
      ['7', 'z'],
    ])
    expect(parser.lastEventId).toBe('9')
  })

  test('a priming event (id and empty data) is dispatched with empty data; retry is digits only', () => {
    const { events, retries, parser } = parse(['id: p1\nretry: 250\ndata:\n\nretry: 1.5\nretry: x\n\n'])
    expect(events).toEqual([{ event: 'message', data: '', id: 'p1' }])
    expect(retries).toEqual([250])
    expect(parser.retryMs).toBe(250)
  })

  test('CRLF, bare CR, a CR/LF pair split across chunks, and a leading BOM', () => {
    const bytes = new TextEncoder().encode('\uFEFFdata: one\r')
    const { events } = parse([bytes, '\ndata: two\r\rdata: \uFEFFthree\r\n\r\n'])
    expect(events.map((e) => e.data)).toEqual(['one\ntwo', '\uFEFFthree'])
  })

  test('UTF-8 split across byte chunks', () => {
    const all = new TextEncoder().encode('data: {"t":"世界 🎉"}\n\n')
    const { events } = parse(Array.from(all, (b) => new Uint8Array([b])))
    expect(events).toEqual([{ event: 'message', data: '{"t":"世界 🎉"}', id: '' }])
  })

  test('a pending event at end of stream is discarded', () => {
    expect(parse(['data: complete\n\ndata: cut off\n']).events.map((e) => e.data)).toEqual(['complete'])
  })

  test('an oversized event is dropped and reported; the stream continues', () => {
    const { events, oversize } = parse(
      ['data: ok\n\ndata: ', 'x'.repeat(50), 'x'.repeat(50), '\r', '\n\ndata: after\n\ndata: 1234567890\ndata: 1234567890\ndata: 9\n\n'],
      20,
    )
    expect(events.map((e) => e.data)).toEqual(['ok', 'after'])
    expect(oversize.length).toBe(2)
    expect(oversize[0]).toBeGreaterThanOrEqual(100)
  })
})
