/**
 * An upstream result handed downstream "verbatim": the upstream's own envelope fields (resultType,
 * its serverInfo `_meta`) are dropped so the engine can finish the result for the downstream's era.
 */
import type { JsonObject } from '../../client/index.ts'
import { META } from '../../wire/index.ts'

export function relayResult(result: JsonObject): JsonObject {
  // Most results carry none of them: handed on as they are (each is a fresh object per call).
  if (!('resultType' in result || 'ttlMs' in result || 'cacheScope' in result || hasServerInfo(result._meta))) return result
  const { resultType: _resultType, ttlMs: _ttlMs, cacheScope: _cacheScope, ...rest } = result
  const meta = rest._meta as Record<string, unknown> | undefined
  if (meta && META.SERVER_INFO in meta) {
    const { [META.SERVER_INFO]: _serverInfo, ...otherMeta } = meta
    if (Object.keys(otherMeta).length) rest._meta = otherMeta
    else delete rest._meta
  }
  return rest
}

function hasServerInfo(meta: unknown): boolean {
  return typeof meta === 'object' && meta !== null && META.SERVER_INFO in meta
}
