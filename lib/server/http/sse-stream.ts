/**
 * Server-Sent Events responses. An `SseStream` is one logical stream (a POST's answer or a standalone
 * GET stream) written to at most one HTTP connection at a time. With an EventStore (legacy) events get
 * ids and are buffered, so `closeMidStream()` may drop the connection and a GET with `Last-Event-ID`
 * replays and continues (seps/1699-support-sse-polling-via-server-side-disconnect.md; 2025-11-25
 * basic/transports.mdx "Resumability and Redelivery": a priming event with an id, `retry:` before a
 * server-side close). Never a broadcast: each message goes out on exactly one stream ("Multiple Connections").
 * `X-Accel-Buffering: no` so reverse proxies do not buffer, and `:` comment lines as keep-alives (clients
 * MUST NOT treat them as malformed): 2026-07-28 basic/transports/streamable-http.mdx "Receiving Messages".
 */
import { McpxError } from '../../errors/index.ts'
import { HTTP_STATUS, MIME, restoreRawIds, type JsonRpcMessage } from '../../wire/index.ts'
import type { EventStore } from './event-store.ts'
import { streaming } from './timeouts.ts'

export interface SseOptions {
  /** settings.sseKeepAliveMs: a comment line is written this often while connected. 0 = none. */
  readonly sseKeepAliveMs: number
  /**
   * settings.sseRetryMs, sent as `retry:` with the priming event and before `closeMidStream()`
   * (2025-11-25 basic/transports.mdx "Sending Messages" 6). Only meaningful with a store.
   */
  readonly retryMs?: number
  /** Buffer and number events for resumption (legacy sessions). Without it: no ids, no priming. */
  readonly store?: EventStore
  /** Extra response headers (e.g. Mcp-Session-Id). */
  readonly headers?: HeadersInit
  /** The request's signal; its abort counts as a client disconnect. */
  readonly signal?: AbortSignal
  /** Called once per connection the client drops (not when the server closes it). */
  readonly onAbort?: () => void
}

export interface SseEvent {
  readonly data: string
  readonly id?: string
  readonly event?: string
  readonly retryMs?: number
}

const SSE_HEADERS = { 'content-type': MIME.SSE, 'cache-control': 'no-cache', 'x-accel-buffering': 'no' } as const
const KEEP_ALIVE = ': keep-alive\n\n'
const OPENING = ': open\n\n'
const encoder = new TextEncoder()
// Which stream each message object went out on (a message goes on exactly one stream, never a broadcast).
const sentOn = new WeakMap<object, SseStream>()
// Logical streams that can be resumed, per store.
const resumable = new WeakMap<EventStore, Map<string, SseStream>>()

/** Serialize one SSE event (multi-line data becomes several `data:` lines). */
export function formatSseEvent(event: SseEvent): string {
  let out = ''
  if (event.id !== undefined) out += `id: ${event.id}\n`
  if (event.event !== undefined) out += `event: ${event.event}\n`
  if (event.retryMs !== undefined) out += `retry: ${Math.round(event.retryMs)}\n`
  for (const line of event.data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`
  return `${out}\n`
}

/** One HTTP response body. Closing it ends the connection, not necessarily the logical stream. */
class SseConnection {
  readonly response: Response
  #controller!: ReadableStreamDefaultController<Uint8Array>
  #keepAlive: ReturnType<typeof setInterval> | undefined
  #closed = false

  constructor(options: SseOptions, onClientGone: () => void) {
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller
      },
      cancel: () => {
        if (this.#closed) return
        this.#stop()
        onClientGone()
      },
    })
    const headers = new Headers(options.headers)
    for (const [name, value] of Object.entries(SSE_HEADERS)) headers.set(name, value)
    this.response = streaming(new Response(body, { status: HTTP_STATUS.OK, headers }))
    // Bun sends the status line and headers only with the first body chunk; a comment (ignored by
    // every SSE parser) makes them go out now even when no event is due yet (an idle GET stream).
    this.write(OPENING)
    if (options.sseKeepAliveMs > 0) {
      this.#keepAlive = setInterval(() => this.write(KEEP_ALIVE), options.sseKeepAliveMs)
      ;(this.#keepAlive as { unref?: () => void }).unref?.()
    }
    options.signal?.addEventListener(
      'abort',
      () => {
        if (this.#closed) return
        this.close()
        onClientGone()
      },
      { once: true },
    )
  }

  get closed(): boolean {
    return this.#closed
  }

  write(text: string): boolean {
    if (this.#closed) return false
    try {
      this.#controller.enqueue(encoder.encode(text))
      return true
    } catch {
      this.#stop()
      return false
    }
  }

  close(): void {
    if (this.#closed) return
    this.#stop()
    try {
      this.#controller.close()
    } catch {
      // already errored or cancelled by the client
    }
  }

  #stop(): void {
    this.#closed = true
    if (this.#keepAlive !== undefined) clearInterval(this.#keepAlive)
    this.#keepAlive = undefined
  }
}

export class SseStream {
  /** The stream's id in the store (undefined without a store). */
  readonly streamId: string | undefined
  #connection: SseConnection | undefined
  #ended = false
  readonly #options: SseOptions

  constructor(options: SseOptions) {
    this.#options = options
    this.streamId = options.store?.newStream()
    if (options.store !== undefined && this.streamId !== undefined) streamsOf(options.store).set(this.streamId, this)
    this.#connection = this.#connect(options)
    if (options.store !== undefined && this.streamId !== undefined) {
      // Priming event: an id with empty data, so the client can resume even before any message.
      const id = options.store.append(this.streamId, '')
      this.#connection.write(formatSseEvent({ id, data: '', ...(options.retryMs !== undefined && { retryMs: options.retryMs }) }))
    }
  }

  /** The Response of the first connection; return it from the fetch handler. */
  get response(): Response {
    return (this.#connection as SseConnection).response
  }

  /** True while a client connection is attached. */
  get connected(): boolean {
    return this.#connection !== undefined && !this.#connection.closed
  }

  /** True once `end()` was called: the logical stream is over. */
  get ended(): boolean {
    return this.#ended
  }

  /**
   * Send one JSON-RPC message. With a store it is buffered even while no connection is attached
   * (it is replayed on resume). Returns false when it reached no live connection.
   */
  send(message: JsonRpcMessage): boolean {
    const owner = sentOn.get(message)
    if (owner !== undefined && owner !== this)
      throw new McpxError('INTERNAL', 'a JSON-RPC message was sent on two SSE streams (no broadcast: each message goes on exactly one)')
    sentOn.set(message, this)
    return this.sendEvent({ data: restoreRawIds(JSON.stringify(message)) })
  }

  /** Send a raw event (e.g. the 2024-11-05 `endpoint` event). Ids come from the store when present. */
  sendEvent(event: SseEvent): boolean {
    if (this.#ended) return false
    const store = this.#options.store
    const id = store !== undefined && this.streamId !== undefined ? store.append(this.streamId, event.data) : event.id
    return this.#connection?.write(formatSseEvent({ ...event, ...(id !== undefined && { id }) })) ?? false
  }

  /** Write a comment line (clients ignore it). */
  comment(text: string): boolean {
    return this.#connection?.write(`: ${text.replace(/[\r\n]+/g, ' ')}\n\n`) ?? false
  }

  /** End the logical stream (after the final response) and close the connection. */
  end(): void {
    this.#ended = true
    this.#connection?.close()
    // Its buffered events stay replayable through the store; the object itself is no longer needed.
    if (this.#options.store !== undefined && this.streamId !== undefined) streamsOf(this.#options.store).delete(this.streamId)
  }

  /**
   * Close the connection but keep the stream open: `retry:` first so the client waits that long,
   * then reconnects with GET + Last-Event-ID (2025-11-25 basic/transports.mdx "Sending Messages to the Server",
   * the client MUST honour `retry`). Without a
   * store nothing could be resumed, so this is then the same as `end()`.
   */
  closeMidStream(): void {
    if (this.#options.store === undefined) return this.end()
    if (this.#options.retryMs !== undefined) this.#connection?.write(formatRetry(this.#options.retryMs))
    this.#connection?.close()
  }

  /** Attach a new connection (resume), replaying `events` first. */
  attach(events: readonly { id: string; data: string }[], options: Pick<SseOptions, 'headers' | 'signal' | 'onAbort'>): Response {
    this.#connection?.close()
    const connection = this.#connect({ ...this.#options, ...options })
    this.#connection = connection
    for (const event of events) connection.write(formatSseEvent(event))
    if (this.#ended) connection.close()
    return connection.response
  }

  #connect(options: SseOptions): SseConnection {
    let connection: SseConnection | undefined
    connection = new SseConnection(options, () => {
      if (this.#connection === connection) options.onAbort?.()
    })
    return connection
  }
}

/** Open a logical SSE stream; `stream.response` is the Response to return. */
export function openSseStream(options: SseOptions): SseStream {
  return new SseStream(options)
}

export interface ResumeOptions extends Pick<SseOptions, 'headers' | 'signal' | 'onAbort' | 'sseKeepAliveMs'> {}

/**
 * Resume the stream `lastEventId` belongs to (GET + Last-Event-ID): a new connection that replays
 * that stream's later events and, if the stream is still open, continues with its live ones.
 * Undefined when the id names no stream of this store. `complete` is false when the bounded
 * buffer already dropped some of the missed events.
 */
export function resumeSseStream(
  store: EventStore,
  lastEventId: string,
  options: ResumeOptions,
): { response: Response; streamId: string; complete: boolean } | undefined {
  const replay = store.replayAfter(lastEventId)
  if (replay === undefined) return undefined
  const stream = streamsOf(store).get(replay.streamId)
  if (stream !== undefined) {
    return { response: stream.attach(replay.events, options), streamId: replay.streamId, complete: replay.complete }
  }
  // The stream has ended: replay what is still buffered (its final response included), then close.
  const connection = new SseConnection({ ...options }, () => options.onAbort?.())
  for (const event of replay.events) connection.write(formatSseEvent(event))
  connection.close()
  return { response: connection.response, streamId: replay.streamId, complete: replay.complete }
}

/** A closed stream that replays `events` (from elsewhere: another replica's buffer, shared through Redis). */
export function replayClosedStream(events: readonly { id: string; data: string }[], options: ResumeOptions): Response {
  const connection = new SseConnection({ ...options }, () => options.onAbort?.())
  for (const event of events) connection.write(formatSseEvent(event))
  connection.close()
  return connection.response
}

function formatRetry(retryMs: number): string {
  return `retry: ${Math.round(retryMs)}\n\n`
}

function streamsOf(store: EventStore): Map<string, SseStream> {
  let map = resumable.get(store)
  if (map === undefined) {
    map = new Map()
    resumable.set(store, map)
  }
  return map
}
