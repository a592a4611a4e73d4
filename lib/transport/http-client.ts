/**
 * The client end of Streamable HTTP, both eras (2025-11-25 basic/transports.mdx "Streamable HTTP"; 2026-07-28
 * basic/transports/streamable-http.mdx): one POST per message, answered with JSON or its own SSE stream.
 * No whole-response timeout (it would also cut every SSE response that outlives it): the caller's signal is the
 * deadline, and aborting it closes that request's stream. Legacy sessions (2025-11-25 basic/transports.mdx "Session
 * Management"): the id comes only from the response carrying a successful InitializeResult, is echoed on every later
 * request and DELETEd on close; a 2025-11-25 stream cut before its response resumes with GET + Last-Event-ID after
 * the server's `retry` ("Resumability and Redelivery").
 */
import { McpxError, RPC } from '../errors/index.ts'
import { log } from '../log/index.ts'
import type { Settings } from '../settings/index.ts'
import { HTTP_STATUS, POST_ACCEPT_HEADER, HEADER, MIME, type JsonRpcMessage, type RequestId, isRequest, isResponse } from '../wire/index.ts'
import { decodeMessages, quote } from './decode-messages.ts'
import {
  type FetchPolicySettings,
  fetchPolicyOf,
  contentTypeOf,
  type FetchContext,
  type FetchFunction,
  fetchWithAuth,
  headerValue,
  httpError,
  readTextCapped,
} from './http-fetch.ts'
import type { SseEvent } from './sse-parser.ts'
import { readResumingStream } from './sse-resume.ts'
import { createListenStream } from './http-listen-stream.ts'
import type { AuthProvider, SendOptions, Transport, TransportHandlers } from './contract.ts'

// 2025-11-25 basic/transports.mdx "Session Management": the session id MUST be visible ASCII (0x21-0x7E) only.
const SESSION_ID_SYNTAX = /^[\x21-\x7e]+$/

export interface HttpTransportParams {
  url: string
  /** Static headers from config (e.g. an API key); per-message headers and auth win over them. */
  headers?: Record<string, string>
  auth?: AuthProvider
  /** Used instead of the global fetch for every request (e.g. lib/replay's recordingFetch). */
  fetch?: FetchFunction
}

export interface HttpTransport extends Transport {
  readonly kind: 'streamable-http'
  readonly url: string
  /** Legacy session id, set only by a successful initialize response. */
  readonly sessionId: string | undefined
  /** Forget the session (a legacy client that gets 404 for its session id MUST start a new one with initialize). */
  resetSession(): void
  /**
   * Open the optional standalone GET stream for legacy server-initiated messages (list_changed, resources/updated
   * and server requests outside any POST arrive only there: 2025-11-25 basic/transports.mdx "Listening for Messages
   * from the Server").
   * Resolves true once the server answers the GET with a stream (Bun's fetch may surface that only
   * with the first body bytes, so do not await it on a critical path), false on 405 (not offered).
   * Reconnects while open; stops on `signal` abort or close().
   */
  openListenStream(options?: { signal?: AbortSignal }): Promise<boolean>
  /**
   * After a new session started (resetSession, then initialize): the stream opened for the old one,
   * if any was, is closed and opened again for the new one, in the background.
   */
  renewListenStream(): void
  /** `listener` is told when the standalone stream finds the session refused as expired (sessionRefused). */
  onSessionRefused(listener: () => void): void
}

type HttpSettings = Pick<
  Settings,
  'maxFrameBytes' | 'authMaxRetries' | 'sseRetryMs' | 'sseMaxReconnects' | 'httpCloseTimeoutMs' | 'httpBodyReadBytes'
> &
  FetchPolicySettings

/** One POST and whatever answers it. */
interface Exchange {
  requestId?: RequestId
  /** Mcp-Session-Id of an initialize response, adopted once its result (not an error) arrives. */
  sessionCandidate?: string
  responded: boolean
  signal: AbortSignal
}

export function createHttpTransport(params: HttpTransportParams, settings: HttpSettings): HttpTransport {
  const url = params.url
  const ctx: FetchContext = {
    url,
    auth: params.auth,
    authMaxRetries: settings.authMaxRetries,
    ...fetchPolicyOf(settings),
    ...(params.fetch !== undefined && { fetch: params.fetch }),
  }
  const lifetime = new AbortController()
  const background = new Set<Promise<void>>()
  let handlers: TransportHandlers | undefined
  let sessionId: string | undefined
  // The MCP-Protocol-Version last given with a message, repeated on GET and DELETE (2025-06-18+).
  let protocolVersion: string | undefined
  let closed = false
  let closing: Promise<void> | undefined

  function report(error: McpxError): void {
    log.warn(`${url}: ${error.message}`)
    handlers?.onError?.(error)
  }

  function deliver(message: JsonRpcMessage, exchange?: Exchange): void {
    if (exchange && isResponse(message) && message.id === exchange.requestId) {
      exchange.responded = true
      if (exchange.sessionCandidate !== undefined && 'result' in message) sessionId = exchange.sessionCandidate
    }
    try {
      handlers?.onMessage(message)
    } catch (error) {
      log.error(`${url}: message handler threw`, error)
    }
  }

  function deliverText(text: string, source: string, exchange?: Exchange): void {
    const { messages, errors } = decodeMessages(text, source)
    for (const error of errors) report(error)
    for (const message of messages) deliver(message, exchange)
  }

  function track(task: Promise<void>): void {
    const guarded = task.catch((error) => report(error instanceof McpxError ? error : new McpxError('CONNECT', `${url}: ${String(error)}`)))
    background.add(guarded)
    void guarded.finally(() => background.delete(guarded))
  }

  function streamHeaders(lastEventId?: string, session = sessionId): Headers {
    const headers = new Headers(params.headers)
    headers.set('Accept', MIME.SSE)
    if (session) headers.set(HEADER.SESSION_ID, session)
    if (protocolVersion) headers.set(HEADER.PROTOCOL_VERSION, protocolVersion)
    if (lastEventId) headers.set(HEADER.LAST_EVENT_ID, lastEventId)
    return headers
  }

  /** GET an SSE stream; undefined (after reporting) when the server declines with anything but 405. */
  async function getStream(
    signal: AbortSignal,
    lastEventId?: string,
    session?: string,
  ): Promise<Response | typeof HTTP_STATUS.METHOD_NOT_ALLOWED> {
    const response = await fetchWithAuth(ctx, { method: 'GET', headers: streamHeaders(lastEventId, session ?? sessionId), signal })
    if (response.status === HTTP_STATUS.METHOD_NOT_ALLOWED) {
      await response.body?.cancel().catch(() => {})
      return HTTP_STATUS.METHOD_NOT_ALLOWED
    }
    if (!response.ok || contentTypeOf(response) !== MIME.SSE) {
      const { text } = await readTextCapped(response, settings.httpBodyReadBytes)
      const sentSession = (session ?? sessionId) !== undefined
      throw httpError(
        { url, method: 'GET' },
        response,
        text ?? '',
        response.ok ? { reason: 'not an event stream' } : { sessionExpired: sentSession && sessionRefused(response.status, text ?? '') },
      )
    }
    return response
  }

  /** One exchange's SSE stream (or the listen stream), resumed by GET + Last-Event-ID (sse-resume.ts). */
  function pump(
    first: Response,
    signal: AbortSignal,
    onEvent: (event: SseEvent) => void,
    more: (lastEventId: string) => boolean,
    describe: string,
    session?: string,
  ): Promise<void> {
    return readResumingStream(first, {
      url,
      describe,
      signal,
      settings,
      onEvent,
      more,
      report,
      isClosed: () => closed,
      reopen: (lastEventId) => getStream(signal, lastEventId, session),
    })
  }

  async function answerStream(response: Response, exchange: Exchange, method: string): Promise<void> {
    const describe = `stream of ${method} (id ${String(exchange.requestId)})`
    await pump(
      response,
      exchange.signal,
      (event) => {
        // Priming events carry an id and empty data (2025-11-25); only `message` events hold JSON-RPC.
        if (event.event === 'message' && event.data.trim() !== '') deliverText(event.data, `SSE event on the ${describe}`, exchange)
      },
      (lastEventId) => {
        if (exchange.requestId === undefined || exchange.responded) return false
        if (lastEventId !== '') return true
        throw new McpxError('CONNECT', `${describe} ended before its response and cannot be resumed (no event id)`, {
          url,
          requestId: exchange.requestId,
        })
      },
      describe,
      // Resuming an initialize's stream happens before its session id is adopted.
      exchange.sessionCandidate,
    ).catch((error: unknown) => {
      if (exchange.signal.aborted || closed) return
      const mcpx = error instanceof McpxError ? error : new McpxError('CONNECT', `${describe}: ${String(error)}`, { url })
      const message = mcpx.message.includes(describe) ? mcpx.message : `${describe}: ${mcpx.message}`
      report(new McpxError(mcpx.code, message, { ...mcpx.data, requestId: exchange.requestId }, { cause: mcpx }))
      // Its answer can no longer come: the request fails now (not at its deadline), as one that may
      // have run — at most once, it is not re-sent.
      if (exchange.requestId !== undefined && !exchange.responded) {
        deliver(
          {
            jsonrpc: '2.0',
            id: exchange.requestId,
            error: {
              code: RPC.INTERNAL_ERROR,
              message: `${message}; the request may or may not have run and was not re-sent`,
              data: { mcpxCode: mcpx.code, inFlight: true },
            },
          },
          exchange,
        )
      }
    })
  }

  /** A non-2xx answer: a JSON-RPC response with an id in it is delivered; anything else rejects send(). */
  async function failure(response: Response, exchange: Exchange, sentSession: boolean): Promise<void> {
    const { text } = await readTextCapped(response, settings.httpBodyReadBytes)
    const body = text ?? ''
    let rpcError: unknown
    if (body.trim().startsWith('{') || body.trim().startsWith('[')) {
      const { messages } = decodeMessages(body, `HTTP ${response.status} body`)
      const answers = messages.filter((m) => isResponse(m) && m.id !== null)
      if (answers.length > 0) {
        for (const message of messages) deliver(message, exchange)
        return
      }
      rpcError = messages.find((m) => isResponse(m) && 'error' in m)
    }
    throw httpError({ url, method: 'POST' }, response, body, {
      sessionExpired: sentSession && sessionRefused(response.status, body),
      ...(rpcError ? { rpcError: (rpcError as { error: unknown }).error } : {}),
    })
  }

  async function send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    if (closed || !handlers) throw new McpxError('CONNECT', `HTTP transport to ${url} is ${closed ? 'closed' : 'not started'}`, { url })
    if (options?.signal?.aborted) throw new McpxError('CANCELLED', `send to ${url} cancelled before it started`, { url })
    const signal = options?.signal ? AbortSignal.any([options.signal, lifetime.signal]) : lifetime.signal
    const version = headerValue(options?.headers, HEADER.PROTOCOL_VERSION)
    if (version) protocolVersion = version
    const method = isRequest(message) ? message.method : 'method' in message ? message.method : 'response'
    const isInitialize = isRequest(message) && message.method === 'initialize'
    const headers = new Headers(params.headers)
    headers.set('Accept', POST_ACCEPT_HEADER)
    headers.set('Content-Type', MIME.JSON)
    // A new initialize starts a new session: never offer the old id (2025-11-25 basic/transports.mdx "Session Management").
    if (sessionId && !isInitialize) headers.set(HEADER.SESSION_ID, sessionId)
    for (const [name, value] of Object.entries(options?.headers ?? {})) headers.set(name, value)
    const sentSession = headers.has(HEADER.SESSION_ID)

    const response = await fetchWithAuth(ctx, { method: 'POST', headers, body: JSON.stringify(message), signal })
    const minted = response.headers.get(HEADER.SESSION_ID) ?? undefined
    if (minted !== undefined && !SESSION_ID_SYNTAX.test(minted))
      log.warn(`${url}: ignoring malformed ${HEADER.SESSION_ID} ${JSON.stringify(minted)}`)
    const exchange: Exchange = {
      requestId: isRequest(message) ? message.id : undefined,
      sessionCandidate: isInitialize && response.ok && minted !== undefined && SESSION_ID_SYNTAX.test(minted) ? minted : undefined,
      responded: false,
      signal,
    }
    if (!response.ok) return failure(response, exchange, sentSession)
    const type = contentTypeOf(response)
    if (type === MIME.SSE) {
      track(answerStream(response, exchange, method))
      return
    }
    if (response.status === HTTP_STATUS.ACCEPTED || response.status === HTTP_STATUS.NO_CONTENT) {
      await response.body?.cancel().catch(() => {})
      return
    }
    const { text, bytes } = await readTextCapped(response, settings.maxFrameBytes)
    if (text === undefined) {
      throw new McpxError('PROTOCOL', `${method} response body from ${url} exceeds maxFrameBytes (${settings.maxFrameBytes})`, {
        url,
        bytes,
        maxFrameBytes: settings.maxFrameBytes,
        requestId: exchange.requestId,
      })
    }
    if (text.trim() === '') {
      // Nothing to deliver for a notification or a response; a request's answer can no longer come
      // (2025-11-25 basic/transports.mdx: a request gets a JSON body or an SSE stream), so it fails
      // now rather than at its deadline. It reached the server: it may have run.
      if (exchange.requestId === undefined) return
      throw new McpxError(
        'PROTOCOL',
        `POST ${url} answered ${method} with HTTP ${response.status} and an empty body, not its response; the request may or may not have run and was not re-sent`,
        { url, httpStatus: response.status, requestId: exchange.requestId, inFlight: true },
      )
    }
    if (type !== MIME.JSON && !(type === '' && /^\s*[[{]/.test(text))) {
      throw httpError({ url, method: 'POST' }, response, text, {
        reason: `Content-Type ${JSON.stringify(type)}, neither ${MIME.JSON} nor ${MIME.SSE}`,
      })
    }
    deliverText(text, `${method} response body`, exchange)
  }

  const listenStream = createListenStream({
    url,
    lifetime: lifetime.signal,
    isOpen: () => !closed && handlers !== undefined,
    getStream,
    track,
    read: (signal, first) =>
      pump(
        first,
        signal,
        (event) => {
          if (event.event === 'message' && event.data.trim() !== '') deliverText(event.data, 'SSE event on the standalone GET stream')
        },
        () => true,
        'standalone GET stream',
      ),
  })

  async function deleteSession(): Promise<void> {
    if (!sessionId) return
    const headers = new Headers(params.headers)
    headers.set(HEADER.SESSION_ID, sessionId)
    if (protocolVersion) headers.set(HEADER.PROTOCOL_VERSION, protocolVersion)
    try {
      // 2025-11-25 basic/transports.mdx "Session Management": the client SHOULD DELETE; 405 means the server keeps it.
      const response = await fetchWithAuth(ctx, { method: 'DELETE', headers, signal: AbortSignal.timeout(settings.httpCloseTimeoutMs) })
      await response.body?.cancel().catch(() => {})
    } catch (error) {
      log.debug(`${url}: DELETE of session failed: ${quote(String((error as Error).message ?? error))}`)
    }
    sessionId = undefined
  }

  return {
    kind: 'streamable-http',
    url,
    get sessionId() {
      return sessionId
    },
    resetSession() {
      sessionId = undefined
    },
    async start(h) {
      if (handlers) throw new McpxError('INTERNAL', 'HTTP transport started twice')
      try {
        new URL(url)
      } catch {
        throw new McpxError('CONFIG', `not a URL: ${JSON.stringify(url)}`, { url })
      }
      handlers = h
    },
    send,
    openListenStream: (options) => listenStream.open(options),
    renewListenStream: () => listenStream.renew(),
    onSessionRefused: (listener) => listenStream.onSessionRefused(listener),
    close() {
      if (closing) return closing
      closed = true
      lifetime.abort()
      closing = (async () => {
        await Promise.allSettled([...background])
        await deleteSession()
        handlers?.onClose()
      })()
      return closing
    },
  }
}

/**
 * Whether an error answer to a request that carried a session id says the server no longer knows
 * that session. 2025-11-25 basic/transports.mdx "Session Management": the server MUST answer 404.
 * Servers built on the SDK's example code answer 400 instead once they have lost the session (a
 * restart): "Bad Request: No valid session ID provided", or "Server not initialized". Read
 * liberally that is the same loss, and starting a new session once is safe: the request was
 * refused before it ran (a second refusal after it is an ordinary error).
 */
function sessionRefused(status: number, body: string): boolean {
  return status === HTTP_STATUS.NOT_FOUND || (status === HTTP_STATUS.BAD_REQUEST && SESSION_REFUSAL.test(body))
}

const SESSION_REFUSAL = /session|not initiali[sz]ed/i
