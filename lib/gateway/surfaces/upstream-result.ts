/**
 * An upstream result handed downstream "verbatim": the upstream's own envelope fields (resultType,
 * its serverInfo `_meta`) are dropped so the engine can finish the result for the downstream's era.
 */
import type { JsonObject } from '../../client/index.ts'
import { META } from '../../wire/index.ts'

export function relayResult(result: JsonObject): JsonObject {
  const { resultType: _resultType, ttlMs: _ttlMs, cacheScope: _cacheScope, ...rest } = result
  const meta = rest._meta as Record<string, unknown> | undefined
  if (meta && META.SERVER_INFO in meta) {
    const { [META.SERVER_INFO]: _serverInfo, ...otherMeta } = meta
    if (Object.keys(otherMeta).length) rest._meta = otherMeta
    else delete rest._meta
  }
  return rest
}
