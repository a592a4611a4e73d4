/**
 * What one Streamable HTTP handler holds across requests, and what a legacy session keeps between
 * them. Built once by createHttpHandler and passed as the first argument to the files serving each
 * request kind (answer-or-stream.ts, session-lifecycle.ts, listen-stream.ts, legacy-batch.ts,
 * modern-request.ts), so serving a request allocates nothing to reach the handler's state.
 */
import type { Settings } from '../../settings/index.ts'
import type { LegacyRevision } from '../../wire/index.ts'
import type { Connection } from '../connection.ts'
import type { Engine } from '../engine.ts'
import type { AcceptMemo } from './body.ts'
import type { EventStore } from './event-store.ts'
import type { HttpHandlerOptions } from './handler-options.ts'
import type { SessionStore } from './sessions.ts'
import type { SseStream } from './sse-stream.ts'

export interface HandlerContext {
  readonly engine: Engine
  readonly settings: Settings
  readonly options: HttpHandlerOptions
  readonly sessions: SessionStore<LegacySession>
  /** The last Accept value found to pass, per request shape (body.ts checkAccept). */
  readonly acceptMemo: AcceptMemo
}

/** What a legacy session keeps between requests. */
export interface LegacySession {
  connection: Connection
  revision: LegacyRevision
  events: EventStore
  standalone?: SseStream
  /** The authenticated caller that opened it (sealed into replica session ids). */
  principal?: string
  /** Rebuilt from a sealed id another replica minted (adoptSession). */
  adopted?: boolean
  /** Its id as the header every answer carries, and those with the JSON Content-Type (body.ts jsonHeaders): built on its first request, the same for all. */
  answerHeaders?: AnswerHeaders
}

/** The headers of a legacy session's answers, built once per session (handler.ts). */
export interface AnswerHeaders {
  readonly record: Record<string, string>
  readonly json: Headers
}
