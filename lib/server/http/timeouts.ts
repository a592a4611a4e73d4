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

export interface IdleControl {
  timeout(request: Request, seconds: number): void
}

/** The listener of each request being served, so body readers can lift its idle timeout. */
const listeners = new WeakMap<Request, IdleControl>()

/**
 * What withIdleTimeouts does around a handler, for a fetch handler that runs it in its own frame
 * (the daemon's: one async frame per request, not two); undefined when there is no idle timeout.
 */
export interface IdleTimeouts {
  /** Before the handler: a request without a body is lifted at once, others when bodyReceived() is called. */
  begin(request: Request, server: IdleControl): void
  /** After it: a plain (non-SSE) response puts the idle timeout back. */
  end(request: Request, server: IdleControl, response: Response): Response
}

export function idleTimeouts(settings: Pick<Settings, 'httpIdleTimeoutMs'>): IdleTimeouts | undefined {
  const seconds = idleTimeoutSeconds(settings)
  if (seconds === 0) return undefined
  return {
    begin(request, server) {
      if (request.body === null) server.timeout(request, 0)
      else listeners.set(request, server)
    },
    end(request, server, response) {
      if (!(response.headers.get('content-type') ?? '').startsWith(MIME.SSE)) server.timeout(request, seconds)
      else server.timeout(request, 0)
      return response
    },
  }
}

/** Wrap a fetch handler for Bun.serve with idleTimeouts' begin and end. */
export function withIdleTimeouts(
  settings: Pick<Settings, 'httpIdleTimeoutMs'>,
  handle: (request: Request) => Response | Promise<Response>,
): (request: Request, server: IdleControl) => Promise<Response> {
  const idle = idleTimeouts(settings)
  return async (request, server) => {
    if (idle === undefined) return handle(request)
    idle.begin(request, server)
    return idle.end(request, server, await handle(request))
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
    const cancel = deadlines ? queued(deadlines, () => resolve('timeout')) : timerFor(ms, () => resolve('timeout'))
    read.then(
      (value) => (cancel(), resolve(value)),
      (error: unknown) => (cancel(), reject(error)),
    )
  })
}

function queued(deadlines: DeadlineQueue, expire: () => void): () => void {
  const entry = { due: 0, expire }
  deadlines.add(entry)
  return () => deadlines.delete(entry)
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
