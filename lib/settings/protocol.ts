/** Tunables of the wire, the transports and the request engine (both roles). */
import { defineSettings } from './define.ts'

const MiB = 1024 * 1024

export const PROTOCOL_SETTINGS = defineSettings({
  maxFrameBytes: { default: 16 * MiB, env: 'MCPX_MAX_FRAME_BYTES', doc: 'Largest JSON-RPC line (stdio) or HTTP body accepted' },
  maxJsonDepth: {
    default: 128,
    env: 'MCPX_MAX_JSON_DEPTH',
    doc: 'Deepest nesting of arrays/objects accepted in one JSON-RPC frame (stdio line, HTTP body, upstream line); deeper is refused with -32700 before parsing',
  },
  httpIdleTimeoutMs: {
    default: 30_000,
    env: 'MCPX_HTTP_IDLE_TIMEOUT_MS',
    doc: "An HTTP connection over TCP with no bytes moving is closed after this (Bun idleTimeout, whole seconds, at most 255 s); lifted for an answer still being worked on halfway through it, and for SSE streams. The daemon's Unix socket keeps none (Bun cannot lift it per request there)",
  },
  httpBodyTimeoutMs: {
    default: 30_000,
    env: 'MCPX_HTTP_BODY_TIMEOUT_MS',
    doc: 'Longest an HTTP request body may take to arrive in full; later it is answered 408 and the connection closed',
  },
  maxBatchLength: { default: 100, env: 'MCPX_MAX_BATCH_LENGTH', doc: 'Most messages accepted in one 2025-03-26 JSON-RPC batch' },
  requestTimeoutMs: { default: 60_000, env: 'MCPX_TIMEOUT_MS', doc: 'Deadline for one request mcpx sends (0 = none)' },
  shutdownGraceMs: { default: 2_000, env: 'MCPX_SHUTDOWN_GRACE_MS', doc: 'Wait after closing stdin / SIGTERM before the next escalation' },
  stderrBufferBytes: { default: 64 * 1024, env: 'MCPX_STDERR_BUFFER_BYTES', doc: 'Tail of an upstream stderr kept for error messages' },
  stderrQuoteChars: {
    default: 2_000,
    env: 'MCPX_STDERR_QUOTE_CHARS',
    doc: 'Most of that stderr tail quoted in the error when a stdio upstream fails',
  },
  sseKeepAliveMs: { default: 15_000, env: 'MCPX_SSE_KEEPALIVE_MS', doc: 'Interval of SSE keep-alive comments on long-lived streams' },
  sseRetryMs: { default: 1_000, env: 'MCPX_SSE_RETRY_MS', doc: 'retry: hint sent on resumable SSE streams (2025-11-25)' },
  sseEventBufferLength: { default: 1_000, env: 'MCPX_SSE_EVENT_BUFFER', doc: 'Events kept per legacy session for Last-Event-ID replay' },
  sessionIdleMs: { default: 30 * 60_000, env: 'MCPX_SESSION_IDLE_MS', doc: 'A legacy HTTP session unused this long expires (then 404)' },
  maxSessions: {
    default: 10_000,
    env: 'MCPX_MAX_SESSIONS',
    doc: 'Most concurrent legacy HTTP sessions; the least recently used is dropped beyond it',
  },
  sealKeyFile: {
    default: '',
    env: 'MCPX_SEAL_KEY_FILE',
    doc: 'Key ring sealing requestState (one 32-byte key per line, hex or base64; the first seals, all open), shared by replicas; empty = a random key per process',
  },
  requestStateSingleUse: {
    default: false,
    env: 'MCPX_REQUEST_STATE_SINGLE_USE',
    doc: 'A requestState opens once: a second retry with the same token is refused (-32602). Replicas need no shared store for it: every retry reaches the replica that minted its token',
  },
  requestStateTtlMs: { default: 10 * 60_000, env: 'MCPX_REQUEST_STATE_TTL_MS', doc: 'Lifetime of an input_required requestState token' },
  cacheTtlMs: { default: 60_000, env: 'MCPX_CACHE_TTL_MS', doc: 'ttlMs advertised on cacheable 2026 results' },
  taskTtlMs: { default: 10 * 60_000, env: 'MCPX_TASK_TTL_MS', doc: 'How long a finished task and its result are kept' },
  taskPollIntervalMs: { default: 500, env: 'MCPX_TASK_POLL_MS', doc: 'pollInterval suggested for tasks' },
  probeTimeoutMs: { default: 3_000, env: 'MCPX_PROBE_TIMEOUT_MS', doc: 'stdio: silence after server/discover this long means legacy' },
  probeStepTimeoutMs: {
    default: 10_000,
    env: 'MCPX_PROBE_STEP_TIMEOUT_MS',
    doc: '`mcpx probe`: deadline of every other step (legacy initialize, each HTTP attempt)',
  },
  maxInputRounds: { default: 8, env: 'MCPX_MAX_INPUT_ROUNDS', doc: 'Most input_required rounds a client follows for one request' },
})
