/**
 * The daemon's event feed: numbered events in a bounded ring, served as SSE on /v1/events. A
 * client that reconnects with Last-Event-ID gets every buffered event after that id (an id from
 * a previous daemon instance, i.e. larger than any issued, replays the whole buffer).
 */
import { streaming } from '../server/index.ts'

export interface DaemonEvent {
  readonly id: number
  readonly type: string
  readonly time: string
  readonly data: unknown
}

type Listener = (event: DaemonEvent) => void

export class EventFeed {
  #events: DaemonEvent[] = []
  #nextId = 1
  #listeners = new Set<Listener>()

  constructor(readonly capacity: number) {}

  publish(type: string, data: unknown): DaemonEvent {
    const event: DaemonEvent = { id: this.#nextId++, type, time: new Date().toISOString(), data }
    this.#events.push(event)
    if (this.#events.length > this.capacity) this.#events.splice(0, this.#events.length - this.capacity)
    for (const listener of this.#listeners) listener(event)
    return event
  }

  /** Buffered events after `lastId` (all of them when absent or from another instance). */
  since(lastId?: number): DaemonEvent[] {
    if (lastId === undefined || lastId >= this.#nextId) return [...this.#events]
    return this.#events.filter((event) => event.id > lastId)
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  get subscriberCount(): number {
    return this.#listeners.size
  }
}

export interface SseOptions {
  readonly lastEventId?: number
  readonly keepAliveMs: number
  readonly retryMs: number
  /** Aborted when the client goes away or the daemon shuts down. */
  readonly signal: AbortSignal
  readonly onOpen?: () => void
  readonly onClose?: () => void
}

const encoder = new TextEncoder()

function frame(event: DaemonEvent): Uint8Array {
  return encoder.encode(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
}

/** text/event-stream response replaying after `lastEventId`, then following live events. */
export function sseResponse(feed: EventFeed, options: SseOptions): Response {
  let cleanup = () => {}
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      options.onOpen?.()
      controller.enqueue(encoder.encode(`retry: ${options.retryMs}\n\n`))
      for (const event of feed.since(options.lastEventId)) controller.enqueue(frame(event))
      const unsubscribe = feed.subscribe((event) => controller.enqueue(frame(event)))
      // SSE comment lines keep idle proxies and sockets from closing a quiet stream.
      const keepAlive =
        options.keepAliveMs > 0 ? setInterval(() => controller.enqueue(encoder.encode(': keep-alive\n\n')), options.keepAliveMs) : undefined
      let closed = false
      cleanup = () => {
        if (closed) return
        closed = true
        unsubscribe()
        if (keepAlive) clearInterval(keepAlive)
        options.signal.removeEventListener('abort', onAbort)
        options.onClose?.()
      }
      const onAbort = () => {
        cleanup()
        try {
          controller.close()
        } catch {
          // already closed by the consumer
        }
      }
      if (options.signal.aborted) onAbort()
      else options.signal.addEventListener('abort', onAbort)
    },
    cancel() {
      cleanup()
    },
  })
  return streaming(
    new Response(stream, {
      headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' },
    }),
  )
}
