/**
 * Secret redaction applied before anything reaches a recording file. Values are replaced by
 * "[REDACTED]" in place and each entry lists the paths it lost, so a reader sees that (and where)
 * something was hidden. Header rules: exact names plus a token-like name pattern (Authorization,
 * cookies, X-Api-Key, Mcp-Session-Id, …). Field rules: a bare key matches that key at any depth
 * (case-insensitive); a dotted path (`params.arguments.password`, `*` = any one key) matches there.
 */
import { REDACTED } from './format.ts'

export interface RedactionRules {
  /** Header names, lower case. */
  readonly headers: readonly string[]
  /** Bare keys or dotted paths into a message. */
  readonly fields: readonly string[]
}

/** Any header whose name contains one of these is treated as carrying a credential. */
const TOKEN_LIKE_HEADER = /token|secret|password|passwd|api-?key|auth|cookie|session|credential/i

export const DEFAULT_REDACTION: RedactionRules = {
  headers: ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'mcp-session-id', 'x-api-key'],
  fields: [
    'password',
    'passwd',
    'secret',
    'client_secret',
    'access_token',
    'refresh_token',
    'id_token',
    'api_key',
    'apiKey',
    'token',
    'authorization',
  ],
}

/** The default rules plus configured extras (`--redact-header`, `--redact-field`, config). */
export function redactionRules(extra: { headers?: readonly string[]; fields?: readonly string[] } = {}): RedactionRules {
  return {
    headers: unique([...DEFAULT_REDACTION.headers, ...(extra.headers ?? []).map((h) => h.toLowerCase())]),
    fields: unique([...DEFAULT_REDACTION.fields, ...(extra.fields ?? [])]),
  }
}

/** How the rules are written into the recording header (the name pattern spelled out). */
export function describeRules(rules: RedactionRules): { headers: string[]; fields: string[] } {
  return { headers: [...rules.headers, String(TOKEN_LIKE_HEADER)], fields: [...rules.fields] }
}

export function isSecretHeader(name: string, rules: RedactionRules): boolean {
  const lower = name.toLowerCase()
  return rules.headers.includes(lower) || TOKEN_LIKE_HEADER.test(lower)
}

/** Copy of `headers` with secret values replaced; `redacted` lists `headers.<name>` paths. */
export function redactHeaders(
  headers: Record<string, string>,
  rules: RedactionRules,
): { headers: Record<string, string>; redacted: string[] } {
  const out: Record<string, string> = {}
  const redacted: string[] = []
  for (const [name, value] of Object.entries(headers)) {
    if (isSecretHeader(name, rules)) {
      out[name] = REDACTED
      redacted.push(`http.headers.${name.toLowerCase()}`)
    } else {
      out[name] = value
    }
  }
  return { headers: out, redacted }
}

/** Deep copy of `message` with secret fields replaced; `redacted` lists the dotted paths. */
export function redactMessage<T>(message: T, rules: RedactionRules): { message: T; redacted: string[] } {
  const keys = new Set(rules.fields.filter((f) => !f.includes('.')).map((f) => f.toLowerCase()))
  const paths = rules.fields.filter((f) => f.includes('.')).map((f) => f.split('.'))
  const redacted: string[] = []
  const walk = (value: unknown, path: string[]): unknown => {
    if (Array.isArray(value)) return value.map((item, i) => walk(item, [...path, String(i)]))
    if (typeof value !== 'object' || value === null) return value
    const out: Record<string, unknown> = {}
    for (const [key, child] of Object.entries(value)) {
      const childPath = [...path, key]
      if (child !== null && child !== undefined && (keys.has(key.toLowerCase()) || paths.some((p) => pathMatches(p, childPath)))) {
        out[key] = REDACTED
        redacted.push(childPath.join('.'))
      } else {
        out[key] = walk(child, childPath)
      }
    }
    return out
  }
  return { message: walk(message, []) as T, redacted }
}

function pathMatches(pattern: readonly string[], path: readonly string[]): boolean {
  return pattern.length === path.length && pattern.every((segment, i) => segment === '*' || segment === path[i])
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)]
}
