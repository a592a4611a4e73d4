/**
 * Everything a command needs, resolved once per process: settings (environment + flags), the log
 * level, where mcpx keeps its config and state, and how to run this mcpx again (for the daemon and
 * the built-in demo server). Commands receive this instead of reading process.env themselves.
 */
import { fileURLToPath } from 'node:url'
import { type McpxConfig, loadConfig, resolveConfiguredSettings } from '../lib/config/index.ts'
import { setLogLevel } from '../lib/log.ts'
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

export interface ConfiguredContext extends CliContext {
  readonly config: McpxConfig
}

export function loadContext(args: { json?: boolean; verbose?: boolean; quiet?: boolean; config?: string }, overrides: SettingOverrides = {}): CliContext {
  if (args.verbose) setLogLevel(4)
  else if (args.quiet) setLogLevel(1)
  const env = process.env
  const settings = resolveSettings(env, overrides)
  return { settings, env, json: Boolean(args.json), paths: resolvePaths(env, settings, args.config), self: selfCommand() }
}

/** loadContext plus the config file, whose `settings` section joins the chain below MCPX_* variables. */
export function loadConfiguredContext(args: { json?: boolean; verbose?: boolean; quiet?: boolean; config?: string }, overrides: SettingOverrides = {}): ConfiguredContext {
  const base = loadContext(args, overrides)
  const config = loadConfig({ paths: base.paths, env: base.env, demoCommand: [...base.self, 'demo-server'] })
  return { ...base, config, settings: resolveConfiguredSettings(base.env, config, overrides) }
}

/** A `bun build --compile` binary runs its entry from Bun's embedded /$bunfs filesystem. */
function selfCommand(): readonly string[] {
  if (Bun.main.startsWith('/$bunfs/')) return [process.execPath]
  return [process.execPath, fileURLToPath(new URL('./main.ts', import.meta.url))]
}
