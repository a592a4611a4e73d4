/**
 * Trusted schemas: the tools a server defines itself (lib/server), checked before the handler runs.
 * The dialect is the schema's `$schema` or 2020-12 (dialect.ts); an unrecognised dialect or an
 * unusable schema skips the check ("fail gracefully", 2025-11-25 basic/index.mdx "JSON Schema
 * Usage"). No size or pattern guards: the schema is the server author's own. References are never
 * fetched (2026-07-28 basic/index.mdx: no network `$ref`).
 */
import { type Accept, compileAccept } from './accept.ts'
import { DEFAULT_DRAFT, type Draft, dialectOf } from './dialect.ts'
import type { Interpreter } from './interpreter.ts'

/**
 * Declared cache: per schema object, for plain schemas the fast accept-check, and the interpreter (null
 * when unusable; built when a value first needs it, interpreter.ts).
 */
const compiledTrusted = new WeakMap<object, { full?: Interpreter | null; draft: Draft | null; accept?: Accept }>()

/** Why `value` does not fit `schema` (one line per problem, `arguments…` paths), or undefined when it does or cannot be checked. */
export function trustedProblems(schema: Record<string, unknown>, value: unknown): string[] | undefined {
  let compiled = compiledTrusted.get(schema)
  if (compiled === undefined) {
    const dialect = dialectOf(schema)
    const draft = dialect === 'unknown' ? null : dialect === 'absent' ? DEFAULT_DRAFT : dialect
    const accept = draft === null ? undefined : compileAccept(schema)
    compiled = accept === undefined ? { draft } : { draft, accept }
    // Without an accept-check every value goes to the interpreter: built now, as a schema it cannot read skips the check.
    if (accept === undefined) compiled.full = createValidator(schema, draft)
    compiledTrusted.set(schema, compiled)
  }
  if (compiled.draft === null || compiled.accept?.(value)) return undefined
  const validator = (compiled.full ??= createValidator(schema, compiled.draft))
  if (validator === null) return undefined
  const result = validator.validate(value)
  if (result.valid) return undefined
  const problems = result.errors
    .filter((e) => e.keyword !== 'properties' && e.keyword !== 'allOf')
    .map((e) => `${e.instanceLocation === '#' ? 'arguments' : e.instanceLocation.replace(/^#/, 'arguments')}: ${e.error}`)
  return problems.length > 0 ? problems : [result.errors[0]?.error ?? 'invalid']
}

function createValidator(schema: Record<string, unknown>, draft: Draft | null): Interpreter | null {
  if (draft === null) return null
  try {
    return (require('./interpreter.ts') as typeof import('./interpreter.ts')).createInterpreter(schema, draft)
  } catch {
    return null
  }
}
