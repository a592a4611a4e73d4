/**
 * Per-session SSE event buffer for legacy resumability (2025-11-25 basic/transports.mdx
 * "Resumability and Redelivery": ids SHOULD encode the originating stream). Event ids are `<streamId>.<seq>`, so an id names its
 * originating stream: a GET with `Last-Event-ID` replays only that stream's later events, never
 * another stream's (MUST NOT). Ids are unique across the session's streams because stream ids are
 * random. The buffer holds at most `sseEventBufferLength` events, oldest dropped first.
 */
import { randomToken } from '../random.ts'

export interface StoredEvent {
  readonly id: string
  /** The SSE `data` text (a serialized JSON-RPC message; empty for a priming event). */
  readonly data: string
}

export interface ReplayResult {
  readonly streamId: string
  /** Events of that stream after the given id, oldest first. */
  readonly events: readonly StoredEvent[]
  /** False when some later events were already dropped from the bounded buffer. */
  readonly complete: boolean
}

export interface EventStoreOptions {
  /** settings.sseEventBufferLength. */
  readonly sseEventBufferLength: number
}

interface StreamState {
  nextSeq: number
  /** Highest seq dropped from the buffer, -1 when none. */
  droppedUpTo: number
}

interface Buffered {
  readonly streamId: string
  readonly seq: number
  readonly data: string
}

const STREAM_ID_BYTES = 9
const SEPARATOR = '.'

/** Split an event id into its stream id and sequence number; undefined when malformed. */
export function parseEventId(eventId: string): { streamId: string; seq: number } | undefined {
  const at = eventId.lastIndexOf(SEPARATOR)
  if (at <= 0) return undefined
  const seqText = eventId.slice(at + 1)
  if (!/^\d+$/.test(seqText)) return undefined
  return { streamId: eventId.slice(0, at), seq: Number(seqText) }
}

export class EventStore {
  readonly #max: number
  readonly #streams = new Map<string, StreamState>()
  #buffer: Buffered[] = []
  /** Told every event appended (replicas copy the buffer to Redis so an heir can replay it). */
  onAppend?: (event: StoredEvent) => void

  constructor(options: EventStoreOptions) {
    this.#max = Math.max(1, options.sseEventBufferLength)
  }

  /** A new stream id, unique within this store (base64url: never contains the separator). */
  newStream(): string {
    let id = randomToken(STREAM_ID_BYTES)
    while (this.#streams.has(id)) id = randomToken(STREAM_ID_BYTES)
    this.#streams.set(id, { nextSeq: 0, droppedUpTo: -1 })
    return id
  }

  hasStream(streamId: string): boolean {
    return this.#streams.has(streamId)
  }

  /** Buffer one event of `streamId` and return its id. */
  append(streamId: string, data: string): string {
    const stream = this.#streams.get(streamId)
    if (stream === undefined) throw new Error(`unknown SSE stream ${streamId}`)
    const seq = stream.nextSeq++
    this.#buffer.push({ streamId, seq, data })
    while (this.#buffer.length > this.#max) {
      const dropped = this.#buffer.shift() as Buffered
      const owner = this.#streams.get(dropped.streamId)
      if (owner !== undefined) owner.droppedUpTo = Math.max(owner.droppedUpTo, dropped.seq)
    }
    const id = `${streamId}${SEPARATOR}${seq}`
    this.onAppend?.({ id, data })
    return id
  }

  /**
   * The events of the stream `lastEventId` belongs to that came after it. Undefined when the id
   * is malformed or names no stream of this store (the caller answers 400/404: there is nothing of that stream to replay).
   */
  replayAfter(lastEventId: string): ReplayResult | undefined {
    const parsed = parseEventId(lastEventId.trim())
    if (parsed === undefined) return undefined
    const stream = this.#streams.get(parsed.streamId)
    if (stream === undefined || parsed.seq >= stream.nextSeq) return undefined
    const events = this.#buffer
      .filter((e) => e.streamId === parsed.streamId && e.seq > parsed.seq)
      .map((e) => ({ id: `${e.streamId}${SEPARATOR}${e.seq}`, data: e.data }))
    return { streamId: parsed.streamId, events, complete: stream.droppedUpTo <= parsed.seq }
  }

  /** Forget a stream and its buffered events (e.g. once its client confirmed the final event). */
  forgetStream(streamId: string): void {
    this.#streams.delete(streamId)
    this.#buffer = this.#buffer.filter((e) => e.streamId !== streamId)
  }

  get size(): number {
    return this.#buffer.length
  }
}
