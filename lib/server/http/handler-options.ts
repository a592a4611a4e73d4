/**
 * The public face of the Streamable HTTP handler: what an embedder passes in (engine, settings, its
 * Origin policy or its own guard, and the replica hooks), the session events it is told, and the
 * handler it gets back. Apart from handler.ts so the files serving each request kind can read the
 * options without importing the router that calls them.
 */
import type { Settings } from '../../settings/index.ts'
import type { Engine } from '../engine.ts'
import type { SessionSeed } from '../session-id.ts'
import type { StoredEvent } from './event-store.ts'
import type { OriginPolicy } from './origin.ts'
import type { SessionEndReason } from './sessions.ts'

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
