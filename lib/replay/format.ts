/**
 * The recording file format: UTF-8, one JSON object per line (JSON Lines). Line 1 is the header
 * (format name and version, mcpx version, transport, era, revision, peer, redaction rules); every
 * later line is an entry: a message with its direction and time (plus, over HTTP, the request
 * method, status, headers that matter and SSE framing), a `negotiated` line once the era and
 * revision are known, bare HTTP framing (`http`: a GET stream, a DELETE, a 202), or a `close`. Readers refuse versions newer than FORMAT_VERSION.
 */
import * as v from 'valibot'

export const FORMAT_NAME = 'mcpx-recording'
/** Bump on any change an older reader would misread; readers accept 1..FORMAT_VERSION. */
export const FORMAT_VERSION = 1
/** Marks a redacted value in place, so the redaction is visible in the file. */
export const REDACTED = '[REDACTED]'

const EraSchema = v.picklist(['legacy', 'modern'])
const TransportSchema = v.picklist(['stdio', 'streamable-http', 'http+sse'])

export const PeerSchema = v.looseObject({
  name: v.optional(v.string()),
  version: v.optional(v.string()),
  /** stdio: the server command line. */
  command: v.optional(v.array(v.string())),
  /** HTTP: the endpoint. */
  url: v.optional(v.string()),
})
export type Peer = v.InferOutput<typeof PeerSchema>

export const RecordingHeaderSchema = v.looseObject({
  type: v.literal('header'),
  format: v.literal(FORMAT_NAME),
  formatVersion: v.pipe(v.number(), v.integer(), v.minValue(1)),
  mcpxVersion: v.string(),
  createdAt: v.string(),
  /** Which side mcpx recorded as: `client` (mcpx called the server) or `server` (mcpx was called). */
  role: v.picklist(['client', 'server']),
  transport: TransportSchema,
  era: v.nullable(EraSchema),
  revision: v.nullable(v.string()),
  peer: v.optional(PeerSchema),
  /** Rules applied when writing (header names, field paths), so readers know what was hidden. */
  redaction: v.object({ headers: v.array(v.string()), fields: v.array(v.string()) }),
})
export type RecordingHeader = v.InferOutput<typeof RecordingHeaderSchema>

export const HttpFramingSchema = v.looseObject({
  /** HTTP request method of the exchange that carried the message. */
  method: v.optional(v.string()),
  /** Response status, for messages that arrived in (or produced) an HTTP response. */
  status: v.optional(v.number()),
  /** Headers that matter (MCP-*, Mcp-*, Content-Type, Last-Event-ID, …), secrets redacted. */
  headers: v.optional(v.record(v.string(), v.string())),
  /** SSE framing when the message travelled as an event. */
  sse: v.optional(v.looseObject({ id: v.optional(v.string()), event: v.optional(v.string()), retry: v.optional(v.number()) })),
})
export type HttpFraming = v.InferOutput<typeof HttpFramingSchema>

export const DirectionSchema = v.picklist(['to-server', 'to-client'])
export type Direction = v.InferOutput<typeof DirectionSchema>

export const MessageEntrySchema = v.looseObject({
  type: v.literal('message'),
  seq: v.pipe(v.number(), v.integer(), v.minValue(1)),
  /** Milliseconds since the recording started. */
  t: v.pipe(v.number(), v.minValue(0)),
  direction: DirectionSchema,
  message: v.record(v.string(), v.unknown()),
  http: v.optional(HttpFramingSchema),
  /** Paths whose values were replaced by REDACTED in this entry. */
  redacted: v.optional(v.array(v.string())),
})
export type MessageEntry = v.InferOutput<typeof MessageEntrySchema>

export const NegotiatedEntrySchema = v.looseObject({
  type: v.literal('negotiated'),
  t: v.pipe(v.number(), v.minValue(0)),
  era: EraSchema,
  revision: v.string(),
  peer: v.optional(PeerSchema),
})
export type NegotiatedEntry = v.InferOutput<typeof NegotiatedEntrySchema>

export const CloseEntrySchema = v.looseObject({
  type: v.literal('close'),
  t: v.pipe(v.number(), v.minValue(0)),
  /** Set when the transport closed without being asked (the error message). */
  reason: v.optional(v.string()),
})
export type CloseEntry = v.InferOutput<typeof CloseEntrySchema>

/** HTTP framing that carried no message: a GET stream opened, a DELETE, a 202 Accepted, a refusal. */
export const HttpEntrySchema = v.looseObject({
  type: v.literal('http'),
  t: v.pipe(v.number(), v.minValue(0)),
  direction: DirectionSchema,
  http: HttpFramingSchema,
  redacted: v.optional(v.array(v.string())),
})
export type HttpEntry = v.InferOutput<typeof HttpEntrySchema>

export const EntrySchema = v.variant('type', [MessageEntrySchema, NegotiatedEntrySchema, CloseEntrySchema, HttpEntrySchema])
export type Entry = v.InferOutput<typeof EntrySchema>

/** A parsed recording: the header with `negotiated` lines folded in, and every entry in order. */
export interface Recording {
  readonly header: RecordingHeader
  readonly entries: readonly Entry[]
  /** Message entries only, in order. */
  readonly messages: readonly MessageEntry[]
  /** The era and revision in effect (header, updated by the last `negotiated` line). */
  readonly era: 'legacy' | 'modern' | null
  readonly revision: string | null
  readonly peer?: Peer
}
