/**
 * The one environment rule. `${VAR}` in the config is resolved by the daemon only, against:
 *   1. the config's `envFile` (dotenv, relative to the config file), then
 *   2. the environment snapshot: the variables the config references plus a fixed baseline
 *      (BASELINE_VARIABLES), as shell CLI commands (any command but `serve`, which hosts run)
 *      saw them — each command adds what it sees set, `mcpx daemon restart` replaces the whole
 *      snapshot — kept 0600 in the daemon's run directory; when there is no snapshot yet, the
 *      same variables from the daemon's own environment.
 * Upstream processes get the baseline variables from that same source plus their own `env`, never
 * a whole shell's environment, so what they see does not depend on who started the daemon.
 */
import { readFileSync, renameSync, writeFileSync, chmodSync } from 'node:fs'
import { PRIVATE_FILE_MODE } from './home.ts'
import { configError } from './interpolate.ts'

type Env = Readonly<Record<string, string | undefined>>

/**
 * The proxy variables HTTP clients read, in both spellings (curl, npm, Python, Bun's fetch): behind
 * a proxy, `npx` cannot fetch a package, nor the daemon reach a remote server, without them.
 */
export const PROXY_VARIABLES = [
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'all_proxy',
  'no_proxy',
] as const

/**
 * What every upstream process inherits (when set): enough to find programs, the user and a locale,
 * and to reach the network as the user's shell does (proxies, extra CA certificates).
 */
export const BASELINE_VARIABLES = [
  'HOME',
  'PATH',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'TMPDIR',
  'TERM',
  ...PROXY_VARIABLES,
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
] as const

/**
 * The daemon's own HTTP requests (to remote upstreams) go through the proxy its environment names:
 * Bun's fetch reads these variables from the process environment at each request, and a daemon
 * started by a host's `mcpx serve` was given few variables, so the snapshot's are set on `target`
 * (the process environment: cli/context.ts, the one place that touches it). Bun
 * sends loopback requests (an upstream on localhost, another replica) to the proxy too, which cannot
 * reach this machine's loopback: with a proxy set, NO_PROXY names loopback as well, as Go's and
 * curl's clients leave it out on their own.
 */
export function useProxyVariables(values: Env, target: Record<string, string | undefined>): void {
  for (const name of PROXY_VARIABLES) if (values[name] !== undefined && values[name] !== '') target[name] = values[name]
  if (!PROXY_VARIABLES.some((name) => !/no_proxy/i.test(name) && target[name])) return
  for (const name of ['NO_PROXY', 'no_proxy']) {
    const listed = (target[name] ?? '')
      .split(',')
      .map((host) => host.trim())
      .filter((host) => host !== '')
    target[name] = [...listed, ...LOOPBACK_HOSTS.filter((host) => !listed.includes(host))].join(',')
  }
}

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '::1']

export interface EnvSnapshot {
  readonly savedAt: string
  readonly variables: Readonly<Record<string, string>>
}

/** The snapshot a CLI would write for a config referencing `names`: baseline + those, when set. */
export function pickVariables(env: Env, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const name of [...BASELINE_VARIABLES, ...names]) {
    const value = env[name]
    if (value !== undefined) out[name] = value
  }
  return out
}

export function readEnvSnapshot(path: string): EnvSnapshot | null {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as EnvSnapshot
    if (parsed === null || typeof parsed.variables !== 'object' || parsed.variables === null) return null
    return parsed
  } catch {
    return null
  }
}

/**
 * Write the snapshot (0600, atomically) unless it would not change; true when written. `merge`
 * keeps what an earlier command saw of variables this one does not have (a terminal without a
 * token does not erase it); without it the snapshot is replaced (`daemon restart`).
 */
export function writeEnvSnapshot(path: string, seen: Readonly<Record<string, string>>, options: { merge?: boolean } = {}): boolean {
  const current = readEnvSnapshot(path)
  const variables = options.merge && current !== null ? { ...current.variables, ...seen } : seen
  if (current !== null && sameVariables(current.variables, variables)) return false
  const temp = `${path}.${process.pid}.tmp`
  writeFileSync(temp, `${JSON.stringify({ savedAt: new Date().toISOString(), variables }, null, 2)}\n`, { mode: PRIVATE_FILE_MODE })
  chmodSync(temp, PRIVATE_FILE_MODE)
  renameSync(temp, path)
  return true
}

function sameVariables(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a)
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key])
}

/**
 * dotenv: `NAME=value` lines, `#` comments, an optional `export ` prefix, single quotes literal,
 * double quotes with \n \t \" \\ escapes. Returns the variables, or throws with the line number.
 */
export function parseDotenv(text: string, file: string): Record<string, string> {
  const out: Record<string, string> = {}
  const lines = text.split(/\r?\n/)
  lines.forEach((raw, index) => {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) return
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line)
    if (!match) throw new Error(`${file}:${index + 1}: expected NAME=value`)
    let value = match[2]!
    if (value.startsWith("'") && value.endsWith("'") && value.length >= 2) value = value.slice(1, -1)
    else if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) {
      value = value.slice(1, -1).replace(/\\([nt"\\])/g, (_, c: string) => ({ n: '\n', t: '\t', '"': '"', '\\': '\\' })[c]!)
    } else value = value.replace(/\s+#.*$/, '')
    out[match[1]!] = value
  })
  return out
}

/** The config's `envFile` (`path`, resolved) as variables; a missing one sets none (each server then says what is unset). */
export function readEnvFile(path: string, file: string): Record<string, string> {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {}
    throw configError({ file, path: ['envFile'] }, `cannot read ${path}: ${(error as Error).message}`)
  }
  try {
    return parseDotenv(text, path)
  } catch (error) {
    throw configError({ file, path: ['envFile'] }, (error as Error).message)
  }
}
