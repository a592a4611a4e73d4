/**
 * Find, read, interpolate and validate the mcpx config. A bad file is ONE McpxError('CONFIG')
 * naming the file, the path inside it and the problem; nothing is half-loaded. With no file at all
 * the embedded default (one built-in `demo` server) is used.
 */
import { locateJsonError } from './json-position.ts'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import * as v from 'valibot'
import { McpxError } from '../errors/index.ts'
import { type McpxPaths, type SettingName, type SettingOverrides, type Settings, SETTINGS, resolveSettings } from '../settings/index.ts'
import { configError, type DocPath, interpolateDocument } from './interpolate.ts'
import { ConfigFileSchema, type McpxConfig, RemoteEntrySchema, SERVER_NAME, type ServerConfig, StdioEntrySchema } from './schema.ts'

type Env = Readonly<Record<string, string | undefined>>

export interface LoadConfigOptions {
  readonly paths: McpxPaths
  readonly env: Env
  /** argv that runs the built-in demo server (the mcpx binary's hidden `demo-server` command). */
  readonly demoCommand: readonly string[]
}

/** The config file that would be read, or null when none exists (the embedded default applies). */
export function findConfigFile(paths: McpxPaths): string | null {
  if (paths.explicitConfig !== undefined) return paths.explicitConfig
  return paths.configCandidates.find((candidate) => existsSync(candidate)) ?? null
}

/** Load the config named by --config / MCPX_CONFIG, else the first XDG candidate, else the default. */
export function loadConfig(options: LoadConfigOptions): McpxConfig {
  const file = findConfigFile(options.paths)
  if (file === null) return defaultConfig(options.demoCommand)
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (error as Error).message
    throw new McpxError('CONFIG', `config ${file}: ${reason}`, { file }, { cause: error })
  }
  return parseConfig(text, file, options.env)
}

/** The config used when no file exists: the built-in demo server only. */
export function defaultConfig(demoCommand: readonly string[]): McpxConfig {
  const [command, ...args] = demoCommand
  const demo: ServerConfig = {
    name: 'demo',
    target: { kind: 'stdio', command: command!, args, env: {} },
    description: 'Built-in demo server (echo, add, time, a prompt and a resource)',
    disabled: false,
    codemode: true,
  }
  return { source: null, servers: { demo }, settings: {} }
}

/** Parse config text; `file` is only used in messages. */
export function parseConfig(text: string, file: string, env: Env): McpxConfig {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (error) {
    const at = locateJsonError(text)
    if (at !== undefined) throw new McpxError('CONFIG', `config ${file}:${at.line}:${at.column}: not valid JSON: ${at.message}`, { file, line: at.line, column: at.column }, { cause: error })
    throw new McpxError('CONFIG', `config ${file}: not valid JSON: ${(error as Error).message}`, { file }, { cause: error })
  }
  const doc = interpolateDocument(raw, env, file)
  const top = v.safeParse(ConfigFileSchema, doc)
  if (!top.success) throw issueError(file, [], top.issues[0], ConfigFileSchema)
  const servers: Record<string, ServerConfig> = {}
  for (const [name, entry] of Object.entries(top.output.mcpServers)) {
    servers[name] = parseServerEntry(name, entry, file)
  }
  const settings = Object.fromEntries(Object.entries(top.output.settings).filter(([, value]) => value !== undefined)) as SettingOverrides
  return { source: file, servers, settings }
}

/** Validate and normalise one `mcpServers` entry (already interpolated). */
export function parseServerEntry(name: string, entry: unknown, file: string): ServerConfig {
  const at: DocPath = ['mcpServers', name]
  if (!SERVER_NAME.test(name)) throw configError({ file, path: at }, 'server names may hold only letters, digits, "-" and "_" (a "." would break server.tool names)')
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw configError({ file, path: at }, 'must be an object with "command" (stdio) or "url" (remote)')
  const hasCommand = 'command' in entry
  const hasUrl = 'url' in entry
  if (hasCommand === hasUrl) throw configError({ file, path: at }, hasCommand ? 'has both "command" and "url"; pick one' : 'needs "command" (stdio) or "url" (remote)')
  const options = (e: v.InferOutput<typeof StdioEntrySchema> | v.InferOutput<typeof RemoteEntrySchema>) => ({
    name,
    ...(e.description !== undefined && { description: e.description }),
    disabled: e.disabled ?? false,
    ...(e.protocol !== undefined && { protocol: e.protocol }),
    codemode: e.codemode ?? true,
    ...(e.allowedTools !== undefined && { allowedTools: e.allowedTools }),
    ...(e.blockedTools !== undefined && { blockedTools: e.blockedTools }),
    // A relative recording path is relative to the config file, not to wherever the daemon runs.
    ...(e.record !== undefined && { record: resolve(dirname(file), e.record) }),
  })
  if (hasCommand) {
    const parsed = v.safeParse(StdioEntrySchema, entry)
    if (!parsed.success) throw issueError(file, at, parsed.issues[0], StdioEntrySchema)
    const e = parsed.output
    return { ...options(e), target: { kind: 'stdio', command: e.command, args: e.args ?? [], env: e.env ?? {}, ...(e.cwd !== undefined && { cwd: e.cwd }) } }
  }
  const parsed = v.safeParse(RemoteEntrySchema, entry)
  if (!parsed.success) throw issueError(file, at, parsed.issues[0], RemoteEntrySchema)
  const e = parsed.output
  const transport = e.transport ?? (e.type === 'sse' ? 'sse' : e.type === undefined ? 'auto' : 'streamable-http')
  return { ...options(e), target: { kind: 'http', url: e.url, headers: e.headers ?? {}, transport, ...(e.oauth !== undefined && { oauth: e.oauth }) } }
}

function issueError(file: string, base: DocPath, issue: v.BaseIssue<unknown>, schema: { entries: Record<string, unknown> }): McpxError {
  const path: (string | number)[] = [...base]
  for (const item of issue.path ?? []) {
    if (item.type === 'unknown' && item.key === undefined) continue
    path.push(item.key as string | number)
  }
  return configError({ file, path }, issue.type === 'strict_object' ? unknownKey(schema, issue) : issue.message)
}

/** valibot reports a strict object's stray key with expected "never"; say which keys are allowed. */
function unknownKey(schema: { entries: Record<string, unknown> }, issue: v.BaseIssue<unknown>): string {
  if (issue.path?.length === 2 && issue.path[0]!.key === 'settings') return 'unknown setting (`mcpx settings` lists them)'
  if (issue.path?.length !== 1) return 'unknown key'
  return `unknown key (allowed: ${Object.keys(schema.entries).join(', ')})`
}

/**
 * Settings with the config file in the chain: flags > MCPX_* environment > config `settings` >
 * defaults (an environment variable the user set beats the file they share across shells).
 */
export function resolveConfiguredSettings(env: Env, config: McpxConfig, flags: SettingOverrides = {}): Settings {
  const fromFile: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(config.settings)) {
    const envName = SETTINGS[name as SettingName].env
    if (envName !== undefined && env[envName] !== undefined && env[envName] !== '') continue
    fromFile[name] = value
  }
  return resolveSettings(env, { ...(fromFile as SettingOverrides), ...flags })
}
