/**
 * Spec facts: revision strings, header names, `_meta` keys. Each cites the spec text it comes from
 * (paths are ../shared/spec/<revision>/...). Numbers that are tunables live in lib/settings, not here.
 */

/** Every dated revision mcpx speaks, oldest first. */
export const REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const
export type Revision = (typeof REVISIONS)[number]

/** 2026-07-28 basic/versioning.mdx: "legacy" = 2025-11-25 and earlier (initialize handshake). */
export const LEGACY_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const
export type LegacyRevision = (typeof LEGACY_REVISIONS)[number]
/** "modern" = 2026-07-28 and later (per-request metadata, no handshake). */
export const MODERN_REVISIONS = ['2026-07-28'] as const
export type ModernRevision = (typeof MODERN_REVISIONS)[number]

export type Era = 'legacy' | 'modern'

export const LATEST_LEGACY: LegacyRevision = '2025-11-25'
export const LATEST_MODERN: ModernRevision = '2026-07-28'

/** 2025-11-25 basic/transports.mdx "Protocol Version Header": assume this when the header is absent. */
export const HTTP_DEFAULT_LEGACY_REVISION: LegacyRevision = '2025-03-26'

export const JSONRPC_VERSION = '2.0'

/** HTTP header names (compared case-insensitively by fetch/Headers). */
export const HEADER = {
  /** 2025-06-18+ and 2026-07-28 streamable-http.mdx. */
  PROTOCOL_VERSION: 'MCP-Protocol-Version',
  /** 2025-03-26…2025-11-25 sessions. */
  SESSION_ID: 'Mcp-Session-Id',
  /** 2026-07-28 streamable-http.mdx "Request Metadata Headers". */
  METHOD: 'Mcp-Method',
  NAME: 'Mcp-Name',
  /** Prefix of mirrored x-mcp-header arguments (2026-07-28 streamable-http.mdx "Custom Headers"). */
  PARAM_PREFIX: 'Mcp-Param-',
  LAST_EVENT_ID: 'Last-Event-ID',
} as const

/** Base64 sentinel for header values that are not plain visible ASCII (2026-07-28 streamable-http.mdx). */
export const BASE64_SENTINEL = { PREFIX: '=?base64?', SUFFIX: '?=' } as const

/** `_meta` keys (2026-07-28 basic/index.mdx "_meta"; 2025-11-25 tasks). */
export const META = {
  PROTOCOL_VERSION: 'io.modelcontextprotocol/protocolVersion',
  CLIENT_CAPABILITIES: 'io.modelcontextprotocol/clientCapabilities',
  CLIENT_INFO: 'io.modelcontextprotocol/clientInfo',
  LOG_LEVEL: 'io.modelcontextprotocol/logLevel',
  SERVER_INFO: 'io.modelcontextprotocol/serverInfo',
  SUBSCRIPTION_ID: 'io.modelcontextprotocol/subscriptionId',
  RELATED_TASK: 'io.modelcontextprotocol/related-task',
  PROGRESS_TOKEN: 'progressToken',
} as const

/** Extension identifiers (2026-07-28 extensions; SEP-2663). */
export const EXTENSION = {
  TASKS: 'io.modelcontextprotocol/tasks',
  /** MCP Apps (stable 2026-01-26; spec extensions/overview.mdx): interactive UIs as `ui://` resources linked from tools. */
  UI: 'io.modelcontextprotocol/ui',
} as const

/** MCP Apps: the one mimeType of a UI resource, and the tool `_meta` keys that link one. */
export const MCP_APPS = {
  MIME_TYPE: 'text/html;profile=mcp-app',
  SCHEME: 'ui://',
  /** `_meta.ui.resourceUri` (current) and the flat `_meta["ui/resourceUri"]` (deprecated, still seen). */
  META_KEY: 'ui',
  FLAT_RESOURCE_URI: 'ui/resourceUri',
} as const

/** `resultType` values (2026-07-28 schema: Result.resultType; SEP-2663 adds "task"). */
export const RESULT_TYPE = { COMPLETE: 'complete', INPUT_REQUIRED: 'input_required', TASK: 'task' } as const

/** The request each era's handshake is (2026-07-28 has no initialize: a client discovers the server). */
export const HANDSHAKE_METHOD_OF: Readonly<Record<Era, string>> = { legacy: 'initialize', modern: 'server/discover' }
/** The requests that open a connection: legacy `initialize`, 2026-07-28 `server/discover`. */
export const HANDSHAKE_METHODS: ReadonlySet<string> = new Set(Object.values(HANDSHAKE_METHOD_OF))

/** `cacheScope` values (2026-07-28 server/utilities/caching.mdx). */
export const CACHE_SCOPE = { PUBLIC: 'public', PRIVATE: 'private' } as const

/** Logging levels, RFC 5424 order (all revisions, server/utilities/logging.mdx). */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

/**
 * The client capability each server→client request needs (2026-07-28 basic/index.mdx: a request
 * the client did not declare the capability for is -32021; legacy revisions likewise forbid sending
 * it). The one table: the server engine's input requests and the gateway's brokering both read it.
 */
export const CAPABILITY_OF_ASK = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
} as const
export type AskMethod = keyof typeof CAPABILITY_OF_ASK

/**
 * The JSON Schema `type` names (2020-12 validation vocabulary, section 6.1.1); MCP schemas without
 * `$schema` are 2020-12 (2025-11-25 basic/index.mdx "JSON Schema Usage").
 */
export const JSON_SCHEMA_TYPES: ReadonlySet<string> = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null'])

/** Is `value` a well-formed `type` keyword: one of those names, or a non-empty array of them? */
export function isTypeKeyword(value: unknown): boolean {
  if (typeof value === 'string') return JSON_SCHEMA_TYPES.has(value)
  return Array.isArray(value) && value.length > 0 && value.every((t) => typeof t === 'string' && JSON_SCHEMA_TYPES.has(t))
}

export const MIME = { JSON: 'application/json', SSE: 'text/event-stream' } as const
/**
 * Host names of the loopback interface as Host headers and URLs spell them (lower-case, IPv6 in
 * brackets): basic/transports/streamable-http.mdx "Security Warning" — local servers bind only there.
 */
export const LOOPBACK_HOSTNAMES: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]'])
/** The same names as a listen address spells them (IPv6 without brackets): `daemonAddress`, Bun.serve's hostname. */
/** Where a local listener binds unless told otherwise (IPv4 loopback: every host resolves it). */
export const LOOPBACK_BIND_ADDRESS = '127.0.0.1'
export const LOOPBACK_ADDRESSES: ReadonlySet<string> = new Set([...LOOPBACK_HOSTNAMES].map((name) => name.replace(/^\[(.*)\]$/, '$1')))
/** RFC 9110 section 8.3: `application/json`, optionally with parameters (charset), case-insensitive. */
export function isJsonMediaType(contentType: string | null): boolean {
  if (contentType === null) return false
  return contentType === MIME.JSON || contentType.split(';')[0]!.trim().toLowerCase() === MIME.JSON
}
/** basic/transports/streamable-http.mdx "Sending Messages to the Server": every POST's Accept lists both. */
export const POST_ACCEPT_HEADER = `${MIME.JSON}, ${MIME.SSE}`

/**
 * Tool name length limits. 2025-11-25+ server/tools.mdx "Tool Names": SHOULD be 1–128 characters;
 * SEP-986 (seps/986-specify-format-for-tool-names.md) and the conformance suite's tools-list check
 * keep names to 1–64, the portable length for names mcpx makes up itself.
 */
export const TOOL_NAME_MAX_CHARS = 128
export const PORTABLE_TOOL_NAME_MAX_CHARS = 64

/**
 * The HTTP statuses the Streamable HTTP transport names (basic/transports/streamable-http.mdx, every
 * revision: 202 for notifications/responses, 400/404/405/406/415; 403 for a refused Origin; 413 ours).
 */
export const HTTP_STATUS = {
  OK: 200,
  ACCEPTED: 202,
  NO_CONTENT: 204,
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  NOT_ACCEPTABLE: 406,
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE_CONTENT: 422,
  /** Not in RFC 9110: nginx's "client closed request", the daemon's answer to a cancelled call. */
  CLIENT_CLOSED_REQUEST: 499,
  INTERNAL_SERVER_ERROR: 500,
  BAD_GATEWAY: 502,
  TOO_MANY_REQUESTS: 429,
  SERVICE_UNAVAILABLE: 503,
  GATEWAY_TIMEOUT: 504,
} as const

export function isRevision(value: unknown): value is Revision {
  return typeof value === 'string' && (REVISIONS as readonly string[]).includes(value)
}
export function isLegacyRevision(value: unknown): value is LegacyRevision {
  return typeof value === 'string' && (LEGACY_REVISIONS as readonly string[]).includes(value)
}
export function isModernRevision(value: unknown): value is ModernRevision {
  return typeof value === 'string' && (MODERN_REVISIONS as readonly string[]).includes(value)
}
export function eraOf(revision: Revision): Era {
  return isModernRevision(revision) ? 'modern' : 'legacy'
}
export function atLeast(revision: Revision, floor: Revision): boolean {
  return revision >= floor
}
