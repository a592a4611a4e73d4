/**
 * A fast accept-check for the plain JSON Schemas most tools declare as `inputSchema`: objects of
 * typed properties, `required`, arrays, enums, bounds. Every tool call is checked against its
 * schema (trusted.ts, untrusted.ts), and the general interpreter walks JSON
 * pointers even for values that pass; this check is compiled once per schema and walks only the
 * value.
 *
 * It never accepts what the full validator would refuse: a schema using anything outside the
 * keywords below compiles to `undefined` (the full validator alone decides), and a value this check
 * refuses goes to the full validator for the verdict and its messages.
 */
import { isRecord, isTypeKeyword } from '../wire/index.ts'

/** True when the value surely matches the schema it was compiled from. */
export type Accept = (value: unknown) => boolean

/** Keywords that never affect validity (2020-12 meta-data and content vocabularies, comments). */
const ANNOTATIONS = new Set([
  '$schema',
  '$id',
  '$comment',
  'title',
  'description',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
])

/** Compile `schema` to an accept-check, or undefined when it uses more than this file understands. */
export function compileAccept(schema: unknown): Accept | undefined {
  if (schema === true) return () => true
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return undefined
  const checks: Accept[] = []
  const node = schema as Record<string, unknown>
  for (const [keyword, value] of Object.entries(node)) {
    if (ANNOTATIONS.has(keyword) || keyword.startsWith('x-')) continue
    const check = keywordCheck(keyword, value, node)
    if (check === undefined) return undefined
    if (check !== null) checks.push(check)
  }
  return (value) => {
    for (const check of checks) if (!check(value)) return false
    return true
  }
}

/** One keyword's check; null when it adds none here (handled by a sibling), undefined when unknown. */
function keywordCheck(keyword: string, value: unknown, node: Record<string, unknown>): Accept | null | undefined {
  switch (keyword) {
    case 'type': {
      if (!isTypeKeyword(value)) return undefined
      const types = Array.isArray(value) ? value : [value]
      // Checks run on every call: loops, no callback allocated per check.
      if (types.length === 1) {
        const only = types[0] as string
        return (v) => hasType(v, only)
      }
      return (v) => {
        for (const t of types) if (hasType(v, t as string)) return true
        return false
      }
    }
    case 'enum':
      if (!Array.isArray(value) || !value.every(isPrimitive)) return undefined
      return (v) => value.includes(v)
    case 'const':
      if (!isPrimitive(value)) return undefined
      return (v) => v === value
    case 'properties':
      return propertiesCheck(value, node.additionalProperties)
    case 'additionalProperties':
      // Checked together with `properties` (which names the properties it does not cover).
      if ('properties' in node) return value === true || value === false || compileAccept(value) !== undefined ? null : undefined
      return propertiesCheck({}, value)
    case 'required':
      if (!Array.isArray(value) || !value.every((k) => typeof k === 'string')) return undefined
      return (v) => {
        if (!isRecord(v)) return true
        for (const k of value as string[]) if (!Object.hasOwn(v, k)) return false
        return true
      }
    case 'items': {
      const item = compileAccept(value)
      if (item === undefined) return undefined
      return (v) => {
        if (!Array.isArray(v)) return true
        for (const element of v) if (!item(element)) return false
        return true
      }
    }
    case 'minItems':
    case 'maxItems':
      if (!isCount(value)) return undefined
      return keyword === 'minItems' ? (v) => !Array.isArray(v) || v.length >= value : (v) => !Array.isArray(v) || v.length <= value
    case 'minLength':
    case 'maxLength':
      if (!isCount(value)) return undefined
      // JSON Schema counts code points, not UTF-16 units.
      return keyword === 'minLength'
        ? (v) => typeof v !== 'string' || codePoints(v) >= value
        : (v) => typeof v !== 'string' || codePoints(v) <= value
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      // Draft-04's boolean exclusive* flags are left to the full validator.
      if (typeof value !== 'number') return undefined
      const bound = value
      const within = {
        minimum: (n: number) => n >= bound,
        maximum: (n: number) => n <= bound,
        exclusiveMinimum: (n: number) => n > bound,
        exclusiveMaximum: (n: number) => n < bound,
      }[keyword]
      return (v) => typeof v !== 'number' || within(v)
    }
    default:
      return undefined
  }
}

/** `properties` and `additionalProperties` of one object schema. */
function propertiesCheck(properties: unknown, additional: unknown): Accept | undefined {
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return undefined
  const known = new Map<string, Accept>()
  for (const [name, sub] of Object.entries(properties)) {
    const check = compileAccept(sub)
    if (check === undefined) return undefined
    known.set(name, check)
  }
  const rest = additional === undefined || additional === true ? undefined : additional === false ? () => false : compileAccept(additional)
  if (additional !== undefined && additional !== true && rest === undefined) return undefined
  return (v) => {
    if (!isRecord(v)) return true
    for (const key in v) {
      const check = known.get(key) ?? rest
      if (check !== undefined && !check(v[key])) return false
    }
    return true
  }
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'object':
      return isRecord(value)
    case 'array':
      return Array.isArray(value)
    case 'integer':
      return Number.isInteger(value)
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
    case 'null':
      return value === null
    default:
      return typeof value === type
  }
}

function isPrimitive(value: unknown): boolean {
  return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))
}

function isCount(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0
}

function codePoints(text: string): number {
  let count = text.length
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--
        i++
      }
    }
  }
  return count
}
