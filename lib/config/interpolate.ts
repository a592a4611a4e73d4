/**
 * `${VAR}` and `${VAR:-default}` interpolation over every string of a parsed config document.
 * An unset `${VAR}` without a default is an error naming the variable and where it was used;
 * `$${` stays a literal `${`. Pure: the environment comes in as a parameter.
 */
import { McpxError } from '../errors/index.ts'

type Env = Readonly<Record<string, string | undefined>>

const REFERENCE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g
const MALFORMED = /\$\{(?![A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\})/

/** A path inside a document, e.g. ['mcpServers', 'gh', 'env', 'TOKEN'], shown as mcpServers.gh.env.TOKEN. */
export type DocPath = readonly (string | number)[]

function formatPath(path: DocPath): string {
  return path.length === 0 ? '(root)' : path.map((part) => (typeof part === 'number' ? `[${part}]` : part)).join('.').replace(/\.\[/g, '[')
}

/** Interpolate one string; `where` names the file and path for the error message. */
function interpolateString(value: string, env: Env, where: { file: string; path: DocPath }): string {
  const stripped = value.replace(/\$\$\{/g, '')
  if (MALFORMED.test(stripped)) {
    throw configError(where, `malformed reference in ${JSON.stringify(value)} (use \${NAME} or \${NAME:-default}; \$\${ for a literal)`)
  }
  return value.replace(REFERENCE, (match, name: string | undefined, fallback: string | undefined) => {
    if (match === '$${') return '${'
    const found = env[name!]
    if (found !== undefined && found !== '') return found
    if (fallback !== undefined) return fallback
    throw configError(where, `environment variable ${name} is not set (referenced as \${${name}}; write \${${name}:-default} for a fallback)`, { variable: name })
  })
}

/** Return a copy of `doc` with every string value interpolated (keys are left alone). */
export function interpolateDocument(doc: unknown, env: Env, file: string, path: DocPath = []): unknown {
  if (typeof doc === 'string') return interpolateString(doc, env, { file, path })
  if (Array.isArray(doc)) return doc.map((item, index) => interpolateDocument(item, env, file, [...path, index]))
  if (doc !== null && typeof doc === 'object') {
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(doc)) out[key] = interpolateDocument(value, env, file, [...path, key])
    return out
  }
  return doc
}

/** The one shape of every config error: file, path inside it, what is wrong. */
export function configError(where: { file: string; path: DocPath }, problem: string, extra: Record<string, unknown> = {}): McpxError {
  const at = formatPath(where.path)
  return new McpxError('CONFIG', `config ${where.file}: ${at}: ${problem}`, { file: where.file, path: at, ...extra })
}
