/**
 * Shapes the gateway shares with the daemon. They match the daemon's `Pool` contract
 * structurally (lib/daemon/pool-contract.ts) without importing it: the daemon sits above the gateway.
 */
import type { AccessView } from '../access/index.ts'
import type { JsonObject } from '../client/index.ts'
import type { ProgressUpdate } from '../session/index.ts'
import type { LogLevel } from '../wire/index.ts'
import type { DownstreamAsker, LogSink } from './broker.ts'

/**
 * The one list of server states (README "Server states"): `configured` (not connected yet),
 * `connecting`, `ready`, `unavailable` (cannot be started as configured; `reason` says why),
 * `failed` (started and broke; restarting; `reason` says how), plus `disabled` in the config and
 * `closed` (shut down with the daemon or a reload).
 */
export type ServerState = 'configured' | 'disabled' | 'connecting' | 'ready' | 'unavailable' | 'failed' | 'closed'

export interface ServerStatus {
  readonly name: string
  readonly state: ServerState
  readonly transport: 'stdio' | 'http'
  readonly endpoint: string
  readonly description?: string
  readonly protocol?: string
  readonly revision?: string
  readonly era?: 'legacy' | 'modern'
  readonly toolCount?: number
  /** Why the server is `unavailable` or `failed`. */
  readonly reason?: string
  readonly error?: { readonly code: string; readonly message: string }
  /** `failed`: when the pool tries it again in the background, in ms from now (upstream.ts #restartLater). */
  readonly retryInMs?: number
}

export interface Catalog {
  readonly server: string
  readonly tools: readonly JsonObject[]
  readonly prompts: readonly JsonObject[]
  readonly resources: readonly JsonObject[]
  readonly resourceTemplates: readonly JsonObject[]
  /**
   * The connection this catalog was listed from was a 2026 server with the tasks extension, which
   * decides per call whether a tools/call becomes a task (extensions/tasks). Kept with the catalog
   * so a surface rebuilt while the upstream reconnects still lists its tools as task-optional to
   * 2025-11-25 hosts (upstream-items.ts).
   */
  readonly decidesTasksPerCall?: boolean
  /** The server declared `completions`: its prompts' arguments and resource templates can be completed. */
  readonly completes?: boolean
  /** The server declared `resources.subscribe`: it announces updates of the resources it is asked to follow. */
  readonly subscribes?: boolean
}

export interface UpstreamCallOptions {
  readonly signal?: AbortSignal
  readonly timeoutMs?: number
  /** The downstream host making the call, for brokering questions the upstream asks mid-call. */
  readonly asker?: DownstreamAsker
  readonly onProgress?: (update: ProgressUpdate) => void
  /** 2026 upstreams: ask for `notifications/message` at this level for this call (logging.mdx). */
  readonly logLevel?: LogLevel
  /** Where the upstream's log messages during this call go (broker.ts: most recent call wins). */
  readonly onLog?: LogSink
  /** 2026 upstreams: the client capabilities this call declares (the downstream host's, mirrored). */
  readonly capabilities?: JsonObject
  /**
   * 2026 tasks extension (declared in `capabilities`): the upstream may answer with a
   * CreateTaskResult (`resultType: "task"`), which is returned for the caller to follow.
   */
  readonly acceptTask?: boolean
  /**
   * Run a task-optional tool as a task that mcpx follows to its end (task-runner.ts), as it does
   * for task-required ones; a tool or server that cannot run it as a task is a USAGE error.
   */
  readonly runAsTask?: boolean
  /**
   * The caller asked for a task (a 2025-11-25 host on pass-through) and keeps the upstream's task
   * id: the call runs as an upstream task where the upstream can run it as one (task-runner.ts),
   * and this is told its id once created, or undefined when there is none.
   */
  readonly onTaskCreated?: (taskId: string | undefined) => void
  /** The arguments were already checked against this tool's inputSchema (Upstream.argumentsProblem), or are left to the upstream (pass-through). */
  readonly argumentsChecked?: boolean
  /** The principal the call runs for: the pool checks its policy and audits the call (lib/access). */
  readonly view?: AccessView
}
