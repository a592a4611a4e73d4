/**
 * Find, read, interpolate and validate the mcpx config. A file that does not parse (bad JSON, an
 * unknown key, an invalid entry) is ONE McpxError('CONFIG') naming the file, the path inside it
 * and the problem; nothing is half-loaded. A server that cannot be started as configured (an
 * unset variable; when `check` is on, a missing command, cwd or record directory) is loaded with
 * `unavailable` saying why, and the rest of the file still serves. Relative paths are relative to
 * the config file (see resolveEntryPaths). With no file at all the embedded default is used.
 */
import { accessSync, constants, existsSync, statSync } from 'node:fs'
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path'
import * as v from 'valibot'
import type { McpxError } from '../errors/index.ts'
import type { McpxPaths } from '../settings/index.ts'
import { readEnvFile } from './environment.ts'
import { configError, type DocPath, formatPath, interpolateDocument, referencedVariables } from './interpolate.ts'
import { findConfigFile } from './location.ts'
import { ConfigFileSchema, type McpxConfig, RemoteEntrySchema, SERVER_NAME, type ServerConfig, StdioEntrySchema } from './schema.ts'
import { checkSettingsSection } from './settings-section.ts'
import { parseConfigDocument, readConfigText } from './document.ts'

type Env = Readonly<Record<string, string | undefined>>

export interface LoadConfigOptions {
  readonly paths: McpxPaths
  readonly env: Env
  /** argv that runs the built-in demo server (the mcpx binary's hidden `demo-server` command). */
  readonly demoCommand: readonly string[]
  /** How `env` is described in `variables` (e.g. "the environment snapshot FILE"). */
  readonly envSource?: string
  /** Check that each stdio server's command, cwd and record directory exist (the daemon does). */
  readonly check?: boolean
}

export interface ParseOptions {
  readonly envSource?: string
  readonly check?: boolean
}

/** Load the config named by --config / MCPX_CONFIG, else the first XDG candidate, else the default. */
export function loadConfig(options: LoadConfigOptions): McpxConfig {
  const file = findConfigFile(options.paths)
  if (file === null) return defaultConfig(options.demoCommand)
  return parseConfig(readConfigText(file), file, options.env, {
    ...(options.envSource !== undefined && { envSource: options.envSource }),
    ...(options.check !== undefined && { check: options.check }),
  })
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
  return { source: null, servers: { demo }, settings: {}, variables: {} }
}

/** Parse config text; `file` names it in messages and anchors its relative paths. */
export function parseConfig(text: string, file: string, env: Env, options: ParseOptions = {}): McpxConfig {
  const { mcpServers: rawServers, ...rest } = parseConfigDocument(text, file)
  const envFile = typeof rest.envFile === 'string' && rest.envFile !== '' ? resolve(dirname(file), rest.envFile) : undefined
  const fromFile = envFile === undefined ? {} : readEnvFile(envFile, file)
  // An unset variable is what a missing envFile shows first: said beside it (looked up only then).
  const missingEnvFile = () => (envFile !== undefined && !existsSync(envFile) ? `; envFile ${envFile} does not exist` : '')
  const values: Env = { ...env, ...fromFile }
  const top = v.safeParse(ConfigFileSchema, {
    ...(interpolateDocument(rest, values, file) as Record<string, unknown>),
    mcpServers: rawServers ?? {},
  })
  if (!top.success) throw issueError(file, [], top.issues[0], ConfigFileSchema)
  const servers: Record<string, ServerConfig> = {}
  for (const [name, entry] of Object.entries(top.output.mcpServers)) {
    // An unset variable makes this server unavailable (naming it and where), not the whole file invalid.
    let unset: string | undefined
    const resolved = interpolateDocument(entry, values, file, ['mcpServers', name], (variable, where) => {
      unset ??= `environment variable ${variable} is not set (${formatPath(where.path)})${missingEnvFile()}`
      return variable
    })
    const server = parseServerEntry(name, resolved, file)
    const problem = unset ?? (options.check ? startProblem(server, values) : undefined)
    servers[name] = problem === undefined ? server : { ...server, unavailable: problem }
  }
  const settings = checkSettingsSection(file, top.output.settings)
  const variables: Record<string, string> = {}
  for (const name of referencedVariables(text)) {
    variables[name] =
      name in fromFile
        ? `envFile ${envFile}`
        : env[name] !== undefined && env[name] !== ''
          ? (options.envSource ?? 'environment')
          : 'not set'
  }
  return {
    source: file,
    servers,
    settings,
    variables,
    ...(envFile !== undefined && { envFile }),
    ...(top.output.access && { access: top.output.access }),
  }
}

/** Why a stdio server cannot be started as configured (a missing command, cwd or record directory). */
function startProblem(server: ServerConfig, env: Env): string | undefined {
  const at = `mcpServers.${server.name}`
  if (server.record !== undefined && !isDirectory(dirname(server.record)))
    return `directory ${dirname(server.record)} does not exist (${at}.record)`
  const target = server.target
  if (target.kind !== 'stdio') return undefined
  if (target.cwd !== undefined && !isDirectory(target.cwd)) return `directory ${target.cwd} does not exist (${at}.cwd)`
  if (target.command.includes('/'))
    return isExecutable(target.command) ? undefined : `command ${target.command} does not exist or is not executable (${at}.command)`
  const path = target.env.PATH ?? env.PATH ?? ''
  const onPath = (command: string) => path.split(delimiter).some((dir) => dir !== '' && isExecutable(join(dir, command)))
  if (onPath(target.command)) return undefined
  // `"command": "npx -y pkg"`: a whole command line where the program goes, as shells take it.
  const [program, ...words] = target.command.trim().split(/\s+/)
  const quoted = /["'\\]/.test(target.command)
  const split =
    words.length === 0 || !onPath(program!)
      ? ''
      : quoted
        ? `; to run that line, name the program alone in "command" (${JSON.stringify(program)}) and each argument in "args"`
        : `; to run that line, name the program alone: "command": ${JSON.stringify(program)}, "args": ${JSON.stringify(words)}`
  return `command "${target.command}" is not on PATH (${at}.command)${split}`
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return statSync(path).isFile()
  } catch {
    return false
  }
}

/**
 * Paths relative to the config file: a relative `command` with a "/" in it, a relative `cwd`, and
 * `args` that start with `./` or `../` resolve against the config file's directory (other args are
 * passed as written; a bare command is looked up on PATH); with no `cwd` the server runs there.
 */
function resolveEntryPaths(
  dir: string,
  command: string,
  args: readonly string[],
  cwd: string | undefined,
): { command: string; args: string[]; cwd: string } {
  return {
    command: command.includes('/') && !isAbsolute(command) ? resolve(dir, command) : command,
    args: args.map((arg) => (arg.startsWith('./') || arg.startsWith('../') ? resolve(dir, arg) : arg)),
    cwd: cwd === undefined ? dir : resolve(dir, cwd),
  }
}

const OTHER_URL_KEYS = ['serverUrl', 'httpUrl', 'baseUrl']

/** Validate and normalise one `mcpServers` entry (already interpolated). */
export function parseServerEntry(name: string, entry: unknown, file: string): ServerConfig {
  const at: DocPath = ['mcpServers', name]
  if (!SERVER_NAME.test(name))
    throw configError({ file, path: at }, 'server names may hold only letters, digits, "-" and "_" (a "." would break server.tool names)')
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry))
    throw configError({ file, path: at }, 'must be an object with "command" (stdio) or "url" (remote)')
  const hasCommand = 'command' in entry
  const hasUrl = 'url' in entry
  if (hasCommand === hasUrl) {
    // Other hosts' spellings of the URL (Windsurf's serverUrl, Gemini CLI's httpUrl), named as such.
    const spelt = OTHER_URL_KEYS.find((key) => key in entry)
    const hint =
      spelt === undefined ? '' : ` ("${spelt}" is another host's name for it: call it "url", or let \`mcpx import\` convert the entry)`
    throw configError(
      { file, path: at },
      hasCommand ? 'has both "command" and "url"; pick one' : `needs "command" (stdio) or "url" (remote)${hint}`,
    )
  }
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
    // No roots unless set: a directory mcpx chose would replace those a server was started with
    // (server-filesystem trades its arguments for any roots it is given; README "Brokering").
    roots: (e.roots ?? []).map((root) => (/^[a-z][a-z0-9+.-]*:/i.test(root) ? root : Bun.pathToFileURL(resolve(dirname(file), root)).href)),
  })
  if (hasCommand) {
    const parsed = v.safeParse(StdioEntrySchema, entry)
    if (!parsed.success) throw issueError(file, at, parsed.issues[0], StdioEntrySchema)
    const e = parsed.output
    const paths = resolveEntryPaths(dirname(file), e.command, e.args ?? [], e.cwd)
    return { ...options(e), target: { kind: 'stdio', command: paths.command, args: paths.args, env: e.env ?? {}, cwd: paths.cwd } }
  }
  const parsed = v.safeParse(RemoteEntrySchema, entry)
  if (!parsed.success) throw issueError(file, at, parsed.issues[0], RemoteEntrySchema)
  const e = parsed.output
  const transport = e.transport ?? (e.type === 'sse' ? 'sse' : e.type === undefined ? 'auto' : 'streamable-http')
  return {
    ...options(e),
    target: { kind: 'http', url: e.url, headers: e.headers ?? {}, transport, ...(e.oauth !== undefined && { oauth: e.oauth }) },
  }
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
  if (issue.path?.length !== 1) return 'unknown key'
  const allowed = `unknown key (allowed: ${Object.keys(schema.entries).join(', ')})`
  // VS Code's mcp.json (and some other hosts') name the table "servers".
  if (issue.path[0]?.key === 'servers' && 'mcpServers' in schema.entries)
    return `${allowed}; this is VS Code's mcp.json shape: name the table "mcpServers", or let \`mcpx import vscode\` convert it`
  return allowed
}
