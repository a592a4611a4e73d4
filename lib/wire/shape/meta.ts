/**
 * `_meta` keys per revision. 2026-07-28 per-request and per-result keys (basic/index.mdx "_meta")
 * mean nothing to a legacy peer and are dropped for it; 2025-11-25's related-task key
 * (basic/utilities/tasks.mdx) is dropped for older peers. Other keys are the peer's business.
 */
import { isModernRevision, META, type Revision } from '../constants.ts'
import { isRecord } from '../jsonrpc.ts'

/** `_meta` keys defined only by 2026-07-28. */
export const MODERN_META_KEYS: readonly string[] = [
  META.PROTOCOL_VERSION,
  META.CLIENT_CAPABILITIES,
  META.CLIENT_INFO,
  META.LOG_LEVEL,
  META.SERVER_INFO,
  META.SUBSCRIPTION_ID,
]

/** A `_meta` object fit for `revision`, or undefined when nothing is left. */
export function shapeMeta(revision: Revision, meta: unknown): Record<string, unknown> | undefined {
  if (!isRecord(meta)) return undefined
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(meta)) {
    if (!isModernRevision(revision) && MODERN_META_KEYS.includes(key)) continue
    if (revision < '2025-11-25' && key === META.RELATED_TASK) continue
    out[key] = value
  }
  return Object.keys(out).length > 0 ? out : undefined
}

/** Replace `obj._meta` with its shaped form (removing it when empty). Mutates and returns `obj`. */
export function withShapedMeta<T extends Record<string, unknown>>(revision: Revision, obj: T): T {
  if (!('_meta' in obj)) return obj
  const meta = shapeMeta(revision, obj._meta)
  if (meta === undefined) delete obj._meta
  else (obj as Record<string, unknown>)._meta = meta
  return obj
}
