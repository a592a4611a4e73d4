/**
 * The Streamable HTTP endpoint of a server: `fetch(Request) → Response`, serving both eras on one
 * URL (2026-07-28 basic/versioning.mdx "Backward Compatibility with Initialization-Based Versions").
 * This file is the router: Origin/Host, the session a request names, the body, then the
 * classification (classify.ts) sends it to its owner — a 2026 request (modern-request.ts), a legacy
 * initialize (session-lifecycle.ts), a legacy session's GET (listen-stream.ts), DELETE (the
 * session's end, here), batch (legacy-batch.ts) or single message (answer-or-stream.ts). The
 * handler's state is built once here (handler-context.ts), so a request allocates nothing to reach it.
 */
import { RPC, RpcError } from '../../errors/index.ts'
import { DeadlineQueue } from '../../session/index.ts'
import { HTTP_STATUS, HEADER, recoverId } from '../../wire/index.ts'
import { SUPPORTED_REVISIONS } from '../lifecycle.ts'
import { CallOutlet, startAnswer } from './answer-or-stream.ts'
import { checkAccept, jsonHeaders, rpcErrorResponse } from './body.ts'
import { BodyRead, type ReadBodyOptions, parseJsonBody, startBody } from './body-read.ts'
import { classifyHttpRequest, headerValue, rejectResponse } from './classify.ts'
import type { AnswerHeaders, HandlerContext } from './handler-context.ts'
import type { HttpHandler, HttpHandlerOptions } from './handler-options.ts'
import { answerBatch } from './legacy-batch.ts'
import { openListenStream } from './listen-stream.ts'
import { serveModern } from './modern-request.ts'
import { checkOrigin } from './origin.ts'
import { adoptOrRecheck, createLegacySessionStore, openLegacySession } from './session-lifecycle.ts'

export function createHttpHandler(options: HttpHandlerOptions): HttpHandler {
  const { engine, settings } = options
  const bodyOptions: ReadBodyOptions = {
    maxFrameBytes: settings.maxFrameBytes,
    bodyTimeoutMs: settings.httpBodyTimeoutMs,
    maxJsonDepth: settings.maxJsonDepth,
    deadlines: new DeadlineQueue(settings.httpBodyTimeoutMs),
    ...(options.guarded && { mediaTypeChecked: true }),
  }
  const sessions = createLegacySessionStore(engine, settings, options)
  const ctx: HandlerContext = { engine, settings, options, sessions, acceptMemo: {} }

  // Every failure becomes a 500 here, in the one async frame a request runs in (no .catch wrapper
  // per request): each branch's promise is awaited inside the try.
  async function handle(request: Request): Promise<Response> {
    try {
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
        session = await adoptOrRecheck(ctx, request, sessionId, session)
      }
      let body: unknown
      if (request.method === 'POST') {
        // The body's one wait is this frame's (body-read.ts startBody).
        const read = startBody(request, bodyOptions, true)
        if (!(read instanceof BodyRead)) return read.response
        const parsed = parseJsonBody(read.bytes(await read.settled), bodyOptions)
        if (!parsed.ok) return parsed.response
        body = parsed.value
      }
      const verdict = classifyHttpRequest({
        method: request.method,
        headers: request.headers,
        sessionId,
        body,
        supported: SUPPORTED_REVISIONS,
        sessionRevision: session?.revision,
        maxBatchLength: settings.maxBatchLength,
      })
      switch (verdict.kind) {
        case 'reject':
          return rejectResponse(verdict)
        case 'modern':
          return await serveModern(ctx, request, verdict)
        case 'legacy-initialize':
          return await openLegacySession(ctx, request, verdict.message)
        case 'legacy-get':
        case 'legacy-delete':
        case 'legacy':
        case 'legacy-batch': {
          // 2025-11-25 "Session Management": every request after initialize names its session.
          if (verdict.sessionId === undefined)
            return rpcErrorResponse(
              HTTP_STATUS.BAD_REQUEST,
              new RpcError(
                RPC.INVALID_REQUEST,
                `Bad Request: the ${HEADER.SESSION_ID} header is required (initialize first, then send the session id it answers with on every request)`,
              ),
              recoverId(body),
            )
          if (session === undefined)
            return rpcErrorResponse(HTTP_STATUS.NOT_FOUND, new RpcError(RPC.INVALID_REQUEST, 'Session not found'), recoverId(body))
          if (verdict.kind === 'legacy-delete') {
            sessions.delete(verdict.sessionId)
            return new Response(null, { status: HTTP_STATUS.NO_CONTENT })
          }
          const notAcceptable = checkAccept(request, session.revision, ctx.acceptMemo)
          if (notAcceptable) return notAcceptable
          if (verdict.kind === 'legacy-get') return await openListenStream(ctx, request, verdict.sessionId, session, verdict.lastEventId)
          // The session's id is the one the store found it under: its answers' headers never change.
          const answerHeaders = (session.answerHeaders ??= sessionHeaders(verdict.sessionId))
          if (verdict.kind === 'legacy-batch') return await answerBatch(ctx, verdict.messages, session, answerHeaders.record)
          // The answer's one wait is this frame's too (answer-or-stream.ts startAnswer).
          const started = startAnswer(ctx, request, verdict.message, session.connection, {
            era: 'legacy',
            headers: answerHeaders.record,
            jsonHeaders: answerHeaders.json,
            session,
          })
          return started instanceof CallOutlet ? started.response(await started.first) : await started
        }
      }
    } catch (error) {
      return rpcErrorResponse(
        HTTP_STATUS.INTERNAL_SERVER_ERROR,
        new RpcError(RPC.INTERNAL_ERROR, `internal error: ${(error as Error)?.message ?? String(error)}`),
      )
    }
  }

  return {
    fetch: handle,
    close: () => sessions.close(),
  }
}

function sessionHeaders(sessionId: string): AnswerHeaders {
  const record = { [HEADER.SESSION_ID]: sessionId }
  return { record, json: jsonHeaders(record) }
}
