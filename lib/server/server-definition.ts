/**
 * The public shape of a server definition: providers (tools, prompts, resources, templates,
 * completions) and the context a handler receives. Results are written in the newest (2026-07-28)
 * shape; the engine shapes them for older peers at the edge.
 */
import type { McpxError } from '../errors/index.ts'
import type { Era, JsonObject, LogLevel, Revision } from '../wire/index.ts'

export type { JsonObject }

export interface Implementation {
  name: string
  version: string
  title?: string
  [key: string]: unknown
}

/** A server→client request the handler wants answered (elicitation/create, sampling/createMessage, roots/list). */
export interface InputRequest {
  method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list'
  params?: JsonObject
}

/** What every provider handler receives. Works in both eras (see input.ts for how asks are carried). */
export interface HandlerContext {
  readonly era: Era
  readonly revision: Revision
  /** Aborted on notifications/cancelled, closed response stream, or server shutdown. */
  readonly signal: AbortSignal
  /** The client's declared capabilities (legacy: from initialize; modern: from this request's _meta). */
  readonly clientCapabilities: JsonObject
  readonly clientInfo?: Implementation
  /**
   * The legacy session the request came in on: one object for every request of that session (a stdio
   * connection, or an HTTP session); undefined for a 2026 request, which belongs to none.
   */
  readonly session?: object
  /** The request's `_meta` as sent. */
  readonly meta: JsonObject
  /** notifications/progress when the request carried a progressToken; otherwise a no-op. */
  progress(progress: number, total?: number, message?: string): void
  /** notifications/message on the request's stream, filtered by the negotiated/requested level. */
  log(level: LogLevel, data: unknown, logger?: string): void
  /** Ask the client: legacy sends a real request and awaits it; modern raises input_required. */
  elicit(params: JsonObject, key?: string): Promise<JsonObject>
  sample(params: JsonObject, key?: string): Promise<JsonObject>
  listRoots(key?: string): Promise<JsonObject>
  /** Several asks at once (modern: one InputRequiredResult carrying all of them). */
  ask(requests: Record<string, InputRequest>): Promise<Record<string, JsonObject>>
  /** Handler-owned state carried through MRTR rounds (modern; legacy keeps it in memory). */
  state<T>(): T | undefined
  setState(value: unknown): void
  /** Legacy 2025-11-25 HTTP: end the request's SSE stream now; the result follows on a resumed GET. */
  closeStream(): void
  /** Push notifications to every listener (list_changed, resources/updated). */
  readonly notify: ServerNotifier
  /**
   * Present inside a 2025-11-25 task of a tool with `adoptsTaskId`: the handler names the id the
   * task is to have (a gateway relaying the upstream's task keeps its id), or undefined for a new
   * one, as soon as it knows. The client gets its CreateTaskResult after that.
   */
  readonly adoptTaskId?: (taskId: string | undefined) => void
}

export interface ServerNotifier {
  toolsListChanged(): void
  promptsListChanged(): void
  resourcesListChanged(): void
  resourceUpdated(uri: string): void
}

export interface ToolDef {
  name: string
  title?: string
  description?: string
  inputSchema?: JsonObject
  outputSchema?: JsonObject
  annotations?: JsonObject
  icons?: JsonObject[]
  /** 2025-11-25 tasks: `{taskSupport: 'forbidden'|'optional'|'required'}`. */
  execution?: JsonObject
  /**
   * The handler also serves calls made without a task when `execution.taskSupport` is "required"
   * (a gateway that runs the upstream task itself), so the engine does not refuse them.
   */
  servesUntasked?: boolean
  /** A 2025-11-25 task of this tool takes the id its handler names (HandlerContext.adoptTaskId). */
  adoptsTaskId?: boolean
  /**
   * The handler relays another server's own task decisions (a gateway in front of a 2026 server
   * with the tasks extension): `execution` is only what 2025-11-25 hosts are offered, and a 2026
   * host's call goes straight to the handler, which relays the upstream's task (no engine task).
   */
  relaysTasks?: boolean
  _meta?: JsonObject
  handler(args: JsonObject, ctx: HandlerContext): Promise<JsonObject> | JsonObject
  /**
   * Replaces the engine's inputSchema check for this tool: the isError result describing why
   * `args` do not fit, or undefined (a gateway checks untrusted upstream schemas its own way).
   */
  argumentsError?(args: JsonObject): JsonObject | undefined
  /**
   * The tool answers by relaying the call to another server (a gateway's upstream tool): a plain
   * legacy call (no task, no progress token) may be handed to `relay` instead of `handler`, without
   * a handler context unless the call needs one mid-way (relay.ts).
   */
  relay?: ToolRelay
}

/**
 * How a relaying tool takes a plain call. `start` sends it on and returns true, after which its
 * outcome comes once, to `call.resolve` or `call.reject`; or it returns false before sending
 * anything when it cannot now (the engine then runs `handler`, which covers every case). The
 * result is in the newest shape, as a handler's; a rejection is what the handler would have thrown.
 */
export interface ToolRelay {
  start(args: JsonObject, call: RelayedCall): boolean
}

/** What a relayed call offers the relay (lib/server/relay.ts owns it). */
export interface RelayedCall {
  readonly revision: Revision
  /** The host's capabilities as declared at initialize: the asks it can answer. */
  readonly clientCapabilities: JsonObject
  /** The legacy session the call came in on (HandlerContext.session). */
  readonly session: object
  /**
   * The call's HandlerContext, built on first use: an upstream that logs or asks mid-call reaches
   * the host through it (its answer then becomes a stream, as a handler's would).
   */
  context(): HandlerContext
  /** Set by the relay once sent: stops the call where it runs (the host cancelled it, or the server is stopping). */
  stop?: { cancel(reason: unknown): void }
  /** The call's result, in the newest shape. */
  resolve(result: JsonObject): void
  /** What the handler would have thrown. */
  reject(error: unknown): void
}

export interface PromptArgument {
  name: string
  description?: string
  required?: boolean
  title?: string
}

export interface PromptDef {
  name: string
  title?: string
  description?: string
  arguments?: PromptArgument[]
  icons?: JsonObject[]
  _meta?: JsonObject
  handler(args: Record<string, string>, ctx: HandlerContext): Promise<JsonObject> | JsonObject
}

export interface ResourceDef {
  uri: string
  name: string
  title?: string
  description?: string
  mimeType?: string
  size?: number
  annotations?: JsonObject
  icons?: JsonObject[]
  _meta?: JsonObject
  /** Returns `{contents: [...]}`. */
  read(ctx: HandlerContext): Promise<JsonObject> | JsonObject
}

export interface TemplateDef {
  uriTemplate: string
  name: string
  title?: string
  description?: string
  mimeType?: string
  annotations?: JsonObject
  icons?: JsonObject[]
  _meta?: JsonObject
  /** Variables matched from an RFC 6570 level-1 template (`{id}` segments). */
  read(uri: string, vars: Record<string, string>, ctx: HandlerContext): Promise<JsonObject> | JsonObject
}

export interface CompleteRequest {
  ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string }
  argument: { name: string; value: string }
  context?: { arguments?: Record<string, string> }
}

/** Everything a server is; `defineServer` checks it once. */
export interface ServerDefinition {
  info: Implementation
  instructions?: string
  tools?: ToolDef[]
  prompts?: PromptDef[]
  resources?: ResourceDef[]
  templates?: TemplateDef[]
  /**
   * A host subscribed to these resource URIs (legacy `resources/subscribe`, 2026 `subscriptions/listen`
   * with `resourceSubscriptions`). The subscription is acknowledged once this settles, so a server that
   * follows them elsewhere first (a gateway, upstream) misses no update; a failure is logged, not the host's.
   */
  onSubscribe?(uris: readonly string[]): Promise<void> | void
  /**
   * Why this server cannot serve now, if so: its handshake (initialize, server/discover) is answered
   * with that error instead of an empty server (a gateway's pass-through whose one upstream is down).
   */
  unavailable?(): McpxError | undefined
  /** completion/complete; absent means the completions capability is not declared. */
  complete?(request: CompleteRequest, ctx: HandlerContext): Promise<JsonObject> | JsonObject
  /** Declare list_changed / subscribe capabilities (default true when the provider list is non-empty). */
  listChanged?: boolean
  subscribe?: boolean
  /** Declare the logging capability (default true). */
  logging?: boolean
  /** Serve the 2025-11-25 core tasks and the io.modelcontextprotocol/tasks extension (default true). */
  tasks?: boolean
  /** Check tool arguments against inputSchema, and a prompt's required arguments, before the handler (default true; a gateway's pass-through leaves them to its upstream). */
  validateArguments?: boolean
  /** Extra `extensions` entries for the 2026 capabilities. */
  extensions?: JsonObject
  /**
   * Capabilities offered as another server gave them (a gateway's pass-through), instead of the ones
   * derived from the providers; spelled down for each peer's revision at the edge. Tasks still
   * follow `tasks`.
   */
  capabilities?: JsonObject
  /**
   * Tools' MCP Apps links (`_meta.ui`, `_meta["ui/resourceUri"]`) are listed only to clients that
   * declared `io.modelcontextprotocol/ui` (a gateway carrying other servers' apps).
   */
  appsToDeclaredClientsOnly?: boolean
}
