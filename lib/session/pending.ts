/**
 * One request a Peer (peer.ts) sent and awaits: where its outcome goes (a promise's resolve and
 * reject, or a receiver), its deadline as its own entry in the peer's queue for its bound, its
 * caller's abort signal listened to by the request itself, and its progress token. What it needs
 * from its Peer comes through one hooks object per Peer.
 */
import { McpxError } from '../errors/index.ts'
import type { RequestId } from '../wire/index.ts'
import type { Deadline, DeadlineQueue } from './deadlines.ts'
import type { CancelMode } from './peer-options.ts'

/** What a pending request needs from its Peer (one object per Peer, not per request). */
export interface PeerHooks {
  cancel(id: RequestId, error: McpxError, mode: CancelMode, abort: AbortController | undefined): void
  /** True while we are answering a request of the peer (its silence is then our doing). */
  serving(): boolean
  dropProgress(token: string | number): void
  /** The deadline queue of requests bounded by `ms` (one timer per bound: deadlines.ts). */
  deadlines(ms: number): DeadlineQueue
  /** A request of that queue settled: a queue of a bound other than the peer's default goes once empty. */
  released(queue: DeadlineQueue): void
}

/**
 * What takes one request's outcome instead of a promise (Peer.requestTo): a caller that relays the
 * answer on at once, with no promise or closure of its own in between.
 */
export interface AnswerReceiver {
  answered(result: Record<string, unknown>): void
  failed(error: McpxError): void
}

/**
 * One request awaiting its answer. Its caller's abort signal calls back into it directly (it is its
 * own abort listener) and it is its own entry in the peer's deadline queue for its bound, so a
 * request costs one object and no timer or closure of its own: every upstream call passes here.
 */
export class Pending implements EventListenerObject, Deadline {
  due = 0
  /** Where the outcome goes: a promise's resolve and reject (request()), or a receiver (requestTo()). */
  resolve: ((result: Record<string, unknown>) => void) | undefined
  reject: ((error: McpxError) => void) | undefined
  receiver: AnswerReceiver | undefined
  readonly #queue: DeadlineQueue | undefined

  constructor(
    readonly hooks: PeerHooks,
    readonly id: RequestId,
    readonly method: string,
    readonly mode: CancelMode,
    readonly abort: AbortController | undefined,
    readonly timeoutMs: number,
    readonly signal: AbortSignal | undefined,
    readonly progressToken: string | number | undefined,
  ) {
    this.#queue = timeoutMs > 0 ? hooks.deadlines(timeoutMs) : undefined
  }

  /** The caller's signal aborted. */
  handleEvent(): void {
    this.hooks.cancel(this.id, cancelledError(this.method, this.signal?.reason), this.mode, this.abort)
  }

  /** The deadline passed. */
  expire(): void {
    deadlinePassed(this)
  }

  /** Restart the deadline (progress arrived, or the peer just got an answer from us). */
  rearm(): void {
    this.#queue?.add(this)
  }

  cleanup(): void {
    if (this.#queue !== undefined) {
      this.#queue.delete(this)
      this.hooks.released(this.#queue)
    }
    this.signal?.removeEventListener('abort', this)
    if (this.progressToken !== undefined) this.hooks.dropProgress(this.progressToken)
  }

  succeed(result: Record<string, unknown>): void {
    if (this.receiver !== undefined) this.receiver.answered(result)
    else this.resolve!(result)
  }

  fail(error: McpxError): void {
    if (this.receiver !== undefined) this.receiver.failed(error)
    else this.reject!(error)
  }
}

function deadlinePassed(pending: Pending): void {
  // While we are answering the peer (e.g. a person filling an elicitation mid-call), its silence
  // is our doing: the deadline waits (a timer that ran on would cut a long, legitimate exchange).
  if (pending.hooks.serving()) return pending.rearm()
  const { method, timeoutMs } = pending
  pending.hooks.cancel(
    pending.id,
    new McpxError('TIMEOUT', `${method} got no answer within ${timeoutMs} ms`, { method, timeoutMs }),
    pending.mode,
    pending.abort,
  )
}

export function cancelledError(method: string, reason: unknown): McpxError {
  if (reason instanceof McpxError) return reason
  return new McpxError('CANCELLED', `${method} was cancelled`, { method })
}
