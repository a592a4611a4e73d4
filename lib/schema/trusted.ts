/**
 * Trusted schemas: the tools a server defines itself (lib/server), checked before the handler runs.
 * The dialect is the schema's `$schema` or 2020-12 (dialect.ts); an unrecognised dialect or an
 * unusable schema skips the check ("fail gracefully", 2025-11-25 basic/index.mdx "JSON Schema
 * Usage"). No size or pattern guards: the schema is the server author's own. References are never
 * fetched (2026-07-28 basic/index.mdx: no network `$ref`).
 */
import { Validator, type Schema } from '@cfworker/json-schema'
import { type Accept, compileAccept } from './accept.ts'
import { DEFAULT_DRAFT, dialectOf } from './dialect.ts'

/** Declared cache: per schema object, the interpreter (null when unusable) and, for plain schemas, the fast accept-check. */
const compiledTrusted = new WeakMap<object, { full: Validator | null; accept?: Accept }>()

/** Why `value` does not fit `schema` (one line per problem, `arguments…` paths), or undefined when it does or cannot be checked. */
export function trustedProblems(schema: Record<string, unknown>, value: unknown): string[] | undefined {
  let compiled = compiledTrusted.get(schema)
  if (compiled === undefined) {
    const full = createValidator(schema)
    const accept = full === null ? undefined : compileAccept(schema)
    compiled = accept === undefined ? { full } : { full, accept }
    compiledTrusted.set(schema, compiled)
  }
  const validator = compiled.full
  if (validator === null || compiled.accept?.(value)) return undefined
  const result = validator.validate(value)
  if (result.valid) return undefined
  const problems = result.errors
    .filter((e) => e.keyword !== 'properties' && e.keyword !== 'allOf')
    .map((e) => `${e.instanceLocation === '#' ? 'arguments' : e.instanceLocation.replace(/^#/, 'arguments')}: ${e.error}`)
  return problems.length > 0 ? problems : [result.errors[0]?.error ?? 'invalid']
}

function createValidator(schema: Record<string, unknown>): Validator | null {
  const dialect = dialectOf(schema)
  if (dialect === 'unknown') return null
  try {
    return new Validator(schema as Schema, dialect === 'absent' ? DEFAULT_DRAFT : dialect, false)
  } catch {
    return null
  }
}
