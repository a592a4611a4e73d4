/**
 * Everything a command needs, resolved once per process: settings (environment + flags), the log
 * level, where mcpx keeps its config and state, and how to run this mcpx again (for the daemon and
 * the built-in demo server). Commands receive this instead of reading process.env themselves.
 * The config file itself is loaded by cli/configured-context.ts, which only the commands that read
 * its servers load (its schemas cost a warm `mcpx call` a few ms).
 *
 * The CLI's own environment resolves `${VAR}` only for the connections the CLI makes itself
 * (`call --record`, `probe`, `auth`, ad-hoc targets); daemon-served work is resolved by the daemon
 * (lib/config/environment.ts), and nothing the CLI resolved is sent to it.
 */
import { readFileSync } from 'node:fs'
import {
  type HomeLayout,
  configLocation,
  ensurePrivateDir,
  findConfigFile,
  homeLayout,
  pickVariables,
  readSettingsSection,
  referencedVariables,
  resolveConfiguredSettings,
  useProxyVariables,
  writeEnvSnapshot,
} from '../lib/config/index.ts'
import { McpxError } from '../lib/errors/index.ts'
import { log, setLogLevel } from '../lib/log/index.ts'
import { type McpxPaths, type Settings, type SettingOverrides, resolvePaths, resolveSettings } from '../lib/settings/index.ts'

export interface CliContext {
  readonly settings: Settings
  readonly env: Readonly<Record<string, string | undefined>>
  readonly json: boolean
  /** Config file candidates and the mcpx home (MCPX_HOME / XDG), from the environment and --config. */
  readonly paths: McpxPaths
  /** argv prefix that runs this mcpx: the compiled binary, or `bun cli/main.ts`. */
  readonly self: readonly string[]
}

export type ContextFlags = { json?: boolean; verbose?: boolean; quiet?: boolean; config?: string }

export function loadContext(args: ContextFlags, overrides: SettingOverrides = {}): CliContext {
  if (args.verbose) setLogLevel(4)
  else if (args.quiet) setLogLevel(1)
  const env = process.env
  const settings = resolveSettings(env, overrides)
  return { settings, env, json: Boolean(args.json), paths: resolvePaths(env, settings, args.config), self: selfCommand() }
}

/**
 * loadContext plus the config file's `settings` section (below MCPX_* variables), read without the
 * rest of the file (lib/config/settings-section.ts): for a command the daemon serves, which needs
 * the file's settings but not its servers (a warm `mcpx call`). A section that does not parse
 * is left out, as cli/configured-context.ts's tolerant load leaves out a file that does not: the
 * daemon says what is wrong with the file.
 */
export function loadSettingsContext(args: ContextFlags, overrides: SettingOverrides = {}): CliContext {
  const base = loadContext(args, overrides)
  try {
    return { ...base, settings: resolveConfiguredSettings(base.env, { settings: readSettingsSection(base.paths, base.env) }, overrides) }
  } catch (error) {
    if (!(error instanceof McpxError) || error.code !== 'CONFIG') throw error
    return base
  }
}

/** The layout of the daemon for this command's config location (lib/config/home.ts). */
export function layoutOf(ctx: CliContext): HomeLayout {
  return homeLayout(ctx.paths.home, configLocation(ctx.paths))
}

/**
 * The environment snapshot the daemon resolves `${VAR}` in: the baseline variables and the ones
 * the config references, as this (shell) command sees them: added to what earlier commands saw
 * (`replace`: instead of it). Written only when it changed; never by `serve`, whose environment
 * is whatever a host chose to pass.
 */
export function refreshEnvSnapshot(ctx: CliContext, options: { replace?: boolean } = {}): void {
  const layout = layoutOf(ctx)
  const file = findConfigFile(ctx.paths)
  let names: string[] = []
  if (file !== null) {
    try {
      names = referencedVariables(readFileSync(file, 'utf8'))
    } catch {
      // No readable file: the baseline only.
    }
  }
  try {
    ensurePrivateDir(layout.home)
    ensurePrivateDir(layout.runDir)
    if (writeEnvSnapshot(layout.envSnapshot, pickVariables(ctx.env, names), { merge: !options.replace }))
      log.debug(`environment snapshot ${layout.envSnapshot} updated (${names.length} referenced variables)`)
  } catch (error) {
    log.debug(`environment snapshot not written: ${(error as Error).message}`)
  }
}

/** A `bun build --compile` binary runs its entry from Bun's embedded /$bunfs filesystem. */
function selfCommand(): readonly string[] {
  if (Bun.main.startsWith('/$bunfs/')) return [process.execPath]
  return [process.execPath, Bun.fileURLToPath(new URL('./main.ts', import.meta.url))]
}

/** The daemon's own requests go through the proxy of its environment snapshot (lib/config/environment.ts useProxyVariables). */
export function useDaemonProxy(values: Readonly<Record<string, string | undefined>>): void {
  useProxyVariables(values, process.env)
}
