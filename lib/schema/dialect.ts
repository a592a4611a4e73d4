/**
 * The one dialect table: which JSON Schema draft a schema's `$schema` names. MCP's default is
 * 2020-12 (2025-11-25 basic/index.mdx "JSON Schema Usage": schemas without `$schema` are 2020-12;
 * implementations must support at least 2020-12 and may support others). Both entry points read
 * it; they differ only in what an unrecognised `$schema` means (trusted.ts: skip the check,
 * untrusted.ts: validate as 2020-12).
 */
import type { SchemaDraft } from '@cfworker/json-schema'

export type Draft = SchemaDraft

/** `$schema` URIs (http or https, with or without `#`) and the draft @cfworker/json-schema runs them as. */
const DIALECTS: ReadonlyArray<readonly [RegExp, Draft]> = [
  [/draft-0[34]\b/, '4'],
  [/draft-0[67]\b/, '7'],
  [/2019-09/, '2019-09'],
  [/2020-12/, '2020-12'],
]

export const DEFAULT_DRAFT: Draft = '2020-12'

/** The draft `schema.$schema` names; `'absent'` without one, `'unknown'` for a URI the table lacks. */
export function dialectOf(schema: unknown): Draft | 'absent' | 'unknown' {
  const uri = typeof schema === 'object' && schema !== null ? (schema as { $schema?: unknown }).$schema : undefined
  if (typeof uri !== 'string') return 'absent'
  for (const [pattern, draft] of DIALECTS) if (pattern.test(uri)) return draft
  return 'unknown'
}
