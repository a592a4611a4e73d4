/**
 * The `Pool` contract the daemon serves /v1 and /mcp from (the gateway's UpstreamPool implements
 * it; gateway.ts constructs it, and code mode over it, before the daemon starts). Status objects
 * never carry env values or headers.
 */
import type { Catalog, DownstreamAsker, ServerStatus } from '../gateway/index.ts'
import type { JsonObject, LogLevel } from '../wire/index.ts'

/** The status and catalog shapes are the gateway's (the pool that fills them lives there). */
export type { Catalog, ServerState, ServerStatus } from '../gateway/index.ts'
/** The status of a configured server before any connection (`mcpx status` shows it without a daemon). */
export { configuredStatus } from '../gateway/index.ts'

/** Options of one call through the daemon's pool (McpClient's per-request options are client's CallOptions). */
export interface PoolCallOptions {
  readonly signal?: AbortSignal
  readonly timeoutMs?: number
  /** The caller as host, for questions the upstream asks during this call (roots, elicitation, sampling). */
  readonly asker?: DownstreamAsker
  /** notifications/progress from the upstream for this call. */
  readonly onProgress?: (update: { progress: number; total?: number; message?: string }) => void
  /** notifications/message the upstream sends during this call (its params: level, logger, data). */
  readonly onLog?: (params: JsonObject) => void
  /** The level a 2026 upstream is asked to log this call at (a legacy one logs at its session's level). */
  readonly logLevel?: LogLevel
  /** Run a task-optional tool as a task the gateway follows (UpstreamCallOptions.runAsTask). */
  readonly runAsTask?: boolean
}

/** Code mode over the pool (lib/gateway's CodeMode satisfies it): what `mcpx search|types|exec` reach. */
export interface CodeModeOps {
  search(query: string, options?: { server?: string; limit?: number }): Promise<unknown>
  types(query: { server?: string; tools?: readonly string[]; query?: string }): Promise<string>
  exec(
    code: string,
    options?: { signal?: AbortSignal; onLog?: (line: string) => void },
  ): Promise<{ value: unknown; logs: readonly string[]; stats: unknown }>
  /** End idle sandbox processes (the idle shrink); the next exec starts what it needs. */
  releaseIdleSandboxes?(): Promise<void>
}

export interface Pool {
  servers(): ServerStatus[]
  /** Throws NOT_FOUND for an unknown name. */
  status(name: string): ServerStatus
  /** tools/call on one upstream; resolves to the CallToolResult. */
  call(name: string, tool: string, args: Record<string, unknown>, options?: PoolCallOptions): Promise<unknown>
  /** `asker` answers what the upstream asks while connecting (its initial roots/list). */
  catalog(name: string, options?: { asker?: DownstreamAsker }): Promise<Catalog>
  /** Any other upstream request (resources/read, prompts/get, tasks/…); absent without a pool. */
  request?(name: string, method: string, params: Record<string, unknown>, options?: PoolCallOptions): Promise<unknown>
  /** Shutdown hook: end every upstream (and its process group). */
  close(): Promise<void>
  /** Follow the pool's events (server.ready, catalog.changed…): the daemon republishes them on /v1/events. */
  on?(listener: (type: string, data: unknown) => void): () => void
}
