/**
 * A legacy (initialize-based) session's life on the HTTP endpoint: opened by a successful
 * initialize, which assigns its id (2025-11-25 basic/transports.mdx "Session Management"); rebuilt
 * from a sealed id another replica minted, or dropped when another replica ended it; ended by
 * DELETE, idleness, eviction or close, which ends its listen stream and disconnects it. The 2026
 * era has no sessions (modern-request.ts).
 */
import type { RpcError } from '../../errors/index.ts'
import type { Settings } from '../../settings/index.ts'
import { HTTP_STATUS, HEADER, parseMessage, recoverId, type JsonRpcMessage } from '../../wire/index.ts'
import type { Connection, Outlet } from '../connection.ts'
import type { Engine } from '../engine.ts'
import type { SessionSeed } from '../session-id.ts'
import { checkAccept, jsonResponse, rpcErrorResponse } from './body.ts'
import { EventStore } from './event-store.ts'
import type { HandlerContext, LegacySession } from './handler-context.ts'
import type { HttpHandlerOptions } from './handler-options.ts'
import { SessionStore } from './sessions.ts'

/** The handler's legacy sessions: idle-expired and capped (sessions.ts); ending one ends its stream and connection. */
export function createLegacySessionStore(engine: Engine, settings: Settings, options: HttpHandlerOptions): SessionStore<LegacySession> {
  return new SessionStore<LegacySession>({
    sessionIdleMs: settings.sessionIdleMs,
    maxSessions: settings.maxSessions,
    ...(options.newSessionId && { newId: (session: LegacySession) => options.newSessionId!(seedOf(session)) }),
    onEnd: (id, session, reason) => {
      session.standalone?.end()
      options.onSession?.({ state: 'closed', id, revision: session.revision, reason, ...clientOf(session.connection) })
      engine.disconnect(session.connection)
    },
  })
}

/** A legacy initialize: the session exists only once the handshake succeeds. */
export async function openLegacySession(ctx: HandlerContext, request: Request, raw: Record<string, unknown>): Promise<Response> {
  const { engine, options, sessions } = ctx
  const notAcceptable = checkAccept(request, '2025-03-26', ctx.acceptMemo)
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
    return jsonResponse(answer.message, answer.httpStatus)
  }
  const revision = connection.legacy.revision
  const principal = options.principalOf?.(request)
  const id = sessions.create({
    connection,
    revision,
    events: new EventStore({ sseEventBufferLength: ctx.settings.sseEventBufferLength }),
    ...(principal !== undefined && { principal }),
  })
  mirrorEvents(ctx, id, sessions.peek(id)!.events)
  options.onSession?.({ state: 'opened', id, revision, request, ...clientOf(connection) })
  return jsonResponse(answer.message, HTTP_STATUS.OK, { [HEADER.SESSION_ID]: id })
}

/**
 * Replicas: a sealed session this replica did not open is rebuilt from its id (its owner is gone);
 * one it rebuilt before is dropped when the shared revocation list says another replica ended it.
 */
export async function adoptOrRecheck(
  ctx: HandlerContext,
  request: Request,
  id: string,
  known: LegacySession | undefined,
): Promise<LegacySession | undefined> {
  const { engine, options, sessions } = ctx
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
    events: new EventStore({ sseEventBufferLength: ctx.settings.sseEventBufferLength }),
    adopted: true,
    ...(seed.principal !== undefined && { principal: seed.principal }),
  }
  if (!sessions.adopt(id, session)) {
    // Another request of the same session adopted it first (or it ended meanwhile).
    engine.disconnect(connection)
    return sessions.get(id)
  }
  mirrorEvents(ctx, id, session.events)
  options.onSession?.({ state: 'adopted', id, revision: seed.revision, request, ...clientOf(connection) })
  return session
}

/** Where a legacy session's non-request traffic goes: its standalone GET stream, if open. */
export function sessionOutlet(session: LegacySession | undefined): Outlet {
  return { send: (m) => session?.connection.unsolicited?.send(m) }
}

function mirrorEvents(ctx: HandlerContext, id: string, events: EventStore): void {
  const shared = ctx.options.sharedEvents
  if (shared) events.onAppend = (event) => shared.append(id, event)
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

function clientOf(connection: Connection): { client?: { name: string; version: string } } {
  const info = connection.legacy?.clientInfo
  return info === undefined ? {} : { client: { name: String(info.name), version: String(info.version) } }
}
