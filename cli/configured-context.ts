/**
 * A command's context with the whole config file loaded: its servers, `access` and `settings`
 * (below MCPX_* variables in the settings chain). Its own module because the file's schemas load
 * with it; a warm `mcpx call` reads only the `settings` section (cli/context.ts loadSettingsContext).
 */
import { type McpxConfig, findConfigFile, loadConfig, resolveConfiguredSettings } from '../lib/config/index.ts'
import { McpxError } from '../lib/errors/index.ts'
import type { SettingOverrides } from '../lib/settings/index.ts'
import { type CliContext, type ContextFlags, loadContext } from './context.ts'

export interface ConfiguredContext extends CliContext {
  readonly config: McpxConfig
  /** Set when the config file does not parse (tolerant loads only: the daemon says what it serves). */
  readonly configError?: McpxError
}

/**
 * loadContext plus the config file, whose `settings` section joins the chain below MCPX_* variables.
 * `tolerant` (commands the daemon serves): a file that does not parse does not stop the command —
 * the daemon keeps serving its previous version and says so.
 */
export function loadConfiguredContext(
  args: ContextFlags,
  overrides: SettingOverrides = {},
  options: { tolerant?: boolean } = {},
): ConfiguredContext {
  return withConfig(loadContext(args, overrides), overrides, options)
}

/** `base` with the config file loaded (as loadConfiguredContext). */
export function withConfig(base: CliContext, overrides: SettingOverrides = {}, options: { tolerant?: boolean } = {}): ConfiguredContext {
  const demoCommand = [...base.self, 'demo-server']
  try {
    const config = loadConfig({ paths: base.paths, env: base.env, demoCommand, envSource: "this command's environment" })
    return { ...base, config, settings: resolveConfiguredSettings(base.env, config, overrides) }
  } catch (error) {
    if (!options.tolerant || !(error instanceof McpxError) || error.code !== 'CONFIG') throw error
    const source = findConfigFile(base.paths)
    return { ...base, config: { source, servers: {}, settings: {} }, configError: error }
  }
}
