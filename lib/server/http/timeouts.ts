/**
 * Idle and body timeouts of a Bun HTTP listener. The connection's idle timeout (settings
 * httpIdleTimeoutMs) guards idle sockets and stalled bodies; once a request is being answered, the
 * handler decides how long it takes (a tool call may run for minutes without a byte), so the idle
 * timeout is lifted for an answer still being worked on halfway through it, and put back after a
 * plain response; it is lifted for good for an SSE stream, which lives until the server ends it
 * (keep-alive comments flow). Most answers come long before, and touch the connection not at all.
 * A body that trickles is bounded by httpBodyTimeoutMs (408, connection closed).
 */
import type { Settings } from '../../settings/index.ts'
import { type Deadline, DeadlineQueue } from '../../session/index.ts'

/** Bun's idleTimeout is whole seconds, 0 (none) up to 255. */
const BUN_MAX_IDLE_SECONDS = 255

export function idleTimeoutSeconds(settings: Pick<Settings, 'httpIdleTimeoutMs'>): number {
  if (settings.httpIdleTimeoutMs <= 0) return 0
  return Math.min(BUN_MAX_IDLE_SECONDS, Math.max(1, Math.ceil(settings.httpIdleTimeoutMs / 1000)))
}

export interface IdleControl {
  timeout(request: Request, seconds: number): void
}

/**
 * What withIdleTimeouts does around a handler, for a fetch handler that runs it in its own frame
 * (the daemon's: one async frame per request, not two); undefined when there is no idle timeout.
 */
export interface IdleTimeouts {
  /** Before the handler: the request is being answered from now on. */
  begin(request: Request, server: IdleControl): Answering
  /** After it: a plain response ends the answering (the idle timeout back if it was lifted); an SSE stream keeps it lifted. */
  end(answering: Answering, response: Response): Response
}

/** One request being answered: its entry in the queue that lifts the idle timeout of answers still being worked on. */
export class Answering implements Deadline {
  due = 0
  lifted = false

  constructor(
    readonly request: Request,
    readonly server: IdleControl,
  ) {}

  expire(): void {
    this.server.timeout(this.request, 0)
    this.lifted = true
  }
}

/**
 * The responses that stream (SSE): their connections keep no idle timeout. Marked where they are
 * made (or relayed), so a plain answer is told apart without reading its headers. A side table of
 * the responses themselves, freed with them.
 */
const STREAMING = new WeakSet<Response>()

/** `response` streams until the server ends it: end() lifts its connection's idle timeout for good. */
export function streaming(response: Response): Response {
  STREAMING.add(response)
  return response
}

export function idleTimeouts(settings: Pick<Settings, 'httpIdleTimeoutMs'>): IdleTimeouts | undefined {
  const seconds = idleTimeoutSeconds(settings)
  if (seconds === 0) return undefined
  // Halfway: Bun closes an idle connection no sooner than its whole idle timeout.
  const answering = new DeadlineQueue(Math.floor((seconds * 1000) / 2))
  return {
    begin(request, server) {
      const entry = new Answering(request, server)
      answering.add(entry)
      return entry
    },
    end(entry, response) {
      answering.delete(entry)
      if (STREAMING.has(response)) entry.server.timeout(entry.request, 0)
      else if (entry.lifted) entry.server.timeout(entry.request, seconds)
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
    const answering = idle.begin(request, server)
    return idle.end(answering, await handle(request))
  }
}

/**
 * Bun refuses a body over its maxRequestBodySize (128 MiB by default) before any handler runs,
 * with an empty 413. mcpx enforces maxFrameBytes itself (server/http/body-read.ts: from Content-Length
 * before reading, counted while streaming) and answers in JSON-RPC, so Bun's cap is lifted out of
 * the way; a listener option for Bun.serve.
 */
export const BODY_LIMIT_ENFORCED_BY_MCPX = { maxRequestBodySize: Number.MAX_SAFE_INTEGER } as const
