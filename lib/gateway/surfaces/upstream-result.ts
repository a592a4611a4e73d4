/**
 * An upstream result handed downstream "verbatim": the upstream's own envelope fields (resultType,
 * its serverInfo `_meta`) are dropped so the engine can finish the result for the downstream's era.
 */
import type { JsonObject } from '../../client/index.ts'
import { META, RESULT_TYPE } from '../../wire/index.ts'

export function relayResult(result: JsonObject): JsonObject {
  // Most results carry none of them: handed on as they are (each is a fresh object per call). A
  // `resultType: "complete"` (the client's newest shape) says what absence says, so it may stay:
  // the engine spells every result for its host's revision (wire/shape/result.ts) either way.
  const resultType = result.resultType
  if (
    (resultType === undefined || resultType === RESULT_TYPE.COMPLETE) &&
    !('ttlMs' in result || 'cacheScope' in result || hasServerInfo(result._meta))
  )
    return result
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
