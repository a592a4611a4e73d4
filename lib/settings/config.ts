/**
 * Where mcpx finds its config file and keeps its own state. The environment names live here (and
 * only here): MCPX_CONFIG / MCPX_HOME as settings, HOME and XDG_* read by `resolvePaths` from the
 * environment record the CLI passes in, so no other module touches process.env.
 */
import { join } from 'node:path'
import { defineSettings } from './define.ts'

export const CONFIG_SETTINGS = defineSettings({
  configPath: {
    default: '',
    env: 'MCPX_CONFIG',
    doc: 'Config file to read (empty: $XDG_CONFIG_HOME/mcpx/config.json, else ~/.config/mcpx/config.json)',
  },
  homeDir: {
    default: '',
    env: 'MCPX_HOME',
    doc: 'Directory for all mcpx state: socket, token, logs, caches (empty: $XDG_STATE_HOME/mcpx)',
  },
})

/** The directories mcpx reads and writes, resolved once from the environment. */
export interface McpxPaths {
  /** The user's home directory (host configs are found relative to it). */
  readonly userHome: string
  /** Explicit config file (flag or MCPX_CONFIG), or undefined to search `configCandidates`. */
  readonly explicitConfig: string | undefined
  /** Config files tried in order when none is explicit; the first that exists wins. */
  readonly configCandidates: readonly string[]
  /** Where `mcpx import` writes when no config file exists yet. */
  readonly defaultConfig: string
  /** The one directory holding every piece of mcpx state. */
  readonly home: string
  /** $XDG_CONFIG_HOME or ~/.config: where Linux hosts (Claude Desktop, VS Code, opencode) keep their configs. */
  readonly configHome: string
}

type Env = Readonly<Record<string, string | undefined>>

/**
 * XDG Base Directory Specification: $XDG_CONFIG_HOME defaults to ~/.config, $XDG_STATE_HOME to
 * ~/.local/state; relative values are invalid and ignored.
 */
export function resolvePaths(
  env: Env,
  settings: { readonly configPath: string; readonly homeDir: string },
  flagConfig?: string,
): McpxPaths {
  const userHome = nonEmpty(env.HOME) ?? '/'
  const xdgConfig = absolute(env.XDG_CONFIG_HOME) ?? join(userHome, '.config')
  const xdgState = absolute(env.XDG_STATE_HOME) ?? join(userHome, '.local', 'state')
  const defaultConfig = join(xdgConfig, 'mcpx', 'config.json')
  const fallback = join(userHome, '.config', 'mcpx', 'config.json')
  return {
    userHome,
    explicitConfig: nonEmpty(flagConfig) ?? nonEmpty(settings.configPath),
    configCandidates: defaultConfig === fallback ? [defaultConfig] : [defaultConfig, fallback],
    defaultConfig,
    home: nonEmpty(settings.homeDir) ?? join(xdgState, 'mcpx'),
    configHome: xdgConfig,
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value
}

function absolute(value: string | undefined): string | undefined {
  return value?.startsWith('/') ? value : undefined
}
