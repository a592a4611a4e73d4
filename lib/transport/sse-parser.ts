/**
 * Server-sent events parser per the WHATWG "event stream interpretation" algorithm: one leading BOM
 * stripped, CRLF / LF / CR line ends (also split across chunks), `:` comments (keep-alives), multi-line
 * `data`, `event`, `id` (persists; ignored with NUL), `retry` (digits only). An id with empty data (the
 * 2025-11-25 "priming" event) is dispatched with `data: ''`; an event over `maxEventChars` is dropped
 * and reported, never buffered whole.
 */

export interface SseEvent {
  /** `event:` field, default `message`. */
  event: string
  data: string
  /** The last event id in force when this event was dispatched ('' if none). */
  id: string
}

export interface SseParserOptions {
  onEvent(event: SseEvent): void
  /** A valid `retry:` field (ms). */
  onRetry?(retryMs: number): void
  /** An event (or one line) over `maxEventChars` was dropped; `chars` counts what was seen. */
  onOversize?(chars: number): void
  /** Cap on one event's data plus its pending line, in UTF-16 units (≤ its UTF-8 bytes). */
  maxEventChars?: number
}

export interface SseParser {
  push(chunk: Uint8Array | string): void
  /** End of stream: a pending, undispatched event is discarded (as the algorithm says). */
  end(): void
  readonly lastEventId: string
  readonly retryMs: number | undefined
}

const LF = '\n'
const CR = '\r'

export function createSseParser(options: SseParserOptions): SseParser {
  const maxChars = options.maxEventChars ?? Number.POSITIVE_INFINITY
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true })
  let started = false
  let buffer = ''
  // A chunk ended on CR: a LF opening the next chunk belongs to the same line break.
  let skipLeadingLf = false
  let data: string[] = []
  let dataChars = 0
  let eventType = ''
  let lastEventId = ''
  let retryMs: number | undefined
  let oversizedChars = 0
  // While true, the rest of the current (oversized) line is discarded up to its line break.
  let dropLine = false

  function dispatch(): void {
    if (oversizedChars > 0) {
      options.onOversize?.(oversizedChars)
      oversizedChars = 0
    } else if (data.length > 0) {
      options.onEvent({ event: eventType === '' ? 'message' : eventType, data: data.join(LF), id: lastEventId })
    }
    data = []
    dataChars = 0
    eventType = ''
  }

  function processLine(line: string): void {
    if (line === '') return dispatch()
    if (line.startsWith(':')) return
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    switch (field) {
      case 'event':
        eventType = value
        return
      case 'data':
        if (oversizedChars > 0) {
          oversizedChars += value.length
          return
        }
        dataChars += value.length + 1
        if (dataChars > maxChars) {
          oversizedChars = dataChars
          data = []
          return
        }
        data.push(value)
        return
      case 'id':
        if (!value.includes('\0')) lastEventId = value
        return
      case 'retry':
        if (/^[0-9]+$/.test(value)) {
          retryMs = Number(value)
          options.onRetry?.(retryMs)
        }
        return
      default:
        // Unknown fields are ignored (WHATWG).
        return
    }
  }

  function feed(text: string): void {
    if (!started && text.length > 0) {
      started = true
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    }
    if (text.length === 0) return
    if (skipLeadingLf && text.startsWith(LF)) text = text.slice(1)
    skipLeadingLf = false
    buffer += text
    let start = 0
    for (;;) {
      const lf = buffer.indexOf(LF, start)
      const cr = buffer.indexOf(CR, start)
      const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr)
      if (end === -1) break
      processLine(buffer.slice(start, end))
      if (buffer[end] === CR) {
        if (end + 1 === buffer.length) {
          skipLeadingLf = true
          start = end + 1
          break
        }
        start = buffer[end + 1] === LF ? end + 2 : end + 1
      } else start = end + 1
    }
    buffer = buffer.slice(start)
    // A line still open and already over the cap is counted and dropped, not kept.
    if (buffer.length > maxChars) {
      oversizedChars = Math.max(oversizedChars, dataChars) + buffer.length
      data = []
      buffer = ''
      dropLine = true
    }
  }

  function push(chunk: Uint8Array | string): void {
    let text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })
    if (dropLine) {
      const lf = text.indexOf(LF)
      const cr = text.indexOf(CR)
      const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr)
      if (end === -1) {
        oversizedChars += text.length
        return
      }
      oversizedChars += end
      dropLine = false
      // The line break ends the dropped line; an empty line after it then dispatches.
      const crAtChunkEnd = text[end] === CR && end + 1 === text.length
      text = text.slice(end + (text.startsWith(CR + LF, end) ? 2 : 1))
      if (crAtChunkEnd) skipLeadingLf = true
    }
    feed(text)
  }

  return {
    push,
    end() {
      push(decoder.decode())
      buffer = ''
      data = []
      oversizedChars = 0
    },
    get lastEventId() {
      return lastEventId
    },
    get retryMs() {
      return retryMs
    },
  }
}

export interface EventStreamEnd {
  lastEventId: string
  retryMs: number | undefined
  /** The read error when the stream broke rather than ended (network drop, abort). */
  failure?: unknown
}

/** Feed a response body through a fresh parser until it ends or breaks; never rejects. */
export async function readEventStream(body: ReadableStream<Uint8Array>, options: SseParserOptions): Promise<EventStreamEnd> {
  const parser = createSseParser(options)
  const reader = body.getReader()
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) parser.push(next.value)
    parser.end()
    return { lastEventId: parser.lastEventId, retryMs: parser.retryMs }
  } catch (failure) {
    reader.cancel().catch(() => {})
    return { lastEventId: parser.lastEventId, retryMs: parser.retryMs, failure }
  }
}
