/**
 * The ONE declaration of volatile fields: values that legitimately differ from run to run (ids,
 * per-request `_meta`, progress tokens, opaque MRTR state, task ids and clocks) and so never decide
 * whether a request matches a recorded one, nor count as a divergence. Paths are JSON Pointers
 * (RFC 6901, `~1` = `/`) with `*` for any one key or index, optionally scoped to a method:
 * `tools/call:/result/content/0/text`. `--volatile` adds to this list; nothing else declares any.
 */
import { McpxError } from '../errors/index.ts'
import { REDACTED } from './format.ts'

export interface VolatileField {
  /** Only messages of this method (or answering a request of it); undefined = every message. */
  readonly method?: string
  readonly pointer: readonly string[]
}

export const VOLATILE_FIELDS: readonly string[] = [
  '/id',
  '/params/_meta',
  '/params/progressToken',
  '/params/requestId',
  '/params/requestState',
  '/result/requestState',
  '/result/_meta/io.modelcontextprotocol~1related-task',
  '/result/taskId',
  '/result/task/taskId',
  '/result/createdAt',
  '/result/lastUpdatedAt',
  '/result/tasks/*/taskId',
  '/result/tasks/*/createdAt',
  '/result/tasks/*/lastUpdatedAt',
  '/params/taskId',
  // Errors are recognised by code and data, never by message text (messages are for people and change freely).
  '/error/message',
  // The handshake describes the client, not the request: any client may replay a recording.
  'initialize:/params/clientInfo',
  'initialize:/params/capabilities',
  'initialize:/params/protocolVersion',
]

/** Parse `[method:]/json/pointer`; throws on anything else. */
export function parseVolatile(spec: string): VolatileField {
  const scoped = spec.startsWith('/') ? -1 : spec.indexOf(':/')
  const pointerText = scoped === -1 ? spec : spec.slice(scoped + 1)
  if (!pointerText.startsWith('/') || (scoped === -1 && !spec.startsWith('/'))) {
    throw new McpxError(
      'USAGE',
      `volatile field ${JSON.stringify(spec)} must be a JSON Pointer like /result/timestamp, optionally scoped as method:/pointer`,
    )
  }
  const pointer = pointerText
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
  return scoped === -1 ? { pointer } : { method: spec.slice(0, scoped), pointer }
}

/** The declared list plus extras (e.g. from `--volatile`). */
export function volatileFields(extra: readonly string[] = []): VolatileField[] {
  return [...VOLATILE_FIELDS, ...extra].map(parseVolatile)
}

/**
 * Deep copy of `message` without its volatile fields. `method` is the request method the message
 * is (or answers). Redacted values become a wildcard that equals anything.
 */
export function normalize(message: unknown, method: string | undefined, fields: readonly VolatileField[]): unknown {
  const active = fields.filter((f) => f.method === undefined || f.method === method).map((f) => f.pointer)
  const walk = (value: unknown, path: string[]): unknown => {
    if (Array.isArray(value)) {
      return value.flatMap((item, i) => (active.some((p) => matches(p, [...path, String(i)])) ? [] : [walk(item, [...path, String(i)])]))
    }
    if (typeof value !== 'object' || value === null) return value
    const out: Record<string, unknown> = {}
    for (const [key, child] of Object.entries(value)) {
      const childPath = [...path, key]
      if (active.some((p) => matches(p, childPath))) continue
      out[key] = walk(child, childPath)
    }
    return out
  }
  return walk(message, [])
}

/** Equality used for matching and diffing: a recorded REDACTED value equals anything. */
export function isWildcard(value: unknown): boolean {
  return value === REDACTED
}

function matches(pattern: readonly string[], path: readonly string[]): boolean {
  return pattern.length === path.length && pattern.every((segment, i) => segment === '*' || segment === path[i])
}
