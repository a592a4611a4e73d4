/** The replay room: record MCP traffic to a versioned JSONL file, print it, serve it back, replay it against a live server. */
export {
  FORMAT_NAME,
  FORMAT_VERSION,
  REDACTED,
  RecordingHeaderSchema,
  EntrySchema,
  MessageEntrySchema,
  type Recording,
  type RecordingHeader,
  type Entry,
  type MessageEntry,
  type HttpEntry,
  type NegotiatedEntry,
  type CloseEntry,
  type Direction,
  type HttpFraming,
  type Peer,
} from './format.ts'
export { parseRecording, readRecording } from './reader.ts'
export { Recorder, fileSink, memorySink, type RecorderOptions, type RecordingSink } from './writer.ts'
export { DEFAULT_REDACTION, redactionRules, redactHeaders, redactMessage, isSecretHeader, type RedactionRules } from './redact.ts'
export { VOLATILE_FIELDS, volatileFields, parseVolatile, normalize, type VolatileField } from './volatile.ts'
export { diffValues, formatDifferences, type Difference } from './diff.ts'
export { Matcher, buildExchanges, type Exchange, type MatchResult } from './matcher.ts'
export { recordTransport, type RecordingTransport, type RecordTransportOptions } from './decorator.ts'
export { recordingTransports, recordProxy, type RecordProxyOptions } from './record.ts'
export { formatTimeline, formatEntry } from './print.ts'
export { ReplayEngine, serveRecordingStdio, serveRecordingHttp, type ReplayServeOptions } from './serve.ts'
export { replayAgainst, formatAgainstReport, type AgainstReport, type AgainstOptions, type Divergence } from './against.ts'
export { HeaderMirror } from './header-mirror.ts'
export { recordingFetch } from './http-tap.ts'
