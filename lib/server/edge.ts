/**
 * The outgoing edge of the engine: results are built once in the 2026-07-28 shape and finished
 * here for the peer's revision. The engine adds what only a server knows (its identity in
 * `_meta["io.modelcontextprotocol/serverInfo"]`, its cache hints: basic/index.mdx, caching.mdx);
 * lib/wire's shapeResult does the per-revision spelling.
 */
import { type CACHE_SCOPE, CACHEABLE_METHODS, META, RESULT_TYPE, isModernRevision, shapeResult, type Revision } from '../wire/index.ts'
import type { Implementation, JsonObject } from './server-definition.ts'

export interface EdgeOptions {
  serverInfo: Implementation
  cacheTtlMs: number
  /** `private` when the caller is authenticated: a shared cache must not serve it to another principal. */
  cacheScope: (typeof CACHE_SCOPE)[keyof typeof CACHE_SCOPE]
}

export function finishResult(revision: Revision, method: string, result: JsonObject, options: EdgeOptions): JsonObject {
  if (!isModernRevision(revision)) return shapeResult(revision, method, result)
  const out: JsonObject = { ...result }
  out._meta = { ...(out._meta as JsonObject | undefined), [META.SERVER_INFO]: options.serverInfo }
  if ((out.resultType ?? RESULT_TYPE.COMPLETE) === RESULT_TYPE.COMPLETE && CACHEABLE_METHODS.includes(method)) {
    out.ttlMs ??= options.cacheTtlMs
    out.cacheScope ??= options.cacheScope
  }
  return shapeResult(revision, method, out)
}
