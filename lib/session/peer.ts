/**
 * The client's request correlation engine: one JSON-RPC peer over one Transport (lib/client's
 * McpClient runs on it). The server engine keeps its own small table (server/connection.ts),
 * because a server's requests to the client ride the asking call's own stream (an outlet per
 * call: a POST's SSE response, stdout), not one Transport, and its deadlines are the call's. Ids are
 * monotonic (never reused); deadlines are local TIMEOUT errors (2026-07-28 basic/index.mdx: local
 * errors wear no JSON-RPC code); cancellation is a notification or a stream abort, per request;
 * progress is routed by token; the transport's close fails every pending request with its reason.
 */
import { McpxError, RpcError, toRpcError } from '../errors/index.ts'
import { log } from '../log/index.ts'
import { SENT, type SendOptions, type Transport } from '../transport/index.ts'
import { DeadlineQueue } from './deadlines.ts'
import { lostInFlight } from './in-flight.ts'
import { type AnswerReceiver, Pending, type PeerHooks, cancelledError } from './pending.ts'
import {
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type RequestId,
  isErrorResponse,
  isNotification,
  isRequest,
  isResponse,
  makeError,
  makeNotification,
  makeRequest,
  makeResult,
  methodNotFound,
} from '../wire/index.ts'
import type {
  CancelMode,
  IncomingRequestContext,
  NotificationListener,
  PeerOptions,
  ProgressUpdate,
  RequestHandler,
  RequestOptions,
} from './peer-options.ts'

export class Peer {
  #nextId = 1
  #pending = new Map<RequestId, Pending>()
  #progress = new Map<string | number, { pendingId: RequestId; onProgress: (u: ProgressUpdate) => void; touch(): void }>()
  #handlers = new Map<string, RequestHandler>()
  #fallbackHandler?: (method: string, params: Record<string, unknown>, context: IncomingRequestContext) => Promise<Record<string, unknown>>
  #listeners = new Map<string, Set<NotificationListener>>()
  #anyListeners = new Set<NotificationListener>()
  #incoming = new Map<RequestId, AbortController>()
  #closed = false
  /** Incoming requests being handled right now. */
  #serving = 0
  #closeReason?: McpxError
  #closeWaiters: ((reason?: McpxError) => void)[] = []
  /**
   * The deadlines of pending requests, one queue per bound. Most requests share the peer's default,
   * whose queue stays; a queue of another bound goes once it is empty, so a caller's many bounds
   * leave nothing behind.
   */
  readonly #deadlines = new Map<number, DeadlineQueue>()
  readonly #hooks: PeerHooks = {
    cancel: (id, error, mode, abort) => this.#cancel(id, error, mode, abort),
    serving: () => this.#serving > 0,
    dropProgress: (token) => this.#progress.delete(token),
    deadlines: (ms) => {
      let queue = this.#deadlines.get(ms)
      if (queue === undefined) this.#deadlines.set(ms, (queue = new DeadlineQueue(ms)))
      return queue
    },
    released: (queue) => {
      if (queue.size === 0 && queue.ms !== this.options.requestTimeoutMs && this.#deadlines.get(queue.ms) === queue)
        this.#deadlines.delete(queue.ms)
    },
  }

  constructor(
    readonly transport: Transport,
    private readonly options: PeerOptions,
  ) {}

  get closed(): boolean {
    return this.#closed
  }
  get closeReason(): McpxError | undefined {
    return this.#closeReason
  }
  get pendingCount(): number {
    return this.#pending.size
  }

  async start(): Promise<void> {
    await this.transport.start({
      onMessage: (m) => this.#receive(m),
      onClose: (reason) => this.#onClose(reason),
      onError: (error) => this.#malformedAnswer(error),
    })
  }

  /** Resolves when the transport has closed (with the unexpected-close reason, if any). */
  whenClosed(): Promise<McpxError | undefined> {
    if (this.#closed) return Promise.resolve(this.#closeReason)
    return new Promise((resolve) => this.#closeWaiters.push(resolve))
  }

  /** Register the handler for one incoming request method (replaces an earlier one). */
  handle(method: string, handler: RequestHandler): void {
    this.#handlers.set(method, handler)
  }
  /** Handler for methods with no specific handler (the default answers -32601). */
  handleOthers(
    handler: (method: string, params: Record<string, unknown>, context: IncomingRequestContext) => Promise<Record<string, unknown>>,
  ): void {
    this.#fallbackHandler = handler
  }

  /** Listen for one notification method ('*' = all); returns an unsubscribe function. */
  on(method: string, listener: NotificationListener): () => void {
    if (method === '*') {
      this.#anyListeners.add(listener)
      return () => this.#anyListeners.delete(listener)
    }
    let set = this.#listeners.get(method)
    if (!set) this.#listeners.set(method, (set = new Set()))
    set.add(listener)
    return () => set.delete(listener)
  }

  /** Send a request and wait for its result; JSON-RPC errors reject as RpcError. */
  request(method: string, params: Record<string, unknown> | undefined, options: RequestOptions = {}): Promise<Record<string, unknown>> {
    if (this.#closed) return Promise.reject(this.#closeReason ?? new McpxError('CONNECT', 'connection is closed', { method }))
    if (options.signal?.aborted) return Promise.reject(cancelledError(method, options.signal.reason))
    const id = this.#allocateId()
    options.onId?.(id)
    let body = params
    let progressToken: string | number | undefined
    if (options.onProgress) {
      // The token only has to be unique among active requests (progress.mdx); the id already is.
      progressToken = id
      const meta = { ...((params?._meta as Record<string, unknown> | undefined) ?? {}), progressToken }
      body = { ...(params ?? {}), _meta: meta }
    }
    const message = makeRequest(id, method, body)
    const mode = options.cancel ?? this.options.cancelMode ?? 'notify'
    // Only an 'abort' cancel has anything to abort (the HTTP exchange); stdio sends need no signal.
    const abort = mode === 'abort' ? new AbortController() : undefined
    const timeoutMs = options.timeoutMs ?? this.options.requestTimeoutMs
    let headers: Record<string, string> | undefined
    try {
      const derived = this.options.headersFor?.(message)
      headers = options.headers === undefined ? derived : { ...derived, ...options.headers }
    } catch (error) {
      return Promise.reject(asError(error, method))
    }

    const pending = new Pending(this.#hooks, id, method, mode, abort, timeoutMs, options.signal, progressToken)
    const answered = new Promise<Record<string, unknown>>((resolve, reject) => {
      pending.resolve = resolve
      pending.reject = reject
    })
    if (progressToken !== undefined && options.onProgress) {
      const touch = this.options.resetTimeoutOnProgress === false ? () => {} : () => pending.rearm()
      this.#progress.set(progressToken, { pendingId: id, onProgress: options.onProgress, touch })
    }
    // An abort event fires once and cleanup() removes the listener: no `once` option (Bun parses it on every call).
    options.signal?.addEventListener('abort', pending)
    this.#launch(pending, message, headers)
    return answered
  }

  /**
   * request() for a caller that takes the outcome on `receiver` instead of a promise, with the
   * peer's default cancel mode and no progress: the same id, deadline and bookkeeping, and
   * cancellation by id (cancel()). Returns the id; a closed peer fails the receiver on a later turn.
   */
  requestTo(
    method: string,
    params: Record<string, unknown>,
    receiver: AnswerReceiver,
    timeoutMs = this.options.requestTimeoutMs,
  ): RequestId {
    const id = this.#allocateId()
    if (this.#closed) {
      const reason = this.#closeReason ?? new McpxError('CONNECT', 'connection is closed', { method })
      queueMicrotask(() => receiver.failed(reason))
      return id
    }
    const message = makeRequest(id, method, params)
    const mode = this.options.cancelMode ?? 'notify'
    const abort = mode === 'abort' ? new AbortController() : undefined
    let headers: Record<string, string> | undefined
    try {
      headers = this.options.headersFor?.(message)
    } catch (error) {
      queueMicrotask(() => receiver.failed(asError(error, method)))
      return id
    }
    const pending = new Pending(this.#hooks, id, method, mode, abort, timeoutMs, undefined, undefined)
    pending.receiver = receiver
    this.#launch(pending, message, headers)
    return id
  }

  /** What request() and requestTo() do once their request is ready: it waits from now, and goes out. */
  #launch(pending: Pending, message: JsonRpcRequest, headers: Record<string, string> | undefined): void {
    this.#pending.set(pending.id, pending)
    pending.rearm()
    const { abort } = pending
    const options = headers === undefined && abort === undefined ? NO_SEND_OPTIONS : { headers, signal: abort?.signal }
    const sending = this.transport.send(message, options)
    // Written at once (stdio's usual case): nothing can fail later, so nothing waits for it.
    if (sending === SENT) return
    sending.catch((error: unknown) => {
      // A send failure (HTTP status, spawn gone) fails this request; a late failure after the
      // answer arrived is moot.
      this.#settle(pending.id, undefined, asError(error, pending.method))
    })
  }

  /**
   * Cancel the pending request `id` as its caller's abort signal would (a caller that passed none,
   * and knows the id from `onId`): it fails with `reason`, and the peer hears of it as the request's
   * cancel mode says. Nothing happens once it has its answer.
   */
  cancel(id: RequestId, reason?: unknown): void {
    const pending = this.#pending.get(id)
    if (pending !== undefined) this.#cancel(id, cancelledError(pending.method, reason), pending.mode, pending.abort)
  }

  /** Send a notification. */
  async notify(method: string, params?: Record<string, unknown>, headers?: Record<string, string>): Promise<void> {
    if (this.#closed) throw this.#closeReason ?? new McpxError('CONNECT', 'connection is closed', { method })
    const message = makeNotification(method, params)
    await this.transport.send(message, { headers: { ...this.options.headersFor?.(message), ...headers } })
  }

  /** Send any message as is (e.g. a response produced elsewhere). */
  async send(message: JsonRpcMessage, headers?: Record<string, string>): Promise<void> {
    await this.transport.send(message, { headers: { ...this.options.headersFor?.(message), ...headers } })
  }

  async close(): Promise<void> {
    await this.transport.close()
    // Transports call onClose from close(); make sure pending work fails even if one does not.
    this.#onClose(undefined)
  }

  #allocateId(): RequestId {
    let id = this.#nextId++
    while (this.#pending.has(id)) id = this.#nextId++
    return id
  }

  #cancel(id: RequestId, error: McpxError, mode: CancelMode, abort: AbortController | undefined): void {
    const pending = this.#pending.get(id)
    if (!pending) return
    this.#settle(id, undefined, error)
    if (mode === 'abort') abort?.abort(error)
    else if (mode === 'notify' && !this.#closed) {
      this.notify('notifications/cancelled', { requestId: id, reason: error.message }).catch((e) =>
        log.debug(`cancel of ${id} not delivered: ${e}`),
      )
    }
  }

  #settle(id: RequestId, result: Record<string, unknown> | undefined, error?: McpxError): void {
    const pending = this.#pending.get(id)
    if (!pending) return
    this.#pending.delete(id)
    pending.cleanup()
    if (error) pending.fail(error)
    else pending.succeed(result ?? {})
  }

  #receive(message: JsonRpcMessage): void {
    if (this.options.intercept?.(message)) return
    if (isResponse(message)) {
      const id = this.#pendingId(message.id)
      if (id === undefined) {
        log.debug(`response for unknown or finished request ${JSON.stringify(message.id)} ignored`)
        return
      }
      if (isErrorResponse(message)) this.#settle(id, undefined, RpcError.fromWire(message.error))
      else this.#settle(id, message.result)
      return
    }
    if (isRequest(message)) {
      if (this.options.answerRequests?.() === false) {
        log.warn(`ignored ${message.method} request from the peer: this connection sends no responses`)
        return
      }
      void this.#serve(message)
      return
    }
    if (isNotification(message)) this.#notified(message)
  }

  /**
   * The pending request a response's `id` names. Ids go out as numbers; a peer that echoes one
   * back as its decimal string (`"7"` for 7, as the official TypeScript SDK also accepts) is
   * matched too, rather than leaving the request to wait out its deadline.
   */
  #pendingId(id: RequestId | null): RequestId | undefined {
    if (id === null) return undefined
    if (this.#pending.has(id)) return id
    const other = typeof id === 'string' ? (DECIMAL.test(id) ? Number(id) : undefined) : String(id)
    return other !== undefined && this.#pending.has(other) ? other : undefined
  }

  /** A frame that answers a pending request but is no valid response (decode-messages.ts) fails that request, saying why. */
  #malformedAnswer(error: McpxError): void {
    const data = error.data as { id?: RequestId; response?: boolean } | undefined
    const id = data?.response === true && data.id !== undefined ? this.#pendingId(data.id) : undefined
    const pending = id === undefined ? undefined : this.#pending.get(id)
    if (pending === undefined) return
    this.#settle(
      id!,
      undefined,
      new McpxError('PROTOCOL', `${pending.method}: the answer is malformed: ${error.message}`, { ...data, method: pending.method }),
    )
  }

  #notified(message: JsonRpcNotification): void {
    const params = message.params ?? {}
    if (message.method === 'notifications/progress') {
      const entry = this.#progress.get(params.progressToken as string | number)
      if (entry) {
        entry.touch()
        try {
          entry.onProgress(params as unknown as ProgressUpdate)
        } catch (error) {
          log.warn(`progress listener failed: ${error}`)
        }
      }
    } else if (message.method === 'notifications/cancelled') {
      const requestId = params.requestId as RequestId | undefined
      if (requestId !== undefined) this.#incoming.get(requestId)?.abort(new McpxError('CANCELLED', 'the peer cancelled the request'))
    }
    for (const listener of [...(this.#listeners.get(message.method) ?? []), ...this.#anyListeners]) {
      try {
        listener(params, message)
      } catch (error) {
        log.warn(`listener for ${message.method} failed: ${error}`)
      }
    }
  }

  async #serve(message: JsonRpcRequest): Promise<void> {
    const abort = new AbortController()
    this.#incoming.set(message.id, abort)
    const context: IncomingRequestContext = { id: message.id, method: message.method, signal: abort.signal }
    this.#serving++
    let reply: JsonRpcMessage
    try {
      const handler = this.#handlers.get(message.method)
      const params = message.params ?? {}
      let result: Record<string, unknown>
      if (handler) result = await handler(params, context)
      else if (this.#fallbackHandler) result = await this.#fallbackHandler(message.method, params, context)
      else throw methodNotFound(message.method)
      reply = makeResult(message.id, result)
    } catch (error) {
      reply = makeError(message.id, toRpcError(error).toRpc())
    } finally {
      this.#incoming.delete(message.id)
    }
    this.#serving--
    // The peer was waiting on us: its deadline clock starts over from our answer.
    for (const pending of this.#pending.values()) pending.rearm()
    // A cancelled request gets no answer (cancellation.mdx: the receiver SHOULD NOT respond).
    if (abort.signal.aborted || this.#closed) return
    await this.send(reply).catch((error) => log.debug(`reply to ${message.id} not delivered: ${error}`))
  }

  #onClose(reason?: McpxError): void {
    if (this.#closed) return
    this.#closed = true
    this.#closeReason = reason
    const error = reason ?? new McpxError('CONNECT', 'connection closed')
    // At most once: a request the peer may already have acted on is failed, never re-sent; the
    // error says its outcome is unknown (only safe methods may be retried: resendable()).
    for (const [id, pending] of [...this.#pending]) this.#settle(id, undefined, lostInFlight(pending.method, error))
    for (const abort of this.#incoming.values()) abort.abort(error)
    for (const waiter of this.#closeWaiters.splice(0)) waiter(reason)
  }
}

/** Send options of a request with neither headers nor a stream to abort (stdio's usual case): one object for all. */
const NO_SEND_OPTIONS: SendOptions = Object.freeze({})

/** A request id written as a decimal string (#pendingId). */
const DECIMAL = /^-?\d+$/

function asError(error: unknown, method: string): McpxError {
  if (error instanceof McpxError) return error
  const message = error instanceof Error ? error.message : String(error)
  return new McpxError('CONNECT', `${method}: ${message}`, { method }, { cause: error })
}
