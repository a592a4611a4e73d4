/**
 * Era entry points: the legacy `initialize` negotiation (a counter-offer, never an error:
 * 2025-11-25 basic/lifecycle.mdx "Version Negotiation"), the 2026 `server/discover` result, the
 * per-revision server capabilities, and the validation of the modern per-request `_meta`
 * (2026-07-28 basic/index.mdx "_meta": missing keys -32602, unknown version -32022 with data
 * {supported, requested}; HTTP status 400 for both).
 */
import { RPC, RpcError, toRpcError } from '../errors/index.ts'
import {
  shapeServerCapabilities,
  HTTP_STATUS,
  EXTENSION,
  LATEST_LEGACY,
  LOG_LEVELS,
  META,
  REVISIONS,
  isLegacyRevision,
  isModernRevision,
  isRecord,
  type LegacyRevision,
  type LogLevel,
  type ModernRevision,
  type Revision,
  unsupportedVersion,
} from '../wire/index.ts'
import type { Registry } from './registry.ts'
import type { Implementation, JsonObject, ServerDefinition } from './server-definition.ts'

/** Every revision this engine serves, newest first (the -32022 `supported` list). */
export const SUPPORTED_REVISIONS: Revision[] = [...REVISIONS].reverse()

/** Legacy: echo a supported version, else counter-offer the latest legacy one. */
export function negotiateLegacy(requested: unknown): LegacyRevision {
  return isLegacyRevision(requested) ? requested : LATEST_LEGACY
}

/**
 * The capabilities this engine serves at `revision`: built once in the newest (2026-07-28) shape,
 * spelled for the revision by wire's shapeServerCapabilities (fields it lacks dropped, tasks as the
 * 2025-11-25 core capability or the 2026 extension).
 */
export function serverCapabilities(def: ServerDefinition, registry: Registry, revision: Revision): JsonObject {
  return shapeServerCapabilities(revision, def.capabilities ? mirroredCapabilities(def) : ownCapabilities(def, registry))
}

function ownCapabilities(def: ServerDefinition, registry: Registry): JsonObject {
  const caps: JsonObject = {}
  const listChanged = def.listChanged ?? true
  if (registry.toolCount > 0 || def.tools) caps.tools = { listChanged }
  if (registry.promptCount > 0 || def.prompts) caps.prompts = { listChanged }
  if (registry.resourceCount > 0 || def.resources || def.templates) {
    caps.resources = { listChanged, subscribe: def.subscribe ?? true }
  }
  if (def.logging ?? true) caps.logging = {}
  if (def.complete) caps.completions = {}
  const extensions: JsonObject = { ...def.extensions }
  if (def.tasks) extensions[EXTENSION.TASKS] = {}
  if (Object.keys(extensions).length > 0) caps.extensions = extensions
  return caps
}

/**
 * Another server's capabilities as given (def.capabilities), newest shape, with tasks only where
 * this engine serves them (def.tasks) and completions only with a completion handler.
 */
function mirroredCapabilities(def: ServerDefinition): JsonObject {
  const { tasks: _tasks, extensions, ...caps } = def.capabilities as JsonObject
  const { [EXTENSION.TASKS]: _taskExtension, ...otherExtensions } = isRecord(extensions) ? extensions : {}
  const out: JsonObject = { ...caps }
  if (def.complete === undefined) delete out.completions
  const ext: JsonObject = { ...otherExtensions, ...def.extensions }
  if (def.tasks) ext[EXTENSION.TASKS] = {}
  if (Object.keys(ext).length > 0) out.extensions = ext
  return out
}

/** A server that cannot serve now (ServerDefinition.unavailable) answers its handshake with why. */
function refuseIfUnavailable(def: ServerDefinition): void {
  const down = def.unavailable?.()
  if (down !== undefined) throw toRpcError(down)
}

export function initializeResult(def: ServerDefinition, registry: Registry, revision: LegacyRevision): JsonObject {
  refuseIfUnavailable(def)
  const result: JsonObject = { protocolVersion: revision, capabilities: serverCapabilities(def, registry, revision), serverInfo: def.info }
  if (def.instructions !== undefined) result.instructions = def.instructions
  return result
}

export function discoverResult(def: ServerDefinition, registry: Registry, revision: ModernRevision): JsonObject {
  refuseIfUnavailable(def)
  // A dual-era server names its legacy revisions too (versioning.mdx example lists 2025-11-25).
  const result: JsonObject = { supportedVersions: [...SUPPORTED_REVISIONS], capabilities: serverCapabilities(def, registry, revision) }
  if (def.instructions !== undefined) result.instructions = def.instructions
  return result
}

/** The validated per-request metadata of a modern request. */
export interface ModernMeta {
  revision: ModernRevision
  clientCapabilities: JsonObject
  clientInfo?: Implementation
  logLevel?: LogLevel
  meta: JsonObject
}

/**
 * Validate `params._meta` of a modern request: missing keys first, then an unsupported version
 * (the conformance error matrix's order). The MCP-Protocol-Version header against `_meta` is not
 * checked here: on HTTP, http/modern-headers.ts owns that comparison and runs before the engine
 * sees the request; stdio has no header.
 */
export function validateModernMeta(params: JsonObject | undefined): ModernMeta {
  const meta = params?._meta
  if (!isRecord(meta)) throw invalid('params._meta is required on every 2026-07-28 request')
  const version = meta[META.PROTOCOL_VERSION]
  if (typeof version !== 'string') throw invalid(`params._meta["${META.PROTOCOL_VERSION}"] is required`)
  const caps = meta[META.CLIENT_CAPABILITIES]
  if (!isRecord(caps)) throw invalid(`params._meta["${META.CLIENT_CAPABILITIES}"] is required`)
  if (!isModernRevision(version)) throw unsupportedVersion(SUPPORTED_REVISIONS, version)
  const logLevel = meta[META.LOG_LEVEL]
  const out: ModernMeta = { revision: version, clientCapabilities: caps, meta }
  if (isRecord(meta[META.CLIENT_INFO])) out.clientInfo = meta[META.CLIENT_INFO] as Implementation
  if (typeof logLevel === 'string' && (LOG_LEVELS as readonly string[]).includes(logLevel)) out.logLevel = logLevel as LogLevel
  return out
}

function invalid(message: string): RpcError {
  return new RpcError(RPC.INVALID_PARAMS, message, undefined, HTTP_STATUS.BAD_REQUEST)
}
