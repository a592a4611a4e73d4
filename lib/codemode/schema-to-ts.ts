/**
 * JSON Schema (2020-12 and draft-07) → TypeScript type text, for the declarations agents read
 * before writing mcpx_exec scripts. Only local `#…` refs are followed (never files or URLs: an
 * upstream's schema must not make mcpx read or fetch anything); `$defs`/`definitions` become named
 * types prefixed per tool, so two tools' `User` never collide. Anything not understood, too deep,
 * or cyclic through an inline ref becomes `unknown`, which is always sound.
 */
import { sanitizeIdentifier } from './identifiers.ts'
import { isRecord } from '../wire/index.ts'

type Schema = Record<string, unknown>

export interface TypeRenderContext {
  /** Prefix of named types from this schema, e.g. `search_issues_Input`. */
  readonly prefix: string
  readonly root: unknown
  readonly maxDepth: number
  /** Named types emitted so far (name → type text), shared by input and output of one tool. */
  readonly named: Map<string, string>
  /** Names taken in the enclosing namespace. */
  readonly taken: Set<string>
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/
const DEF_POINTER = /^#\/(?:\$defs|definitions)\/([^/]+)$/

/** Render the root schema as the type `ctx.prefix` and return its name (or an inline fallback). */
export function renderRootType(ctx: TypeRenderContext): string {
  const state = { inline: new Set<string>(), pointerNames: new Map<string, string>([['#', ctx.prefix]]) }
  ctx.taken.add(ctx.prefix)
  ctx.named.set(ctx.prefix, 'unknown')
  ctx.named.set(ctx.prefix, render(ctx.root, 0, ctx, state))
  return ctx.prefix
}

/**
 * One property's type as inline text (`string[]`, `"a" | "b"`), for compact signatures such as
 * `mcpx tools`; `$ref`s resolve against `root`'s `$defs`/`definitions`, named types stay unknown.
 */
export function inlineTypeText(schema: unknown, root: unknown, maxDepth = 3): string {
  const defs = isRecord(root)
    ? { ...(root.$defs !== undefined && { $defs: root.$defs }), ...(root.definitions !== undefined && { definitions: root.definitions }) }
    : {}
  const ctx: TypeRenderContext = {
    prefix: 'T',
    root: isRecord(schema) ? { ...defs, ...schema } : schema,
    maxDepth,
    named: new Map(),
    taken: new Set(),
  }
  return render(ctx.root, 0, ctx, { inline: new Set(), pointerNames: new Map([['#', 'T']]) })
}

interface RenderState {
  /** Inline (non-$defs) pointers currently being expanded, to cut cycles. */
  readonly inline: Set<string>
  /** Pointer → named type already assigned. */
  readonly pointerNames: Map<string, string>
}

function render(schema: unknown, depth: number, ctx: TypeRenderContext, state: RenderState): string {
  if (schema === true || schema === undefined) return 'unknown'
  if (schema === false) return 'never'
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema) || depth > ctx.maxDepth) return 'unknown'
  const s = schema as Schema
  const parts: string[] = []

  if (typeof s.$ref === 'string') {
    parts.push(renderRef(s.$ref, depth, ctx, state))
    // draft-07 ignores keywords beside $ref; 2020-12 applies them too.
    if (isDraft07(ctx.root) || !hasTypeKeywords(s)) return parts[0]!
  }
  if (typeof s.$dynamicRef === 'string') return 'unknown'
  if ('const' in s) parts.push(literal(s.const))
  else if (Array.isArray(s.enum)) parts.push(s.enum.length === 0 ? 'never' : union(s.enum.map(literal)))
  else {
    const own = renderByType(s, depth, ctx, state)
    if (own !== undefined) parts.push(own)
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = s[key]
    if (Array.isArray(list) && list.length > 0) parts.push(union(list.map((x) => render(x, depth + 1, ctx, state))))
  }
  if (Array.isArray(s.allOf) && s.allOf.length > 0) parts.push(...s.allOf.map((x) => render(x, depth + 1, ctx, state)))
  if (parts.length === 0) return 'unknown'
  const type = parts.length === 1 ? parts[0]! : parts.map(wrap).join(' & ')
  return s.nullable === true ? `${wrap(type)} | null` : type
}

function renderByType(s: Schema, depth: number, ctx: TypeRenderContext, state: RenderState): string | undefined {
  const types = Array.isArray(s.type)
    ? s.type.filter((t): t is string => typeof t === 'string')
    : typeof s.type === 'string'
      ? [s.type]
      : []
  if (types.length === 0) {
    if (s.properties || s.additionalProperties !== undefined || s.required) return renderObject(s, depth, ctx, state)
    if (s.items !== undefined || s.prefixItems !== undefined) return renderArray(s, depth, ctx, state)
    return undefined
  }
  return union(
    types.map((t) => {
      switch (t) {
        case 'string':
          return 'string'
        case 'number':
        case 'integer':
          return 'number'
        case 'boolean':
          return 'boolean'
        case 'null':
          return 'null'
        case 'object':
          return renderObject(s, depth, ctx, state)
        case 'array':
          return renderArray(s, depth, ctx, state)
        default:
          return 'unknown'
      }
    }),
  )
}

function renderObject(s: Schema, depth: number, ctx: TypeRenderContext, state: RenderState): string {
  const properties = isRecord(s.properties) ? s.properties : {}
  const required = new Set(Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : [])
  const indent = '  '.repeat(depth + 2)
  const lines: string[] = []
  for (const [key, value] of Object.entries(properties)) {
    const doc = jsDoc(value, indent)
    const optional = required.has(key) ? '' : '?'
    lines.push(`${doc}${indent}${propertyKey(key)}${optional}: ${render(value, depth + 1, ctx, state)};`)
  }
  const extra = s.additionalProperties ?? (isRecord(s.patternProperties) && Object.keys(s.patternProperties).length > 0 ? true : undefined)
  if (extra !== undefined && extra !== false) {
    // A typed index signature must cover every property's type; with properties present, unknown is the sound choice.
    const valueType = lines.length > 0 ? 'unknown' : render(extra, depth + 1, ctx, state)
    lines.push(`${indent}[key: string]: ${valueType};`)
  }
  if (lines.length === 0) return extra === false ? 'Record<string, never>' : '{ [key: string]: unknown }'
  return `{\n${lines.join('\n')}\n${'  '.repeat(depth + 1)}}`
}

function renderArray(s: Schema, depth: number, ctx: TypeRenderContext, state: RenderState): string {
  // 2020-12: prefixItems + items (rest). draft-07: items as an array + additionalItems (rest).
  const tuple = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : undefined
  if (tuple) {
    const rest = Array.isArray(s.prefixItems) ? s.items : s.additionalItems
    const head = tuple.map((x) => render(x, depth + 1, ctx, state))
    if (rest === false) return `[${head.join(', ')}]`
    return `[${[...head, `...${wrap(render(rest, depth + 1, ctx, state))}[]`].join(', ')}]`
  }
  return `${wrap(render(s.items, depth + 1, ctx, state))}[]`
}

function renderRef(ref: string, depth: number, ctx: TypeRenderContext, state: RenderState): string {
  if (!ref.startsWith('#')) return 'unknown'
  const named = state.pointerNames.get(ref)
  if (named) return named
  const target = resolvePointer(ctx.root, ref)
  if (target === undefined) return 'unknown'
  const def = DEF_POINTER.exec(ref)
  if (def) {
    const name = uniqueName(`${ctx.prefix}_${sanitizeIdentifier(decodePointer(def[1]!))}`, ctx.taken)
    state.pointerNames.set(ref, name)
    ctx.named.set(name, 'unknown')
    ctx.named.set(name, render(target, 0, ctx, state))
    return name
  }
  if (state.inline.has(ref)) return 'unknown'
  state.inline.add(ref)
  const type = render(target, depth + 1, ctx, state)
  state.inline.delete(ref)
  return type
}

function resolvePointer(root: unknown, ref: string): unknown {
  if (ref === '#') return root
  if (!ref.startsWith('#/')) return undefined
  let node: unknown = root
  for (const raw of ref.slice(2).split('/')) {
    const key = decodePointer(raw)
    if (Array.isArray(node)) node = node[Number(key)]
    else if (isRecord(node) && Object.hasOwn(node, key)) node = node[key]
    else return undefined
  }
  return node
}

function decodePointer(segment: string): string {
  let text = segment
  try {
    text = decodeURIComponent(segment)
  } catch {
    // Not URI-encoded; use as is.
  }
  return text.replace(/~1/g, '/').replace(/~0/g, '~')
}

/** JSDoc for a property: description, default, format, bounds, pattern (text only, `*\/` escaped). */
export function jsDoc(schema: unknown, indent: string, extra: string[] = []): string {
  const notes = [...extra]
  if (isRecord(schema)) {
    if (typeof schema.description === 'string' && schema.description.trim()) notes.push(schema.description.trim())
    if (schema.type === 'integer') notes.push('integer')
    if (typeof schema.format === 'string') notes.push(`format: ${schema.format}`)
    for (const key of [
      'minimum',
      'maximum',
      'exclusiveMinimum',
      'exclusiveMaximum',
      'minLength',
      'maxLength',
      'minItems',
      'maxItems',
    ] as const) {
      if (typeof schema[key] === 'number') notes.push(`${key}: ${schema[key]}`)
    }
    if (typeof schema.pattern === 'string') notes.push(`pattern: ${schema.pattern}`)
    if ('default' in schema) {
      const text = JSON.stringify(schema.default)
      if (text !== undefined && text.length <= 200) notes.push(`@default ${text}`)
    }
    if (schema.deprecated === true) notes.push('@deprecated')
  }
  if (notes.length === 0) return ''
  const body = notes.join('\n').replace(/\*\//g, '*\\/').split('\n')
  if (body.length === 1) return `${indent}/** ${body[0]} */\n`
  return `${indent}/**\n${body.map((line) => `${indent} * ${line}`.trimEnd()).join('\n')}\n${indent} */\n`
}

function propertyKey(key: string): string {
  return IDENT.test(key) ? key : JSON.stringify(key)
}

function literal(value: unknown): string {
  if (value === null) return 'null'
  if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value)
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'number'
  return 'unknown'
}

function union(types: string[]): string {
  const unique = [...new Set(types)]
  if (unique.includes('unknown')) return 'unknown'
  return unique.length === 1 ? unique[0]! : unique.join(' | ')
}

/** Parenthesise anything but a bare name (so `[]`, `&` and `| null` bind to the whole type). */
function wrap(type: string): string {
  return /^[A-Za-z0-9_$.]+(\[\])*$/.test(type) ? type : `(${type})`
}

function uniqueName(base: string, taken: Set<string>): string {
  let name = base
  for (let n = 2; taken.has(name); n++) name = `${base}_${n}`
  taken.add(name)
  return name
}

function hasTypeKeywords(s: Schema): boolean {
  return ['type', 'properties', 'items', 'prefixItems', 'enum', 'const', 'anyOf', 'oneOf', 'allOf', 'additionalProperties'].some(
    (k) => k in s,
  )
}

function isDraft07(root: unknown): boolean {
  return isRecord(root) && typeof root.$schema === 'string' && /draft-0[3-7]/.test(root.$schema)
}
