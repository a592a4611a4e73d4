/**
 * Tool arguments from a command line, coerced by the tool's inputSchema (never by "looks like
 * JSON": a string property keeps `007` as "007"). Forms, combinable: `key=value`, `key=@file`
 * (file content; `@@` escapes a literal `@`), one inline JSON object, or a JSON object given by the
 * caller (stdin / --args). Dotted keys address nested fields (`a.b=1`, `items.0.name=x`); a key
 * repeats only for an array parameter, whose single value becomes a one-element array. Problems
 * name the field.
 */
import { McpxError } from '../lib/errors/index.ts'
import { suggest } from '../lib/gateway/index.ts'
import { isRecord, isTypeKeyword } from '../lib/wire/index.ts'

type Schema = Record<string, unknown>
export type ReadFile = (path: string) => string

export interface ParsedArguments {
  readonly arguments: Record<string, unknown>
}

export function parseCallArguments(
  tokens: readonly string[],
  inputSchema: unknown,
  options: { readFile: ReadFile; base?: Record<string, unknown> } = { readFile: () => '' },
): Record<string, unknown> {
  const schema = isRecord(inputSchema) ? inputSchema : {}
  const properties = isRecord(schema.properties) ? (schema.properties as Record<string, Schema>) : {}
  const out: Record<string, unknown> = { ...options.base }
  const seen = new Set<string>()
  for (const token of tokens) {
    const trimmed = token.trim()
    if (trimmed.startsWith('{')) {
      Object.assign(out, parseJsonObject(trimmed, 'inline JSON argument'))
      continue
    }
    const eq = token.indexOf('=')
    if (eq <= 0) throw new McpxError('USAGE', `argument "${token}" is not key=value (or a JSON object)`, { token })
    const key = token.slice(0, eq)
    let raw = token.slice(eq + 1)
    let fromFile = false
    if (raw.startsWith('@@')) raw = raw.slice(1)
    else if (raw.startsWith('@') && raw.length > 1) {
      raw = options.readFile(raw.slice(1))
      fromFile = true
    }
    // `a.b=1` and `items.0.name=x` address inside objects and arrays, unless the whole key is a property.
    const path = key in properties || !key.includes('.') ? [key] : key.split('.')
    const top = path[0]!
    if (top === '' || path.some((segment) => segment === ''))
      throw new McpxError('USAGE', `argument "${key}" has an empty segment`, { field: key })
    if (properties[top] === undefined && schema.additionalProperties === false) {
      const hint = suggest(top, Object.keys(properties))
      throw new McpxError(
        'USAGE',
        `unknown argument "${top}"${hint.length ? ` (did you mean ${hint.join(', ')}?)` : ''}; the tool takes: ${Object.keys(properties).join(', ') || 'no arguments'}`,
        {
          field: top,
        },
      )
    }
    let container: Record<string, unknown> | unknown[] = out
    let property: Schema | undefined = properties[top]
    for (let i = 0; i < path.length - 1; i++) {
      const segment = path[i]!
      const next = path[i + 1]!
      const here = path.slice(0, i + 1).join('.')
      const types = typesOf(property)
      if (types.length > 0 && !types.includes('object') && !types.includes('array')) {
        throw new McpxError('USAGE', `argument "${here}" is ${types.join(' or ')}, so "${key}" cannot set a field inside it`, {
          field: key,
        })
      }
      const slot = (container as Record<string, unknown>)[segment]
      if (slot === undefined) (container as Record<string, unknown>)[segment] = /^\d+$/.test(next) ? [] : {}
      else if (typeof slot !== 'object' || slot === null)
        throw new McpxError('USAGE', `argument "${here}" already has a value, so "${key}" cannot set a field inside it`, { field: key })
      container = (container as Record<string, unknown>)[segment] as Record<string, unknown> | unknown[]
      property = childSchema(property, next)
    }
    const leaf = path.at(-1)!
    const target = container as Record<string, unknown>
    const types = typesOf(property)
    if (types.includes('array') && types.includes('null') && raw.trim() === 'null' && !seen.has(key)) {
      // A nullable array takes `null` as itself, not as the one-element [null].
      target[leaf] = null
    } else if (types.includes('array') && !types.includes('string')) {
      // An array parameter: a JSON array as given, else each value (repeated key) is one element.
      const whole = tryType(raw, 'array')
      const items = isRecord(property) && isRecord(property.items) ? (property.items as Schema) : undefined
      const elements = whole !== NO_MATCH ? (whole as unknown[]) : [coerce(key, raw, items, fromFile)]
      const previous = seen.has(key) && Array.isArray(target[leaf]) ? (target[leaf] as unknown[]) : []
      target[leaf] = [...previous, ...elements]
    } else {
      if (seen.has(key))
        throw new McpxError('USAGE', `argument "${key}" given more than once (only array parameters take several values)`, { field: key })
      target[leaf] = coerce(key, raw, property, fromFile)
    }
    seen.add(key)
  }
  return out
}

/**
 * The CLI's pre-flight: required fields and top-level types, checked before the round trip so a
 * USAGE error names the field in the command's own terms. Not a JSON Schema validator: full
 * validation is the daemon's (lib/schema, untrusted entry point), which still runs on the call.
 * `undeclared`: what the caller says of arguments the tool does not declare, added to a refusal for
 * missing ones (a misspelt required argument is both).
 */
export function precheckArguments(args: Record<string, unknown>, inputSchema: unknown, undeclared?: string): void {
  if (!isRecord(inputSchema)) return
  const properties = isRecord(inputSchema.properties) ? (inputSchema.properties as Record<string, Schema>) : {}
  const required = Array.isArray(inputSchema.required) ? (inputSchema.required as string[]) : []
  const missing = required.filter((key) => args[key] === undefined)
  if (missing.length)
    throw new McpxError(
      'USAGE',
      `missing required argument${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}${undeclared === undefined ? '' : `; ${undeclared}`}`,
      { fields: missing },
    )
  for (const [key, value] of Object.entries(args)) {
    const types = typesOf(properties[key])
    if (types.length && !types.some((type) => matchesType(value, type))) {
      throw new McpxError('USAGE', `argument "${key}" must be ${types.join(' or ')}, got ${JSON.stringify(value)}`, {
        field: key,
        expected: types,
      })
    }
  }
}

/**
 * Top-level arguments the tool's inputSchema does not declare, where it declares some and lets others
 * through (a schema with `additionalProperties: false` refused them already, in parseCallArguments):
 * likely a misspelt optional argument, which the tool would ignore without a word.
 */
export function undeclaredArguments(args: Record<string, unknown>, inputSchema: unknown): string[] {
  if (!isRecord(inputSchema) || !isRecord(inputSchema.properties)) return []
  const properties = inputSchema.properties as Record<string, Schema>
  if (Object.keys(properties).length === 0) return []
  return Object.keys(args).filter((key) => properties[key] === undefined)
}

/** The schema of `segment` inside `parent`: an object's property or an array's items. */
function childSchema(parent: Schema | undefined, segment: string): Schema | undefined {
  if (!isRecord(parent)) return undefined
  if (/^\d+$/.test(segment) && isRecord(parent.items)) return parent.items as Schema
  const properties = isRecord(parent.properties) ? (parent.properties as Record<string, Schema>) : undefined
  return properties?.[segment]
}

function coerce(key: string, raw: string, property: Schema | undefined, fromFile: boolean): unknown {
  const types = typesOf(property)
  if (types.length === 0) return fromFile ? raw : guess(raw)
  // Declared order decides a union: anyOf [integer, string] reads "12" as 12, [string, integer] as "12".
  for (const type of types) {
    const value = tryType(raw, type)
    if (value !== NO_MATCH) return value
  }
  throw new McpxError('USAGE', `argument "${key}" must be ${types.join(' or ')}, got "${raw}"`, { field: key, expected: types })
}

const NO_MATCH = Symbol('no match')

function tryType(raw: string, type: string): unknown {
  const text = raw.trim()
  switch (type) {
    case 'integer':
      return /^-?\d+$/.test(text) ? Number(text) : NO_MATCH
    case 'number':
      return text !== '' && Number.isFinite(Number(text)) ? Number(text) : NO_MATCH
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : NO_MATCH
    case 'null':
      return text === 'null' ? null : NO_MATCH
    case 'object':
    case 'array': {
      try {
        const value = JSON.parse(text)
        return matchesType(value, type) ? value : NO_MATCH
      } catch {
        return NO_MATCH
      }
    }
    case 'string':
      return raw
    default:
      return NO_MATCH
  }
}

/** No schema for the key: JSON literals where unambiguous, else the string. */
function guess(raw: string): unknown {
  if (/^(true|false|null|-?\d+(\.\d+)?)$/.test(raw.trim()) || looksStructured(raw)) {
    try {
      return JSON.parse(raw)
    } catch {
      return raw
    }
  }
  return raw
}

function looksStructured(raw: string): boolean {
  const t = raw.trim()
  return (t.startsWith('{') && t.endsWith('}')) || (t.startsWith('[') && t.endsWith(']'))
}

function typesOf(property: Schema | undefined): string[] {
  if (!isRecord(property)) return []
  // A `type` naming no JSON type ("int", "any") says nothing the CLI can coerce by: the value is
  // read as if undeclared, and the daemon's validator skips such a schema too (lib/schema).
  if ('type' in property) return isTypeKeyword(property.type) ? [property.type as string].flat() : []
  const variants = (property.anyOf ?? property.oneOf) as unknown
  if (Array.isArray(variants)) return [...new Set(variants.flatMap((v) => typesOf(v as Schema)))]
  if (Array.isArray(property.enum))
    return [...new Set(property.enum.map((v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v)))]
  return []
}

function matchesType(value: unknown, type: string): boolean {
  switch (type) {
    case 'integer':
      return Number.isInteger(value)
    case 'number':
      return typeof value === 'number'
    case 'string':
      return typeof value === 'string'
    case 'boolean':
      return typeof value === 'boolean'
    case 'null':
      return value === null
    case 'array':
      return Array.isArray(value)
    case 'object':
      return isRecord(value)
    default:
      return true
  }
}

export function parseJsonObject(text: string, what: string): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new McpxError('USAGE', `${what} is not valid JSON: ${(error as Error).message}`)
  }
  if (!isRecord(value)) throw new McpxError('USAGE', `${what} must be a JSON object`)
  return value
}
