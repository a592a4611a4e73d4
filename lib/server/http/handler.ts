/**
 * The Streamable HTTP endpoint of a server: `fetch(Request) → Response`, serving both eras on one
 * URL (2026-07-28 basic/versioning.mdx "Backward Compatibility with Initialization-Based Versions"). It composes the
 * http/ building blocks (Origin/Host, body, classification,
 * 2026 header validation, sessions, SSE, event store) around the engine. A request's answer is JSON
 * unless the call emits something first (progress, logs, a legacy server→client request, a listen
 * ack): then the response becomes an SSE stream (2025-11-25: primed and resumable).
 */
import { RPC, RpcError } from '../../errors/index.ts'
import { DeadlineQueue } from '../../session/index.ts'
import type { Settings } from '../../settings/index.ts'
import {
  hasFeature,
  HTTP_STATUS,
  HEADER,
  META,
  MIME,
  isRequest,
  parseMessage,
  recoverId,
  restoreRawIds,
  type JsonRpcMessage,
  type LegacyRevision,
} from '../../wire/index.ts'
import type { Connection, Outlet } from '../connection.ts'
import type { Answer, Channel, Engine } from '../engine.ts'
import { SUPPORTED_REVISIONS } from '../lifecycle.ts'
import type { SessionSeed } from '../session-id.ts'
import { type AcceptMemo, type ReadBodyOptions, checkAccept, readJsonBody, rpcErrorResponse } from './body.ts'
import { classifyHttpRequest, headerValue, rejectResponse, type HttpVerdict } from './classify.ts'
import { EventStore, type StoredEvent } from './event-store.ts'
import { validateModernHeaders } from './modern-headers.ts'
import { checkOrigin, type OriginPolicy } from './origin.ts'
import { type SessionEndReason, SessionStore } from './sessions.ts'
import { openSseStream, replayClosedStream, resumeSseStream, type SseStream } from './sse-stream.ts'

export interface HttpHandlerOptions {
  readonly engine: Engine
  readonly settings: Settings
  /**
   * Host/Origin policy against DNS rebinding (2025-11-25 basic/transports.mdx "Security Warning":
   * servers MUST validate Origin); pass the bound port so loopback Hosts must name it.
   */
  readonly origin?: OriginPolicy
  /**
   * True when the embedder's own guard already decided Host, Origin and the POST media type (the
   * daemon: lib/daemon/security.ts owns them for both listeners): the handler runs no second rule.
   */
  readonly guarded?: boolean
  /**
   * The authenticated caller of a request (e.g. a digest of its verified token), when the embedder
   * authenticates: binds MRTR requestState to it and marks cacheable results private.
   */
  readonly principalOf?: (request: Request) => string | undefined
  /** Mints legacy session ids (default: random); replicas seal the seed into them (session-id.ts). */
  readonly newSessionId?: (seed: SessionSeed) => string
  /**
   * A session id this handler does not know: what it sealed, when it may be rebuilt here (replicas:
   * its owner is gone, it is not too old and not revoked); undefined answers 404 as usual.
   */
  readonly adoptSession?: (id: string) => SessionSeed | undefined | Promise<SessionSeed | undefined>
  /**
   * Replicas: a 2026 request that continues another replica's work (params.requestState of an
   * MRTR round, params.taskId of a task) — the owner's answer, or undefined to serve it here. Asked
   * only for requests carrying one of those, so other requests pay nothing.
   */
  readonly forwardModern?: (
    request: Request,
    body: string,
    params: Record<string, unknown>,
    method: string,
  ) => Promise<Response | undefined>
  /**
   * Replicas with Redis: a copy of every legacy session's SSE event buffer, so a GET with a
   * Last-Event-ID this replica never issued (the session's replica died) still replays what was missed.
   */
  readonly sharedEvents?: SharedEvents
  /** Asked on each request of a rebuilt session: true when another replica ended it since (shared revocation list). */
  readonly sessionRevoked?: (id: string) => Promise<boolean>
  /** Told when a legacy session opens (after a successful initialize) and when it ends, for logs. */
  readonly onSession?: (event: SessionEvent) => void
}

export interface SharedEvents {
  append(sessionId: string, event: StoredEvent): void
  /** The events of `lastEventId`'s stream after it, oldest first (none when unknown). */
  after(sessionId: string, lastEventId: string): Promise<StoredEvent[]>
}

export interface SessionEvent {
  /**
   * `discovered`: a stateless (2026-07-28) client's server/discover, the closest it has to a session
   * start; `adopted`: a sealed session another replica opened, rebuilt here.
   */
  readonly state: 'opened' | 'closed' | 'discovered' | 'adopted'
  /** Why a session closed (`closed` only). */
  readonly reason?: SessionEndReason
  readonly id: string
  readonly revision: string
  readonly client?: { readonly name: string; readonly version: string }
  /** The request that opened the session (`opened` only). */
  readonly request?: Request
}

export interface HttpHandler {
  fetch(request: Request): Promise<Response>
  /** End every session and stream. */
  close(): void
}

/** What a legacy session keeps between requests. */
interface LegacySession {
  connection: Connection
  revision: LegacyRevision
  events: EventStore
  standalone?: SseStream
  /** The authenticated caller that opened it (sealed into replica session ids). */
  principal?: string
  /** Rebuilt from a sealed id another replica minted (adoptSession). */
  adopted?: boolean
}

export function createHttpHandler(options: HttpHandlerOptions): HttpHandler {
  const { engine, settings } = options
  const acceptMemo: AcceptMemo = {}
  const bodyOptions: ReadBodyOptions = {
    maxFrameBytes: settings.maxFrameBytes,
    bodyTimeoutMs: settings.httpBodyTimeoutMs,
    maxJsonDepth: settings.maxJsonDepth,
    deadlines: new DeadlineQueue(settings.httpBodyTimeoutMs),
    ...(options.guarded && { mediaTypeChecked: true }),
  }
  const sessions = new SessionStore<LegacySession>({
    sessionIdleMs: settings.sessionIdleMs,
    maxSessions: settings.maxSessions,
    ...(options.newSessionId && { newId: (session: LegacySession) => options.newSessionId!(seedOf(session)) }),
    onEnd: (id, session, reason) => {
      session.standalone?.end()
      options.onSession?.({ state: 'closed', id, revision: session.revision, reason, ...clientOf(session.connection) })
      engine.disconnect(session.connection)
    },
  })

  async function handle(request: Request): Promise<Response> {
    if (!options.guarded) {
      const forbidden = checkOrigin(request, options.origin)
      if (forbidden) return forbidden
    }
    const sessionId = headerValue(request.headers, HEADER.SESSION_ID)
    let session = sessionId === undefined ? undefined : sessions.get(sessionId)
    if (
      sessionId !== undefined &&
      (session === undefined ? options.adoptSession !== undefined : session.adopted === true && options.sessionRevoked !== undefined)
    ) {
      session = await adoptOrRecheck(request, sessionId, session)
    }
    let body: unknown
    if (request.method === 'POST') {
      const read = await readJsonBody(request, bodyOptions)
      if (!read.ok) return read.response
      body = read.value
    }
    const verdict = classifyHttpRequest({
      method: request.method,
      headers: request.headers,
      body,
      supported: SUPPORTED_REVISIONS,
      sessionRevision: session?.revision,
      maxBatchLength: settings.maxBatchLength,
    })
    switch (verdict.kind) {
      case 'reject':
        return rejectResponse(verdict)
      case 'modern':
        return modern(request, verdict)
      case 'legacy-initialize':
        return initialize(request, verdict.message)
      case 'legacy-get':
      case 'legacy-delete':
      case 'legacy':
      case 'legacy-batch': {
        // 2025-11-25 "Session Management": every request after initialize names its session.
        if (verdict.sessionId === undefined)
          return rpcErrorResponse(
            HTTP_STATUS.BAD_REQUEST,
            new RpcError(RPC.INVALID_REQUEST, `Bad Request: the ${HEADER.SESSION_ID} header is required`),
            recoverId(body),
          )
        if (session === undefined)
          return rpcErrorResponse(HTTP_STATUS.NOT_FOUND, new RpcError(RPC.INVALID_REQUEST, 'Session not found'), recoverId(body))
        if (verdict.kind === 'legacy-delete') {
          sessions.delete(verdict.sessionId)
          return new Response(null, { status: HTTP_STATUS.NO_CONTENT })
        }
        const notAcceptable = checkAccept(request, session.revision, acceptMemo)
        if (notAcceptable) return notAcceptable
        if (verdict.kind === 'legacy-get') return await openGet(request, verdict.sessionId, session, verdict.lastEventId)
        const headers = { [HEADER.SESSION_ID]: verdict.sessionId }
        if (verdict.kind === 'legacy-batch') return batch(verdict.messages, session, headers)
        return await single(request, verdict.message, session.connection, { era: 'legacy', headers, session })
      }
    }
  }

  function mirrorEvents(id: string, events: EventStore): void {
    const shared = options.sharedEvents
    if (shared) events.onAppend = (event) => shared.append(id, event)
  }

  /**
   * Replicas: a sealed session this replica did not open is rebuilt from its id (its owner is gone);
   * one it rebuilt before is dropped when the shared revocation list says another replica ended it.
   */
  async function adoptOrRecheck(request: Request, id: string, known: LegacySession | undefined): Promise<LegacySession | undefined> {
    if (known !== undefined) {
      if (!(await options.sessionRevoked!(id))) return known
      sessions.delete(id)
      return undefined
    }
    if (sessions.ended(id)) return undefined
    const seed = await options.adoptSession!(id)
    // Only the caller the session was opened for may use it (a stolen id from another principal is 404).
    if (seed === undefined || (seed.principal ?? '') !== (options.principalOf?.(request) ?? '')) return undefined
    const connection = engine.connect('http')
    connection.legacy = {
      revision: seed.revision,
      clientCapabilities: seed.clientCapabilities,
      ...(seed.clientInfo && { clientInfo: seed.clientInfo }),
      initialized: true,
      subscriptions: new Set(),
    }
    const session: LegacySession = {
      connection,
      revision: seed.revision,
      events: new EventStore({ sseEventBufferLength: settings.sseEventBufferLength }),
      adopted: true,
      ...(seed.principal !== undefined && { principal: seed.principal }),
    }
    if (!sessions.adopt(id, session)) {
      // Another request of the same session adopted it first (or it ended meanwhile).
      engine.disconnect(connection)
      return sessions.get(id)
    }
    mirrorEvents(id, session.events)
    options.onSession?.({ state: 'adopted', id, revision: seed.revision, request, ...clientOf(connection) })
    return session
  }

  async function initialize(request: Request, raw: Record<string, unknown>): Promise<Response> {
    const notAcceptable = checkAccept(request, '2025-03-26', acceptMemo)
    if (notAcceptable) return notAcceptable
    let message: JsonRpcMessage
    try {
      message = parseMessage(raw)
    } catch (error) {
      return rpcErrorResponse(HTTP_STATUS.BAD_REQUEST, error as RpcError, recoverId(raw))
    }
    const connection = engine.connect('http')
    const answer = await engine.answer(message, { connection, outlet: { send: () => {} }, era: 'legacy' })
    // A session exists only after a successful handshake: the id is assigned in the response carrying the InitializeResult.
    if (!answer.message || 'error' in answer.message || !connection.legacy) {
      engine.disconnect(connection)
      return json(answer.message, answer.httpStatus)
    }
    const revision = connection.legacy.revision
    const principal = options.principalOf?.(request)
    const id = sessions.create({
      connection,
      revision,
      events: new EventStore({ sseEventBufferLength: settings.sseEventBufferLength }),
      ...(principal !== undefined && { principal }),
    })
    mirrorEvents(id, sessions.peek(id)!.events)
    options.onSession?.({ state: 'opened', id, revision, request, ...clientOf(connection) })
    return json(answer.message, HTTP_STATUS.OK, { [HEADER.SESSION_ID]: id })
  }

  async function modern(request: Request, verdict: Extract<HttpVerdict, { kind: 'modern' }>): Promise<Response> {
    const message = verdict.message
    const params = message.params as Record<string, unknown> | undefined
    const toolName = message.method === 'tools/call' && typeof params?.name === 'string' ? params.name : undefined
    const checked = validateModernHeaders(request.headers, message, {
      toolInputSchema: toolName === undefined ? undefined : engine.registry.tool(toolName)?.inputSchema,
    })
    if (!checked.ok) return rpcErrorResponse(checked.status, checked.error, recoverId(message))
    const notAcceptable = checkAccept(request, verdict.revision, acceptMemo)
    if (notAcceptable) return notAcceptable
    if (options.forwardModern && params && (params.requestState !== undefined || params.taskId !== undefined)) {
      const answer = await options.forwardModern(request, restoreRawIds(JSON.stringify(message)), params, String(message.method))
      if (answer) return answer
    }
    if (message.method === 'server/discover' && options.onSession) {
      const info = (params?._meta as Record<string, unknown> | undefined)?.[META.CLIENT_INFO] as
        | { name?: unknown; version?: unknown }
        | undefined
      options.onSession({
        state: 'discovered',
        id: '-',
        revision: verdict.revision,
        request,
        ...(info && { client: { name: String(info.name), version: String(info.version) } }),
      })
    }
    // Stateless: a throwaway connection per request (2026-07-28 basic/index.mdx "Statelessness").
    const connection = engine.connect('http', false)
    try {
      return await single(request, message, connection, { era: 'modern', headers: {} })
    } finally {
      if (!isRequest(message as unknown as JsonRpcMessage)) connection.close()
    }
  }

  interface SingleOptions {
    era: 'legacy' | 'modern'
    headers: Record<string, string>
    session?: LegacySession
  }

  /** One JSON-RPC message: 202 for notifications/responses, JSON or SSE for a request. */
  async function single(request: Request, raw: unknown, connection: Connection, opts: SingleOptions): Promise<Response> {
    let message: JsonRpcMessage
    try {
      message = parseMessage(raw)
    } catch (error) {
      return rpcErrorResponse(HTTP_STATUS.BAD_REQUEST, error as RpcError, recoverId(raw))
    }
    if (!isRequest(message)) {
      await engine.answer(message, { connection, outlet: sessionOutlet(opts.session), era: opts.era })
      return new Response(null, { status: HTTP_STATUS.ACCEPTED, headers: opts.headers })
    }
    // Primed, numbered events that survive a dropped connection (2025-11-25 only, SEP-1699).
    const resumable = opts.session && hasFeature(opts.session.revision, 'ssePolling') ? opts.session.events : undefined
    // 2026-07-28: closing the response stream is cancellation; legacy: it is not (2025-11-25 transports.mdx).
    const cancel = opts.era === 'modern' ? new AbortController() : undefined
    if (cancel)
      request.signal.addEventListener('abort', () => cancel.abort(new RpcError(RPC.INTERNAL_ERROR, 'client closed the stream')), {
        once: true,
      })

    let stream: SseStream | undefined
    const queued: JsonRpcMessage[] = []
    let closeAsked = false
    // Whichever comes first: the answer (a JSON response) or something to stream before it (SSE).
    let settleFirst!: (first: Answer | 'stream') => void
    let failFirst!: (error: unknown) => void
    const first = new Promise<Answer | 'stream'>((resolve, reject) => ((settleFirst = resolve), (failFirst = reject)))
    const upgrade = () => settleFirst('stream')
    const outlet: Outlet = {
      send(m) {
        if (stream) stream.send(m)
        else {
          queued.push(m)
          upgrade()
        }
      },
    }
    const channel: Channel = {
      connection,
      outlet,
      principal: options.principalOf?.(request),
      ...(cancel && { signal: cancel.signal }),
      era: opts.era,
      closeStream: () => {
        closeAsked = true
        if (stream) stream.closeMidStream()
        else upgrade()
      },
    }
    const answering = engine.answer(message, channel)
    answering.then(settleFirst, failFirst)
    const came = await first
    if (came !== 'stream') {
      return came.message
        ? json(came.message, came.httpStatus, opts.headers)
        : new Response(null, { status: HTTP_STATUS.ACCEPTED, headers: opts.headers })
    }
    const sse = openSseStream({
      sseKeepAliveMs: settings.sseKeepAliveMs,
      retryMs: settings.sseRetryMs,
      store: resumable,
      headers: opts.headers,
      onAbort: () => cancel?.abort(new RpcError(RPC.INTERNAL_ERROR, 'client closed the stream')),
    })
    stream = sse
    for (const m of queued) sse.send(m)
    if (closeAsked) sse.closeMidStream()
    void answering.then((answer) => {
      if (answer.message) sse.send(answer.message)
      sse.end()
    })
    return sse.response
  }

  /** 2025-03-26 batch: answered as one JSON array; asks and notifications go to the standalone stream. */
  async function batch(messages: unknown[], session: LegacySession, headers: Record<string, string>): Promise<Response> {
    const answers = await Promise.all(
      messages.map(async (raw) => {
        try {
          return (await engine.answer(parseMessage(raw), { connection: session.connection, outlet: sessionOutlet(session), era: 'legacy' }))
            .message
        } catch (error) {
          return { jsonrpc: '2.0' as const, id: recoverId(raw), error: (error as RpcError).toRpc() }
        }
      }),
    )
    const responses = answers.filter((a) => a !== undefined)
    if (responses.length === 0) return new Response(null, { status: HTTP_STATUS.ACCEPTED, headers })
    return json(responses, HTTP_STATUS.OK, headers)
  }

  /**
   * Legacy GET: resume a stream by Last-Event-ID, or open the session's standalone stream (2025-11-25
   * basic/transports.mdx "Listening for Messages from the Server").
   */
  async function openGet(request: Request, sessionId: string, session: LegacySession, lastEventId: string | undefined): Promise<Response> {
    const headers = { [HEADER.SESSION_ID]: sessionId }
    if (lastEventId !== undefined) {
      const resumed = resumeSseStream(session.events, lastEventId, {
        headers,
        signal: request.signal,
        sseKeepAliveMs: settings.sseKeepAliveMs,
      })
      if (resumed) return resumed.response
      // A stream of another replica (this one rebuilt the session): replay its events from the shared copy.
      const missed = session.adopted && options.sharedEvents ? await options.sharedEvents.after(sessionId, lastEventId) : []
      if (missed.length > 0) return replayClosedStream(missed, { headers, signal: request.signal, sseKeepAliveMs: settings.sseKeepAliveMs })
    }
    session.standalone?.end()
    const stream = openSseStream({
      sseKeepAliveMs: settings.sseKeepAliveMs,
      retryMs: settings.sseRetryMs,
      store: hasFeature(session.revision, 'ssePolling') ? session.events : undefined,
      headers,
      signal: request.signal,
    })
    session.standalone = stream
    session.connection.unsolicited = { send: (m) => void (stream.ended ? undefined : stream.send(m)) }
    return stream.response
  }

  return {
    fetch: (request) =>
      handle(request).catch((error: unknown) =>
        rpcErrorResponse(
          HTTP_STATUS.INTERNAL_SERVER_ERROR,
          new RpcError(RPC.INTERNAL_ERROR, `internal error: ${(error as Error)?.message ?? String(error)}`),
        ),
      ),
    close: () => sessions.close(),
  }
}

function seedOf(session: LegacySession): SessionSeed {
  const legacy = session.connection.legacy
  return {
    revision: session.revision,
    clientCapabilities: legacy?.clientCapabilities ?? {},
    ...(legacy?.clientInfo && { clientInfo: legacy.clientInfo }),
    ...(session.principal !== undefined && { principal: session.principal }),
  }
}

/** Where a legacy session's non-request traffic goes: its standalone GET stream, if open. */
function sessionOutlet(session: LegacySession | undefined): Outlet {
  return { send: (m) => session?.connection.unsolicited?.send(m) }
}

function json(body: unknown, status: number, headers: Record<string, string> = {}): Response {
  if (body === undefined) return new Response(null, { status: HTTP_STATUS.ACCEPTED, headers })
  return new Response(restoreRawIds(JSON.stringify(body)), { status, headers: { ...headers, 'content-type': MIME.JSON } })
}

function clientOf(connection: Connection): { client?: { name: string; version: string } } {
  const info = connection.legacy?.clientInfo
  return info === undefined ? {} : { client: { name: String(info.name), version: String(info.version) } }
}
