/**
 * One JSON-RPC message POSTed to the endpoint, either era: a notification or response is 202; a
 * request's answer is JSON unless the call emits something first (progress, logs, a legacy
 * server→client request, a listen ack, a closeStream), and then the response becomes an SSE stream
 * (2025-11-25 basic/transports.mdx "Sending Messages to the Server": primed and resumable). The
 * switch is decided by whichever comes first, the answer or the first message to stream.
 * startAnswer begins it and leaves the one wait to its caller (the handler's own async frame:
 * every request comes here, and each frame and hop between the answer and Bun costs), whose
 * `response()` then builds what goes out; answerOrStream does both for callers that need no such care.
 */
import { RPC, RpcError } from '../../errors/index.ts'
import { hasFeature, HTTP_STATUS, isRequest, parseMessage, recoverId, type JsonRpcMessage } from '../../wire/index.ts'
import type { Connection, Outlet } from '../connection.ts'
import { type Answer, type AnswerSink, type Channel, SETTLED_THROUGH_CHANNEL } from '../engine.ts'
import { jsonResponse, rpcErrorResponse } from './body.ts'
import type { HandlerContext, LegacySession } from './handler-context.ts'
import { sessionOutlet } from './session-lifecycle.ts'
import { openSseStream, type SseStream } from './sse-stream.ts'

export interface AnswerOptions {
  era: 'legacy' | 'modern'
  headers: Record<string, string>
  /** `headers` with the JSON Content-Type, built once (body.ts jsonHeaders). */
  jsonHeaders?: Headers
  session?: LegacySession
}

/** One JSON-RPC message: 202 for notifications/responses, JSON or SSE for a request. */
export async function answerOrStream(
  ctx: HandlerContext,
  request: Request,
  raw: unknown,
  connection: Connection,
  opts: AnswerOptions,
): Promise<Response> {
  const started = startAnswer(ctx, request, raw, connection, opts)
  if (!(started instanceof CallOutlet)) return started
  return started.response(await started.first)
}

/**
 * Begin answering one message: the Response when it is known at once (a refusal, or the 202 of a
 * notification or response), else the call's outlet, whose `first` says what comes first and
 * whose `response(first)` is then the Response.
 */
export function startAnswer(
  ctx: HandlerContext,
  request: Request,
  raw: unknown,
  connection: Connection,
  opts: AnswerOptions,
): Response | Promise<Response> | CallOutlet {
  const { engine } = ctx
  let message: JsonRpcMessage
  try {
    message = parseMessage(raw)
  } catch (error) {
    return rpcErrorResponse(HTTP_STATUS.BAD_REQUEST, error as RpcError, recoverId(raw))
  }
  if (!isRequest(message)) {
    return engine
      .answer(message, { connection, outlet: sessionOutlet(opts.session), era: opts.era })
      .then(() => new Response(null, { status: HTTP_STATUS.ACCEPTED, headers: opts.headers }))
  }
  // 2026-07-28: closing the response stream is cancellation; legacy: it is not (2025-11-25 transports.mdx).
  const cancel = opts.era === 'modern' ? new AbortController() : undefined
  if (cancel)
    request.signal.addEventListener('abort', () => cancel.abort(new RpcError(RPC.INTERNAL_ERROR, 'client closed the stream')), {
      once: true,
    })

  // Whichever comes first: the answer (a JSON response) or something to stream before it (SSE).
  const outlet = new CallOutlet(ctx, opts, cancel)
  const channel: Channel = {
    connection,
    outlet,
    principal: ctx.options.principalOf?.(request),
    // No object spread per request: a legacy call has no signal of its own.
    signal: cancel?.signal,
    era: opts.era,
    closeStream: outlet.closeStream,
    settle: outlet,
  }
  const answering = engine.answer(message, channel)
  if (answering !== SETTLED_THROUGH_CHANNEL)
    answering.then(
      (answer) => outlet.answered(answer),
      (error: unknown) => outlet.failed(error),
    )
  return outlet
}

/**
 * The call's own stream until its answer, one object per request: messages sent before the answer
 * queue here and make the response SSE (`first` settles with 'stream'), then go straight to the SSE
 * stream. The answer comes here too (the channel's `settle`, or the engine's promise): first, it is
 * the JSON response; after a stream began, its last event.
 */
export class CallOutlet implements Outlet, AnswerSink {
  readonly first: Promise<Answer | 'stream'>
  readonly #settleFirst: (first: Answer | 'stream') => void
  readonly #failFirst: (error: unknown) => void
  #stream: SseStream | undefined
  #queued: JsonRpcMessage[] | undefined
  #streaming = false
  #closeAsked = false
  /** The answer, when it came after the stream was chosen and before it was attached. */
  #final: Answer | undefined

  constructor(
    private readonly ctx: HandlerContext,
    private readonly opts: AnswerOptions,
    private readonly cancel: AbortController | undefined,
  ) {
    const { promise, resolve, reject } = Promise.withResolvers<Answer | 'stream'>()
    this.first = promise
    this.#settleFirst = resolve
    this.#failFirst = reject
  }

  send(message: JsonRpcMessage): void {
    if (this.#stream) this.#stream.send(message)
    else {
      ;(this.#queued ??= []).push(message)
      this.#upgrade()
    }
  }

  /** Legacy 2025-11-25: end the stream now (a bound arrow: the channel hands it to the handler context). */
  readonly closeStream = (): void => {
    this.#closeAsked = true
    if (this.#stream) this.#stream.closeMidStream()
    else this.#upgrade()
  }

  answered(answer: Answer): void {
    if (!this.#streaming) return this.#settleFirst(answer)
    if (this.#stream) this.#end(this.#stream, answer)
    else this.#final = answer
  }

  failed(error: unknown): void {
    if (!this.#streaming) this.#failFirst(error)
    else this.answered({ httpStatus: HTTP_STATUS.INTERNAL_SERVER_ERROR })
  }

  /** What goes out once `first` settled: the answer as JSON (or a bare 202), or the SSE stream it became. */
  response(first: Answer | 'stream'): Response {
    const { opts } = this
    if (first !== 'stream') {
      return first.message
        ? jsonResponse(first.message, first.httpStatus, opts.headers, opts.jsonHeaders)
        : new Response(null, { status: HTTP_STATUS.ACCEPTED, headers: opts.headers })
    }
    const { settings } = this.ctx
    const cancel = this.cancel
    const sse = openSseStream({
      sseKeepAliveMs: settings.sseKeepAliveMs,
      retryMs: settings.sseRetryMs,
      // Primed, numbered events that survive a dropped connection (2025-11-25 only, SEP-1699).
      store: opts.session && hasFeature(opts.session.revision, 'ssePolling') ? opts.session.events : undefined,
      headers: opts.headers,
      onAbort: () => cancel?.abort(new RpcError(RPC.INTERNAL_ERROR, 'client closed the stream')),
    })
    this.#stream = sse
    for (const m of this.#queued ?? []) sse.send(m)
    if (this.#closeAsked) sse.closeMidStream()
    if (this.#final !== undefined) this.#end(sse, this.#final)
    return sse.response
  }

  #upgrade(): void {
    if (this.#streaming) return
    this.#streaming = true
    this.#settleFirst('stream')
  }

  #end(sse: SseStream, answer: Answer): void {
    if (answer.message) sse.send(answer.message)
    sse.end()
  }
}
