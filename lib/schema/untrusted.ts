/**
 * JSON Schema validation of upstream tool inputs and outputs (structuredContent). Upstream schemas are
 * untrusted: an interpreter (@cfworker/json-schema: no code generation, no remote refs), size and depth
 * caps, risky or long `pattern`s dropped and long strings exempt from patterns (ReDoS on the daemon
 * thread). What cannot be validated passes with `skipped` saying why: a bad schema never breaks a tool.
 */
import type { Interpreter } from './interpreter.ts'
import type { Settings } from '../settings/index.ts'
import { type Accept, compileAccept } from './accept.ts'
import { DEFAULT_DRAFT, type Draft, dialectOf } from './dialect.ts'
import { isTypeKeyword } from '../wire/index.ts'

export interface ValidationIssue {
  /** JSON Pointer into the validated value ('' = the value itself). */
  readonly path: string
  readonly message: string
}

export type SkipReason = 'no-schema' | 'too-large' | 'too-deep' | 'invalid-schema'

export type ValidationResult =
  | { readonly ok: true; readonly skipped?: SkipReason }
  | { readonly ok: false; readonly errors: readonly ValidationIssue[] }

export interface SchemaValidator {
  /** Check tool arguments against `tool.inputSchema`. */
  validateInput(tool: { readonly inputSchema?: unknown }, args: unknown): ValidationResult
  /** Check a tool's structuredContent against `tool.outputSchema` (pass-through when it has none). */
  validateOutput(tool: { readonly outputSchema?: unknown }, structuredContent: unknown): ValidationResult
  /**
   * The compiled accept-check of `tool.inputSchema` (accept.ts), for a caller that checks the same
   * tool's arguments on every call: true means they fit; false, or no check at all (undefined:
   * only the full validator can tell), sends them to validateInput for the verdict.
   */
  inputAccept(tool: { readonly inputSchema?: unknown }): Accept | undefined
}

type SchemaSettings = Pick<
  Settings,
  'schemaMaxBytes' | 'schemaMaxDepth' | 'schemaMaxPatternLength' | 'schemaMaxValidatedStringLength' | 'schemaCacheSize'
>

/**
 * A compiled schema, or why there is none. For plain schemas a fast accept-check, tried first
 * (accept.ts); then two interpreters, built when a value first needs them (interpreter.ts): with
 * patterns, and without (for long strings).
 */
type Compiled =
  | {
      interpreters?: { full: Interpreter; noPatterns: Interpreter }
      schema: object | boolean
      draft: Draft
      accept?: Accept
      broken: boolean
    }
  | { skipped: SkipReason }

/** Errors that only summarise a child's failure (reported separately) are dropped. */
const SUMMARY_KEYWORDS = new Set([
  'properties',
  'items',
  'prefixItems',
  'additionalItems',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'allOf',
  '$ref',
  '$dynamicRef',
  'dependentSchemas',
  'patternProperties',
])
const MAX_ISSUES = 20
const VALID: ValidationResult = { ok: true }
/** A group holding a quantifier, itself quantified: the classic catastrophic-backtracking shape. */
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[+*}?](?:[^()\\]|\\.)*\)\s*(?:[+*]|\{\d+,?\d*\})/

export function createSchemaValidator(settings: SchemaSettings): SchemaValidator {
  const byObject = new WeakMap<object, Compiled>()
  const byText = new Map<string, Compiled>()

  const compile = (schema: unknown): Compiled => {
    if (schema === undefined || schema === null) return { skipped: 'no-schema' }
    if (typeof schema === 'object') {
      const hit = byObject.get(schema)
      if (hit) return hit
    }
    let text: string | undefined
    try {
      text = JSON.stringify(schema)
    } catch {
      return { skipped: 'invalid-schema' }
    }
    if (text === undefined) return { skipped: 'invalid-schema' }
    let compiled = byText.get(text)
    if (compiled) {
      // Least recently used goes first: re-insert on hit.
      byText.delete(text)
    } else compiled = build(schema, text, settings)
    byText.set(text, compiled)
    if (byText.size > settings.schemaCacheSize) byText.delete(byText.keys().next().value!)
    if (typeof schema === 'object') byObject.set(schema, compiled)
    return compiled
  }

  const validate = (schema: unknown, value: unknown): ValidationResult => {
    const compiled = compile(schema)
    if ('skipped' in compiled) return { ok: true, skipped: compiled.skipped }
    if (compiled.broken) return { ok: true, skipped: 'invalid-schema' }
    if (compiled.accept?.(value)) return VALID
    let result: ReturnType<Interpreter['validate']>
    try {
      compiled.interpreters ??= interpretersOf(compiled.schema, compiled.draft, settings)
      const { full, noPatterns } = compiled.interpreters
      result = (hasLongString(value, settings.schemaMaxValidatedStringLength, settings.schemaMaxDepth) ? noPatterns : full).validate(value)
    } catch {
      // Unresolvable $ref, malformed keyword: the schema is at fault, not the value.
      compiled.broken = true
      return { ok: true, skipped: 'invalid-schema' }
    }
    if (result.valid) return VALID
    return { ok: false, errors: issues(result.errors) }
  }

  return {
    validateInput: (tool, args) => validate(tool.inputSchema, args),
    validateOutput: (tool, structuredContent) => validate(tool.outputSchema, structuredContent),
    inputAccept: (tool) => {
      const compiled = compile(tool.inputSchema)
      return 'skipped' in compiled || compiled.broken ? undefined : compiled.accept
    },
  }
}

function build(schema: unknown, text: string, settings: SchemaSettings): Compiled {
  if (text.length > settings.schemaMaxBytes) return { skipped: 'too-large' }
  if (typeof schema !== 'boolean' && (typeof schema !== 'object' || Array.isArray(schema))) return { skipped: 'invalid-schema' }
  if (depthOf(schema, settings.schemaMaxDepth + 1) > settings.schemaMaxDepth) return { skipped: 'too-deep' }
  // The interpreter reads `type: "int"` as a type no value has, so every call would be refused.
  if (hasMalformedType(schema)) return { skipped: 'invalid-schema' }
  const accept = compileAccept(schema)
  const compiled = { schema: schema as object | boolean, draft: draftOf(schema), ...(accept !== undefined && { accept }), broken: false }
  if (accept !== undefined) return compiled
  // No accept-check: every value goes to the interpreters, so they are built now, and a schema they
  // cannot read is skipped from the start.
  try {
    return { ...compiled, interpreters: interpretersOf(compiled.schema, compiled.draft, settings) }
  } catch {
    return { skipped: 'invalid-schema' }
  }
}

/** The interpreters of one schema (throws for a schema they cannot read). */
function interpretersOf(schema: object | boolean, draft: Draft, settings: SchemaSettings): { full: Interpreter; noPatterns: Interpreter } {
  const { createInterpreter } = require('./interpreter.ts') as typeof import('./interpreter.ts')
  const safe = rewritePatterns(schema, (pattern) => isSafePattern(pattern, settings.schemaMaxPatternLength))
  return {
    full: createInterpreter(safe as object, draft),
    noPatterns: createInterpreter(rewritePatterns(schema, () => false) as object, draft),
  }
}

/** MCP's default dialect is 2020-12; a recognised `$schema` selects its draft, an unrecognised one is read as 2020-12. */
function draftOf(schema: unknown): Draft {
  const dialect = dialectOf(schema)
  return dialect === 'absent' || dialect === 'unknown' ? DEFAULT_DRAFT : dialect
}

function isSafePattern(pattern: string, maxLength: number): boolean {
  if (pattern.length > maxLength || NESTED_QUANTIFIER.test(pattern)) return false
  try {
    new RegExp(pattern, 'u')
    return true
  } catch {
    return false
  }
}

/** Copy of the schema keeping only `pattern`s / `patternProperties` keys that `keep` accepts. */
function rewritePatterns(node: unknown, keep: (pattern: string) => boolean): unknown {
  if (Array.isArray(node)) return node.map((item) => rewritePatterns(item, keep))
  if (typeof node !== 'object' || node === null) return node
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === 'pattern' && typeof value === 'string') {
      if (keep(value)) out[key] = value
    } else if (key === 'patternProperties' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const kept = Object.entries(value).filter(([pattern]) => keep(pattern))
      out[key] = Object.fromEntries(kept.map(([pattern, sub]) => [pattern, rewritePatterns(sub, keep)]))
    } else out[key] = rewritePatterns(value, keep)
  }
  return out
}

/** Keywords whose value is one subschema, or an array of them (2020-12 applicator vocabulary; draft 7's items arrays). */
const SUBSCHEMA_KEYWORDS = [
  'items',
  'prefixItems',
  'additionalItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'allOf',
  'anyOf',
  'oneOf',
]
/** Keywords whose value maps names to subschemas (a property may itself be called "type"). */
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions']

/**
 * A `type` keyword anywhere in the schema that names no JSON type (`"int"`, `"any"`, `5`). Walks
 * subschema positions only, so data (`const`, `enum`, `default`) and property names are not read
 * as keywords. The schema's depth was bounded before this walk.
 */
function hasMalformedType(node: unknown): boolean {
  if (typeof node !== 'object' || node === null) return false
  if (Array.isArray(node)) return node.some(hasMalformedType)
  const schema = node as Record<string, unknown>
  if ('type' in schema && !isTypeKeyword(schema.type)) return true
  for (const keyword of SUBSCHEMA_KEYWORDS) if (keyword in schema && hasMalformedType(schema[keyword])) return true
  for (const keyword of SUBSCHEMA_MAPS) {
    const map = schema[keyword]
    if (typeof map === 'object' && map !== null && Object.values(map).some(hasMalformedType)) return true
  }
  return false
}

/** Nesting depth of objects/arrays, stopping once past `limit`. */
function depthOf(node: unknown, limit: number, depth = 0): number {
  if (typeof node !== 'object' || node === null || depth >= limit) return depth
  let max = depth
  for (const value of Object.values(node)) {
    max = Math.max(max, depthOf(value, limit, depth + 1))
    if (max >= limit) break
  }
  return max
}

/** Recursion bound: the same `schemaMaxDepth` the schemas themselves are held to. */
function hasLongString(value: unknown, maxLength: number, maxDepth: number, depth = 0): boolean {
  if (typeof value === 'string') return value.length > maxLength
  if (typeof value !== 'object' || value === null || depth > maxDepth) return false
  for (const [key, item] of Object.entries(value)) {
    if (key.length > maxLength || hasLongString(item, maxLength, maxDepth, depth + 1)) return true
  }
  return false
}

function issues(errors: ReadonlyArray<{ instanceLocation: string; keyword: string; error: string }>): ValidationIssue[] {
  const out: ValidationIssue[] = []
  // additionalProperties/unevaluatedProperties report at the object; their `false` child names the property.
  const closed = new Set(
    errors.filter((e) => e.keyword === 'additionalProperties' || e.keyword === 'unevaluatedProperties').map((e) => e.instanceLocation),
  )
  for (const error of errors) {
    if (SUMMARY_KEYWORDS.has(error.keyword)) continue
    const path = error.instanceLocation.replace(/^#/, '')
    let message = error.error
    if (error.keyword === 'false') {
      const parent = error.instanceLocation.replace(/\/[^/]*$/, '')
      const name = decodeURIComponent(error.instanceLocation.slice(parent.length + 1))
        .replace(/~1/g, '/')
        .replace(/~0/g, '~')
      message = closed.has(parent) ? `unexpected property ${JSON.stringify(name)}` : 'no value is allowed here'
    }
    out.push({ path, message })
    if (out.length >= MAX_ISSUES) break
  }
  return out.length > 0 ? out : [{ path: '', message: 'value does not match the schema' }]
}
