/**
 * Tool arguments checked against the tool's inputSchema before the handler runs. Failures are tool
 * execution errors (`isError` result, SEP-1303: the model can read and correct them), not protocol
 * errors. The dialect is the schema's `$schema` or 2020-12 (2025-11-25 basic/index.mdx "JSON
 * Schema Usage"); an unsupported dialect or an unusable schema skips the check ("fail gracefully").
 * References are never fetched (2026-07-28 basic/index.mdx: no network `$ref`).
 */
import { Validator, type Schema, type SchemaDraft } from '@cfworker/json-schema'
import { type Accept, compileAccept } from '../wire/index.ts'
import type { Json, ToolDef } from './types.ts'

const DIALECTS: Record<string, SchemaDraft> = {
  'https://json-schema.org/draft/2020-12/schema': '2020-12',
  'https://json-schema.org/draft/2019-09/schema': '2019-09',
  'http://json-schema.org/draft-07/schema': '7',
  'http://json-schema.org/draft-04/schema': '4',
}
const DEFAULT_DIALECT: SchemaDraft = '2020-12'
/** Per schema: the interpreter (null when the schema is unusable) and, for plain schemas, the fast accept-check. */
const validators = new WeakMap<object, { full: Validator | null; accept?: Accept }>()

/** The isError result describing why `args` do not fit the tool's schema, or undefined when they do. */
export function checkArguments(tool: ToolDef, args: Json): Json | undefined {
  const schema = tool.inputSchema
  if (!schema) return undefined
  let compiled = validators.get(schema)
  if (compiled === undefined) {
    const full = createValidator(schema)
    const accept = full === null ? undefined : compileAccept(schema)
    compiled = accept === undefined ? { full } : { full, accept }
    validators.set(schema, compiled)
  }
  const validator = compiled.full
  if (validator === null || compiled.accept?.(args)) return undefined
  const result = validator.validate(args)
  if (result.valid) return undefined
  const problems = result.errors
    .filter((e) => e.keyword !== 'properties' && e.keyword !== 'allOf')
    .map((e) => `${e.instanceLocation === '#' ? 'arguments' : e.instanceLocation.replace(/^#/, 'arguments')}: ${e.error}`)
  return { isError: true, content: [{ type: 'text', text: `Invalid arguments for tool ${tool.name}: ${(problems.length > 0 ? problems : [result.errors[0]?.error ?? 'invalid']).join('; ')}` }] }
}

function createValidator(schema: Json): Validator | null {
  const declared = typeof schema.$schema === 'string' ? schema.$schema.replace(/#$/, '') : undefined
  const dialect = declared === undefined ? DEFAULT_DIALECT : DIALECTS[declared]
  if (dialect === undefined) return null
  try {
    return new Validator(schema as Schema, dialect, false)
  } catch {
    return null
  }
}
