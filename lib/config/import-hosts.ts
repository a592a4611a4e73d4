/**
 * `mcpx import`: read server definitions from MCP hosts and normalise them into mcpx config
 * entries — key variants (url/httpUrl/serverUrl, env/environment, command arrays), type synonyms,
 * host placeholder syntaxes (`${env:X}`, `{env:X}`, `$X` → `${X}`). Entries only the host can
 * resolve (`${input:…}`), disabled ones, and invalid ones are skipped with the reason.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { McpxError } from '../errors/index.ts'
import { type HostEnv, type HostId, type HostSource, HOSTS } from './hosts.ts'
import { interpolateDocument, referencedVariables } from './interpolate.ts'
import { parseJsonc } from './jsonc.ts'
import { checkedEdit, setMember } from './jsonc-edit.ts'
import { parseServerEntry } from './load.ts'
import { SERVER_NAME } from './schema.ts'
import { parseToml } from './toml.ts'
import { writeWithBackup } from './write.ts'

export interface ImportedServer {
  /** Name in the mcpx config (sanitised). */
  readonly name: string
  readonly host: HostId
  readonly file: string
  readonly scope: HostSource['scope']
  /** The mcpx config entry to write. */
  readonly entry: Record<string, unknown>
  /** The host's name for it, when it had to be changed to be a server name. */
  readonly renamedFrom?: string
  /** Variables the entry references that are not set now (imported anyway, with a warning). */
  readonly unsetVariables?: readonly string[]
}

export interface SkippedServer {
  readonly name: string
  readonly host: HostId
  readonly file: string
  readonly reason: string
}

export interface ImportPlan {
  readonly imported: readonly ImportedServer[]
  readonly skipped: readonly SkippedServer[]
  /** Project-scoped entries not copied into a user config (imported only into a --config file). */
  readonly projectOnly: readonly ImportedServer[]
  /** Host files that exist and were read. */
  readonly read: readonly string[]
}

type Raw = Record<string, unknown>

export interface ImportOptions {
  /** Why an entry runs mcpx itself (an mcpx binary, `mcpx serve`, a URL of this user's daemons), or null. */
  readonly runsMcpx?: (entry: Record<string, unknown>) => string | null
  /** Project-scoped entries go into the config too (true only for a config given with --config). */
  readonly includeProject?: boolean
  /** The environment to check referenced variables against (warnings only). */
  readonly variables?: Readonly<Record<string, string | undefined>>
}

/** Collect what importing `hosts` would add next to the names already in the mcpx config. */
export function planImport(
  hosts: readonly HostId[],
  env: HostEnv,
  existingNames: readonly string[],
  options: ImportOptions = {},
): ImportPlan {
  const imported: ImportedServer[] = []
  const skipped: SkippedServer[] = []
  const projectOnly: ImportedServer[] = []
  const read = new Set<string>()
  const taken = new Map<string, string>(existingNames.map((name) => [name, 'the mcpx config']))
  for (const host of hosts) {
    for (const source of HOSTS[host].sources(env)) {
      if (!existsSync(source.file)) continue
      read.add(source.file)
      let servers: unknown
      try {
        servers = source.servers(parseSource(source))
      } catch (error) {
        skipped.push({ name: '*', host, file: source.file, reason: error instanceof McpxError ? error.message : String(error) })
        continue
      }
      if (servers === undefined) continue
      if (servers === null || typeof servers !== 'object' || Array.isArray(servers)) {
        skipped.push({ name: '*', host, file: source.file, reason: 'the server list is not an object' })
        continue
      }
      for (const [original, raw] of Object.entries(servers)) {
        const name = sanitiseName(original)
        const skip = (reason: string) => skipped.push({ name: original, host, file: source.file, reason })
        if (name === '') {
          skip('no usable characters in the name')
          continue
        }
        const owner = taken.get(name)
        if (owner !== undefined) {
          skip(`"${name}" is already defined by ${owner}`)
          continue
        }
        const outcome = normaliseEntry(host, raw, {
          home: env.home,
          projectDir: source.scope === 'user' ? undefined : projectDirOf(source),
        })
        if ('skip' in outcome) {
          skip(outcome.skip)
          continue
        }
        const self = options.runsMcpx?.(outcome.entry) ?? null
        if (self !== null) {
          skip(`runs mcpx itself (${self}); the gateway would pool itself`)
          continue
        }
        const unset =
          options.variables === undefined ? [] : referencedVariables(JSON.stringify(outcome.entry)).filter((v) => !options.variables![v])
        const server: ImportedServer = {
          name,
          host,
          file: source.file,
          scope: source.scope,
          entry: outcome.entry,
          ...(name !== original && { renamedFrom: original }),
          ...(unset.length > 0 && { unsetVariables: unset }),
        }
        if (source.scope !== 'user' && !options.includeProject) {
          projectOnly.push(server)
          continue
        }
        taken.set(name, `${host} (${source.file})`)
        imported.push(server)
      }
    }
  }
  return { imported, skipped, projectOnly, read: [...read] }
}

function parseSource(source: HostSource): unknown {
  const text = readFileSync(source.file, 'utf8')
  return source.format === 'toml' ? parseToml(text, source.file) : parseJsonc(text, source.file)
}

/** The project directory a project-scoped file belongs to (`.vscode/mcp.json` → the folder above). */
function projectDirOf(source: HostSource): string {
  const dir = dirname(source.file)
  return /\/\.(vscode|cursor|gemini|codex)$/.test(dir) ? dirname(dir) : dir
}

/** Server names become `server.tool` prefixes: keep letters, digits, `-` and `_`. */
function sanitiseName(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^[-_]+|-+$/g, '')
  return SERVER_NAME.test(clean) ? clean : ''
}

const REMOTE_TYPES: Record<string, 'streamable-http' | 'sse' | undefined> = {
  http: 'streamable-http',
  'streamable-http': 'streamable-http',
  streamablehttp: 'streamable-http',
  streamable_http: 'streamable-http',
  remote: undefined,
  sse: 'sse',
}

/** Turn one host entry into an mcpx entry, or say why it cannot be imported. */
function normaliseEntry(
  host: HostId,
  raw: unknown,
  context: { home: string; projectDir: string | undefined },
): { entry: Raw } | { skip: string } {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { skip: 'the entry is not an object' }
  const input = raw as Raw
  if (input.enabled === false || input.disabled === true) return { skip: `disabled in ${HOSTS[host].label}` }
  if (input.envFile !== undefined) return { skip: 'uses envFile, which mcpx does not read (copy the variables into "env")' }
  const converted = convertPlaceholders(host, input, context)
  if (isUnresolvable(converted)) return { skip: `uses ${converted.unresolvable}, which only ${HOSTS[host].label} can resolve` }
  const e = converted as Raw
  const type = typeof e.type === 'string' ? e.type.toLowerCase() : undefined
  const entry: Raw = {}
  const remoteUrl = e.url ?? e.httpUrl ?? e.serverUrl ?? e.baseUrl
  if (e.command !== undefined && type !== 'remote' && !(type !== undefined && type in REMOTE_TYPES && remoteUrl !== undefined)) {
    const command = Array.isArray(e.command) ? e.command : [e.command]
    if (!command.every((part) => typeof part === 'string')) return { skip: 'command must be a string or an array of strings' }
    if (command.length === 0 || command[0] === '') return { skip: 'empty command' }
    entry.command = command[0]
    const args = [...command.slice(1), ...(Array.isArray(e.args) ? e.args.map(String) : [])]
    if (args.length > 0) entry.args = args
    const envVars = e.env ?? e.environment
    const env: Record<string, string> = {}
    if (envVars !== null && typeof envVars === 'object' && !Array.isArray(envVars))
      for (const [k, v] of Object.entries(envVars)) env[k] = String(v)
    // Codex `env_vars`: names passed through from mcpx's environment.
    if (Array.isArray(e.env_vars)) for (const name of e.env_vars) env[String(name)] = `\${${String(name)}}`
    if (Object.keys(env).length > 0) entry.env = env
    if (typeof e.cwd === 'string') entry.cwd = e.cwd
  } else if (typeof remoteUrl === 'string') {
    entry.url = remoteUrl
    // Gemini CLI: `httpUrl` is Streamable HTTP, `url` is SSE.
    const transport =
      host === 'gemini' ? (e.httpUrl !== undefined ? 'streamable-http' : 'sse') : type === undefined ? undefined : REMOTE_TYPES[type]
    if (transport !== undefined) entry.transport = transport
    const headers: Record<string, string> = {}
    const given = e.headers ?? e.http_headers
    if (given !== null && typeof given === 'object' && !Array.isArray(given))
      for (const [k, v] of Object.entries(given)) headers[k] = String(v)
    // Codex indirection: header values and the bearer token come from environment variables.
    if (e.env_http_headers !== null && typeof e.env_http_headers === 'object')
      for (const [k, v] of Object.entries(e.env_http_headers as Raw)) headers[k] = `\${${String(v)}}`
    if (typeof e.bearer_token_env_var === 'string') headers.Authorization = `Bearer \${${e.bearer_token_env_var}}`
    if (Object.keys(headers).length > 0) entry.headers = headers
  } else {
    return { skip: 'neither a command nor a URL' }
  }
  const allowed = e.includeTools ?? e.enabled_tools
  const blocked = e.excludeTools ?? e.disabled_tools
  if (Array.isArray(allowed)) entry.allowedTools = allowed.map(String)
  if (Array.isArray(blocked)) entry.blockedTools = blocked.map(String)
  if (typeof e.description === 'string') entry.description = e.description
  return validate(entry)
}

/** Check the entry against the mcpx schema with every ${VAR} standing in as a value. */
function validate(entry: Raw): { entry: Raw } | { skip: string } {
  const placeholderEnv = new Proxy({}, { get: () => 'placeholder' }) as Record<string, string>
  try {
    parseServerEntry('imported', interpolateDocument(entry, placeholderEnv, 'import'), 'import')
    return { entry }
  } catch (error) {
    return { skip: `not a valid mcpx entry: ${(error as Error).message.replace(/^config import: mcpServers\.imported\.?/, '')}` }
  }
}

/** Rewrite host placeholder syntaxes into mcpx's `${VAR}`; a string result is the skip reason. */
function convertPlaceholders(host: HostId, value: unknown, context: { home: string; projectDir: string | undefined }): unknown {
  if (typeof value === 'string') {
    let text = value
    if (host === 'opencode') text = text.replace(/(?<!\$)\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, '${$1}')
    if (host === 'gemini') text = text.replace(/\$([A-Za-z_][A-Za-z0-9_]*)/g, '${$1}')
    text = text.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, '${$1}').replace(/\$\{userHome\}/g, context.home)
    if (/\$\{workspaceFolder\}/.test(text)) {
      if (context.projectDir === undefined) return { unresolvable: '${workspaceFolder} outside a workspace' }
      text = text.replace(/\$\{workspaceFolder\}/g, context.projectDir)
    }
    // What is left after removing mcpx's own ${NAME} / ${NAME:-default} belongs to the host.
    const hostOnly = /\$\{[^}]*\}/.exec(text.replace(/\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}/g, ''))
    if (hostOnly) return { unresolvable: hostOnly[0] }
    return text
  }
  if (Array.isArray(value)) {
    const out: unknown[] = []
    for (const item of value) {
      const converted = convertPlaceholders(host, item, context)
      if (isUnresolvable(converted)) return converted
      out.push(converted)
    }
    return out
  }
  if (value !== null && typeof value === 'object') {
    const out: Raw = {}
    for (const [key, item] of Object.entries(value)) {
      const converted = convertPlaceholders(host, item, context)
      if (isUnresolvable(converted)) return converted
      out[key] = converted
    }
    return out
  }
  return value
}

function isUnresolvable(value: unknown): value is { unresolvable: string } {
  return value !== null && typeof value === 'object' && 'unresolvable' in value
}

/**
 * Add the planned servers to the mcpx config file (created when missing), keeping everything
 * else in it, and its layout: each entry goes in as text (jsonc-edit.ts), checked by reading the
 * result back; a file where that cannot be done is written whole. Returns the backup path when an
 * existing file was replaced.
 */
export function writeImport(file: string, imported: readonly ImportedServer[]): string | null {
  let doc: Record<string, unknown> = {}
  const text = existsSync(file) ? readFileSync(file, 'utf8') : ''
  if (text.trim() !== '') {
    const parsed = parseJsonc(text, file)
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new McpxError('CONFIG', `config ${file}: expected an object at the top level`, { file })
    doc = parsed as Record<string, unknown>
  }
  const servers = (
    doc.mcpServers !== null && typeof doc.mcpServers === 'object' && !Array.isArray(doc.mcpServers) ? doc.mcpServers : {}
  ) as Record<string, unknown>
  let edited: string | undefined = text.trim() === '' ? undefined : text
  for (const server of imported) {
    servers[server.name] = server.entry
    edited = edited === undefined ? undefined : setMember(edited, ['mcpServers', server.name], server.entry)
  }
  doc.mcpServers = servers
  return writeWithBackup(file, checkedEdit(text, edited, doc, file).text)
}
