/**
 * The /v1 API's contract: its version, what an operation is (operations.ts holds the one table of
 * them), the context a handler runs in, and what /v1/health reports. Types only but the version, so
 * the daemon client and the spawner can name them without loading the table.
 */
import type { Settings } from '../settings/index.ts'
import type { BuildIdentity } from './build.ts'
import type { EventFeed } from './events.ts'
import type { HostQuestions } from './host-questions.ts'
import type { CodeModeOps, Pool } from './pool-contract.ts'

export const API_VERSION = 1

/** One parameter: where it comes from is the method's business (path, query or JSON body). */
export interface ParamSpec {
  readonly type: 'string' | 'integer' | 'boolean' | 'object'
  readonly description: string
  readonly required?: boolean
  /** A string parameter's only values. */
  readonly oneOf?: readonly string[]
}

/** What /v1/health reports: enough for a client to find and identify the daemon. */
export interface DaemonInfo {
  readonly ok: true
  readonly api: number
  readonly version: string
  readonly pid: number
  readonly startedAt: string
  readonly uptimeMs: number
  readonly home: string
  readonly socket: string
  /** Actual TCP listener (the port is ephemeral unless configured). */
  readonly tcp: { readonly address: string; readonly port: number; readonly url: string }
  /** The config file being served; null for the built-in default. */
  readonly config: string | null
  /** The config location that identifies this daemon (the file need not exist). */
  readonly location: string
  /** The daemon's id (its run directory's name, from `location`). */
  readonly id: string
  /** Set while the file on disk could not be loaded: the daemon serves the version of `servingSince`. */
  readonly configProblem?: { readonly file: string; readonly message: string; readonly servingSince: string | null }
  /** Where `${VAR}` values come from: variable names (never values) and each one's source. */
  readonly environment?: { readonly source: string; readonly variables: Readonly<Record<string, string>> }
  readonly idleMs: number
  readonly servers: number
  /** The program file this daemon was started from (build.ts); absent from daemons older than it. */
  readonly build?: BuildIdentity
}

export interface OperationContext {
  readonly pool: Pool
  /** Code mode over the pool (search, types, exec), when the daemon runs it (gateway.ts). */
  readonly codeMode?: CodeModeOps
  readonly events: EventFeed
  /** The daemon's open questions to the CLIs that made calls (host-questions.ts). */
  readonly questions: HostQuestions
  readonly settings: Settings
  readonly info: () => DaemonInfo
  /** Stop the daemon: pool closed, socket and lock removed, before the answer is sent. */
  readonly shutdown: (reason: string) => Promise<void>
  readonly signal: AbortSignal
  readonly lastEventId?: string
  /** Register an open stream so the idle timer waits for it. */
  readonly holdOpen: () => () => void
}

export interface Operation {
  readonly name: string
  readonly method: 'GET' | 'POST'
  readonly path: string
  readonly description: string
  readonly params: Readonly<Record<string, ParamSpec>>
  /** Answers text/event-stream instead of JSON. */
  readonly stream?: boolean
  handler(params: Record<string, any>, context: OperationContext): unknown
}
