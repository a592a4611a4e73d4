/**
 * Idle and body timeouts of a Bun HTTP listener. The connection's idle timeout (settings
 * httpIdleTimeoutMs) guards idle sockets and stalled bodies; once a request's body is in, the
 * handler decides how long it takes (a tool call may run for minutes without a byte), so the idle
 * timeout is lifted, and put back after a plain response — never for an SSE stream, which lives
 * until the server ends it (keep-alive comments flow). A body that trickles is bounded by
 * httpBodyTimeoutMs (408, connection closed).
 */
import type { Settings } from '../../settings/index.ts'
import type { DeadlineQueue } from '../../session/index.ts'
import { MIME } from '../../wire/index.ts'

/** Bun's idleTimeout is whole seconds, 0 (none) up to 255. */
const BUN_MAX_IDLE_SECONDS = 255

export function idleTimeoutSeconds(settings: Pick<Settings, 'httpIdleTimeoutMs'>): number {
  if (settings.httpIdleTimeoutMs <= 0) return 0
  return Math.min(BUN_MAX_IDLE_SECONDS, Math.max(1, Math.ceil(settings.httpIdleTimeoutMs / 1000)))
}

interface IdleControl {
  timeout(request: Request, seconds: number): void
}

/** The listener of each request being served, so body readers can lift its idle timeout. */
const listeners = new WeakMap<Request, IdleControl>()

/**
 * Wrap a fetch handler for Bun.serve: requests without a body are lifted at once, others when
 * bodyReceived() is called; a plain (non-SSE) response puts the idle timeout back.
 */
export function withIdleTimeouts(
  settings: Pick<Settings, 'httpIdleTimeoutMs'>,
  handle: (request: Request) => Response | Promise<Response>,
): (request: Request, server: IdleControl) => Promise<Response> {
  const seconds = idleTimeoutSeconds(settings)
  return async (request, server) => {
    if (seconds === 0) return handle(request)
    if (request.body === null) server.timeout(request, 0)
    else listeners.set(request, server)
    const response = await handle(request)
    if (!(response.headers.get('content-type') ?? '').startsWith(MIME.SSE)) server.timeout(request, seconds)
    else server.timeout(request, 0)
    return response
  }
}

/** The body is in: from here on the handler, not the idle timeout, decides how long this takes. */
export function bodyReceived(request: Request): void {
  listeners.get(request)?.timeout(request, 0)
}

/**
 * `read`, or 'timeout' when it has not settled within `ms` (0 = no bound). With `deadlines` (one per
 * handler, of the same `ms`) the read joins that queue instead of arming a timer of its own: every
 * POST comes here.
 */
export function withinBodyTimeout<T>(read: Promise<T>, ms: number, deadlines?: DeadlineQueue): Promise<T | 'timeout'> {
  if (ms <= 0) return read
  if (deadlines !== undefined && deadlines.ms !== ms) throw new RangeError(`a deadline queue of ${deadlines.ms} ms given for ${ms} ms`)
  return new Promise<T | 'timeout'>((resolve, reject) => {
    const cancel = deadlines ? deadlines.add(() => resolve('timeout')) : timerFor(ms, () => resolve('timeout'))
    read.then(
      (value) => (cancel(), resolve(value)),
      (error: unknown) => (cancel(), reject(error)),
    )
  })
}

function timerFor(ms: number, expire: () => void): () => void {
  const timer = setTimeout(expire, ms)
  return () => clearTimeout(timer)
}

/**
 * Bun refuses a body over its maxRequestBodySize (128 MiB by default) before any handler runs,
 * with an empty 413. mcpx enforces maxFrameBytes itself (server/http/body.ts: from Content-Length
 * before reading, counted while streaming) and answers in JSON-RPC, so Bun's cap is lifted out of
 * the way; a listener option for Bun.serve.
 */
export const BODY_LIMIT_ENFORCED_BY_MCPX = { maxRequestBodySize: Number.MAX_SAFE_INTEGER } as const
