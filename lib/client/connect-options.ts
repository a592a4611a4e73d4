/**
 * The client room's public shapes: what to connect to, how, and the hooks through which a caller
 * answers server→client questions (one handler per kind, used for legacy requests and for 2026
 * `input_required` rounds alike).
 */
import type { Settings } from '../settings/index.ts'
import type { AuthProvider, StdioServerParams, TransportKind } from '../transport/index.ts'
import type { Era, JsonObject, Revision } from '../wire/index.ts'

/** A stdio server as configured: the transport's launch parameters, less the inherited environment (ConnectOptions.parentEnv). */
export type StdioTarget = Omit<StdioServerParams, 'parentEnv'>
export interface HttpTarget {
  url: string
  /** Static headers sent on every request (e.g. an API key from config). */
  headers?: Record<string, string>
  /** Pin the HTTP transport; default: Streamable HTTP, falling back to HTTP+SSE. */
  transport?: 'streamable-http' | 'http+sse'
}
export type Target = StdioTarget | HttpTarget

export function isHttpTarget(target: Target): target is HttpTarget {
  return 'url' in target
}

export interface Implementation {
  name: string
  version: string
  [key: string]: unknown
}

export type { JsonObject }

/** Where a question came from: a legacy JSON-RPC request, or an entry of a 2026 InputRequiredResult. */
export interface InputContext {
  era: Era
  via: 'request' | 'input_required'
  /** The inputRequests key (modern) or JSON-RPC id (legacy). */
  key: string | number
  signal?: AbortSignal
}

/** `elicitation/create` params → ElicitResult `{action, content?}`. */
export type ElicitHandler = (params: JsonObject, context: InputContext) => Promise<JsonObject> | JsonObject
/** `sampling/createMessage` params → CreateMessageResult. */
export type SampleHandler = (params: JsonObject, context: InputContext) => Promise<JsonObject> | JsonObject
/** `roots/list` → ListRootsResult `{roots}`. */
export type ListRootsHandler = (params: JsonObject, context: InputContext) => Promise<JsonObject> | JsonObject

export interface ClientHandlers {
  onElicit?: ElicitHandler
  /** Declare URL-mode elicitation too (form is always declared when onElicit is set). */
  elicitUrl?: boolean
  onSample?: SampleHandler
  onListRoots?: ListRootsHandler
}

export interface TimingStep {
  step: string
  ms: number
  ok: boolean
  detail?: string
}

export interface ConnectOptions {
  settings: Settings
  clientInfo?: Implementation
  /** Pin one revision: no probing, no fallback to the other era. */
  revision?: Revision
  /** Restrict to one era without pinning a revision (e.g. `mcpx probe` trying each era). */
  era?: Era
  /** Legacy revision offered in `initialize` (default 2025-11-25, the latest legacy). */
  legacyOffer?: Revision
  handlers?: ClientHandlers
  /** Extra capabilities merged over the ones derived from `handlers` (e.g. `extensions`). */
  capabilities?: JsonObject
  /** OAuth provider for HTTP targets (lib/auth). */
  auth?: AuthProvider
  /**
   * Environment a stdio server inherits under its own `env` (the CLI passes cli/context.ts `env`);
   * default none.
   */
  parentEnv?: Readonly<Record<string, string | undefined>>
  /** Directory where era verdicts persist between runs (`era-verdicts.json`); memory only without it. */
  cacheDir?: string
  /**
   * Legacy Streamable HTTP: open the standalone GET stream after initialize (default true: server messages outside any
   * POST arrive only there).
   */
  serverStream?: boolean
  /** Skip the verdict cache (both read and write), e.g. for `mcpx probe`. */
  noCache?: boolean
  /** Warnings (dropped tools, ignored notifications); default: log.warn. */
  onWarning?: (message: string) => void
}

/** What connect() learned about the server. */
export interface ServerIdentity {
  era: Era
  revision: Revision
  transport: TransportKind
  /** DiscoverResult.supportedVersions, or the one negotiated legacy version. */
  supportedVersions: string[]
  serverInfo?: Implementation
  capabilities: JsonObject
  instructions?: string
}

/**
 * What McpClient.follow() follows, in 2026 `subscriptions/listen` terms (basic/patterns/subscriptions.mdx);
 * a legacy server gets the same through pushed notifications and `resources/subscribe`.
 */
export interface FollowFilter {
  readonly toolsListChanged?: boolean
  readonly promptsListChanged?: boolean
  readonly resourcesListChanged?: boolean
  readonly resourceSubscriptions?: readonly string[]
}

export interface Following {
  /** Settles once the server has taken the subscriptions (or refused them): notifications after it are not lost. */
  readonly ready: Promise<void>
  stop(): void
}
