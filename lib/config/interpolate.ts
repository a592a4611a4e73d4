/**
 * `${VAR}`, `${env:VAR}` (the Cursor/VS Code spelling) and `${VAR:-default}` interpolation over
 * every string of a parsed config document. What an unset `${VAR}` without a default means is the
 * caller's choice (`onUnset`): an error naming the variable and where it was used (the default),
 * or a stand-in (a server that becomes `unavailable`). `$${` stays a literal `${`. Pure: the
 * environment comes in as a parameter.
 */
import { McpxError } from '../errors/index.ts'

type Env = Readonly<Record<string, string | undefined>>

const REFERENCE = /\$\$\{|\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g
const MALFORMED = /\$\{(?!(?:env:)?[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\})/

/** A path inside a document, e.g. ['mcpServers', 'gh', 'env', 'TOKEN'], shown as mcpServers.gh.env.TOKEN. */
export type DocPath = readonly (string | number)[]

/** Called for an unset variable without a default; returns the text to put in its place, or throws. */
export type OnUnset = (name: string, where: { file: string; path: DocPath }) => string

export function formatPath(path: DocPath): string {
  return path.length === 0
    ? '(root)'
    : path
        .map((part) => (typeof part === 'number' ? `[${part}]` : part))
        .join('.')
        .replace(/\.\[/g, '[')
}

/** The names every `${VAR}` in `text` refers to (the variables a config needs), in order of first use. */
export function referencedVariables(text: string): string[] {
  const names = new Set<string>()
  for (const match of text.matchAll(REFERENCE)) if (match[1] !== undefined) names.add(match[1])
  return [...names]
}

const throwUnset: OnUnset = (name, where) => {
  throw configError(
    where,
    `environment variable ${name} is not set (referenced as \${${name}}; write \${${name}:-default} for a fallback)`,
    { variable: name },
  )
}

/** Interpolate one string; `where` names the file and path for the error message. */
function interpolateString(value: string, env: Env, where: { file: string; path: DocPath }, onUnset: OnUnset): string {
  const stripped = value.replace(/\$\$\{/g, '')
  if (MALFORMED.test(stripped)) {
    throw configError(where, `malformed reference in ${JSON.stringify(value)} (use \${NAME} or \${NAME:-default}; $\${ for a literal)`)
  }
  return value.replace(REFERENCE, (match, name: string | undefined, fallback: string | undefined) => {
    if (match === '$${') return '${'
    const found = env[name!]
    if (found !== undefined && found !== '') return found
    if (fallback !== undefined) return fallback
    return onUnset(name!, where)
  })
}

/** Return a copy of `doc` with every string value interpolated (keys are left alone). */
export function interpolateDocument(doc: unknown, env: Env, file: string, path: DocPath = [], onUnset: OnUnset = throwUnset): unknown {
  if (typeof doc === 'string') return interpolateString(doc, env, { file, path }, onUnset)
  if (Array.isArray(doc)) return doc.map((item, index) => interpolateDocument(item, env, file, [...path, index], onUnset))
  if (doc !== null && typeof doc === 'object') {
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(doc)) out[key] = interpolateDocument(value, env, file, [...path, key], onUnset)
    return out
  }
  return doc
}

/** The one shape of every config error: file, path inside it, what is wrong. */
export function configError(where: { file: string; path: DocPath }, problem: string, extra: Record<string, unknown> = {}): McpxError {
  const at = formatPath(where.path)
  return new McpxError('CONFIG', `config ${where.file}: ${at}: ${problem}`, { file: where.file, path: at, ...extra })
}
