/**
 * Where MCP hosts keep their server definitions and the shape of each (as each host documents it):
 * the files `mcpx import` reads, in precedence order, and the one file `mcpx install` writes.
 */
import { join } from 'node:path'

export const HOST_IDS = ['claude-code', 'claude-desktop', 'cursor', 'vscode', 'windsurf', 'gemini', 'codex', 'opencode'] as const
export type HostId = (typeof HOST_IDS)[number]

export interface HostEnv {
  /** The user's home directory. */
  readonly home: string
  /** The project directory (project-scoped files are looked up here). */
  readonly cwd: string
  readonly platform: NodeJS.Platform
  /** $XDG_CONFIG_HOME (default ~/.config): Linux apps keep their configs here. */
  readonly configHome?: string
  /** How a host should run mcpx (`mcpx install`); default `mcpx serve` with no env. */
  readonly mcpx?: McpxLaunch
}

/** The command line (and environment) a host's entry runs mcpx with. */
export interface McpxLaunch {
  readonly command: string
  readonly args: readonly string[]
  /** MCPX_HOME / MCPX_CONFIG when the installing shell set them (hosts may pass no environment). */
  readonly env: Readonly<Record<string, string>>
}

export type FileFormat = 'json' | 'jsonc' | 'toml'

export interface HostSource {
  readonly host: HostId
  readonly file: string
  readonly scope: 'user' | 'project' | 'local'
  readonly format: FileFormat
  /** The server map inside the parsed document, if any. */
  servers(doc: unknown): unknown
}

export interface HostInstall {
  readonly file: string
  readonly format: FileFormat
  /** The host-shaped entry that runs `mcpx serve`. */
  readonly entry: unknown
  /** The keys of the object the entry goes into (created when missing). */
  containerPath(doc: Record<string, unknown>): readonly string[]
}

export interface HostDef {
  readonly id: HostId
  readonly label: string
  sources(env: HostEnv): HostSource[]
  install(env: HostEnv): HostInstall
}

/** The single entry `mcpx install` writes: hosts run `mcpx serve` over stdio. */
const DEFAULT_LAUNCH: McpxLaunch = { command: 'mcpx', args: ['serve'], env: {} }
export const MCPX_ENTRY_NAME = 'mcpx'

/** `{command, args[, env]}`: the shape most hosts share (`envKey` names the env field). */
function stdioEntry(env: HostEnv, envKey = 'env'): Record<string, unknown> {
  const launch = env.mcpx ?? DEFAULT_LAUNCH
  return { command: launch.command, args: [...launch.args], ...(Object.keys(launch.env).length > 0 && { [envKey]: { ...launch.env } }) }
}

const at = (doc: unknown, ...keys: string[]): unknown => {
  let value = doc
  for (const key of keys) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined
    value = (value as Record<string, unknown>)[key]
  }
  return value
}

/** Per-OS application config directory of Electron apps (Claude Desktop, VS Code). */
function appConfigDir(env: HostEnv): string {
  if (env.platform === 'darwin') return join(env.home, 'Library', 'Application Support')
  if (env.platform === 'win32') return join(env.home, 'AppData', 'Roaming')
  return env.configHome ?? join(env.home, '.config')
}

/** opencode follows XDG on every OS. */
function xdgConfig(env: HostEnv): string {
  return env.configHome ?? join(env.home, '.config')
}

const mcpServers = (doc: unknown) => at(doc, 'mcpServers')

export const HOSTS: Readonly<Record<HostId, HostDef>> = {
  'claude-code': {
    id: 'claude-code',
    label: 'Claude Code',
    // Precedence local > project > user (Claude Code docs, "MCP installation scopes").
    sources: (env) => [
      {
        host: 'claude-code',
        file: join(env.home, '.claude.json'),
        scope: 'local',
        format: 'json',
        servers: (doc) => at(doc, 'projects', env.cwd, 'mcpServers'),
      },
      { host: 'claude-code', file: join(env.cwd, '.mcp.json'), scope: 'project', format: 'json', servers: mcpServers },
      { host: 'claude-code', file: join(env.home, '.claude.json'), scope: 'user', format: 'json', servers: mcpServers },
    ],
    install: (env) => ({
      file: join(env.home, '.claude.json'),
      format: 'json',
      entry: { type: 'stdio', ...stdioEntry(env), env: { ...(env.mcpx ?? DEFAULT_LAUNCH).env } },
      containerPath: () => ['mcpServers'],
    }),
  },
  'claude-desktop': {
    id: 'claude-desktop',
    label: 'Claude Desktop',
    sources: (env) => [
      {
        host: 'claude-desktop',
        file: join(appConfigDir(env), 'Claude', 'claude_desktop_config.json'),
        scope: 'user',
        format: 'json',
        servers: mcpServers,
      },
    ],
    install: (env) => ({
      file: join(appConfigDir(env), 'Claude', 'claude_desktop_config.json'),
      format: 'json',
      entry: stdioEntry(env),
      containerPath: () => ['mcpServers'],
    }),
  },
  cursor: {
    id: 'cursor',
    label: 'Cursor',
    sources: (env) => [
      { host: 'cursor', file: join(env.cwd, '.cursor', 'mcp.json'), scope: 'project', format: 'json', servers: mcpServers },
      { host: 'cursor', file: join(env.home, '.cursor', 'mcp.json'), scope: 'user', format: 'json', servers: mcpServers },
    ],
    install: (env) => ({
      file: join(env.home, '.cursor', 'mcp.json'),
      format: 'json',
      entry: stdioEntry(env),
      containerPath: () => ['mcpServers'],
    }),
  },
  vscode: {
    id: 'vscode',
    label: 'VS Code',
    sources: (env) => [
      {
        host: 'vscode',
        file: join(env.cwd, '.vscode', 'mcp.json'),
        scope: 'project',
        format: 'jsonc',
        servers: (doc) => at(doc, 'servers'),
      },
      {
        host: 'vscode',
        file: join(appConfigDir(env), 'Code', 'User', 'mcp.json'),
        scope: 'user',
        format: 'jsonc',
        servers: (doc) => at(doc, 'servers'),
      },
    ],
    install: (env) => ({
      file: join(appConfigDir(env), 'Code', 'User', 'mcp.json'),
      format: 'jsonc',
      entry: { type: 'stdio', ...stdioEntry(env) },
      containerPath: () => ['servers'],
    }),
  },
  windsurf: {
    id: 'windsurf',
    label: 'Windsurf',
    sources: (env) => [
      {
        host: 'windsurf',
        file: join(env.home, '.codeium', 'windsurf', 'mcp_config.json'),
        scope: 'user',
        format: 'json',
        servers: mcpServers,
      },
    ],
    install: (env) => ({
      file: join(env.home, '.codeium', 'windsurf', 'mcp_config.json'),
      format: 'json',
      entry: stdioEntry(env),
      containerPath: () => ['mcpServers'],
    }),
  },
  gemini: {
    id: 'gemini',
    label: 'Gemini CLI',
    sources: (env) => [
      { host: 'gemini', file: join(env.cwd, '.gemini', 'settings.json'), scope: 'project', format: 'jsonc', servers: mcpServers },
      { host: 'gemini', file: join(env.home, '.gemini', 'settings.json'), scope: 'user', format: 'jsonc', servers: mcpServers },
    ],
    install: (env) => ({
      file: join(env.home, '.gemini', 'settings.json'),
      format: 'jsonc',
      entry: stdioEntry(env),
      containerPath: () => ['mcpServers'],
    }),
  },
  codex: {
    id: 'codex',
    label: 'Codex',
    sources: (env) => [
      {
        host: 'codex',
        file: join(env.cwd, '.codex', 'config.toml'),
        scope: 'project',
        format: 'toml',
        servers: (doc) => at(doc, 'mcp_servers'),
      },
      {
        host: 'codex',
        file: join(env.home, '.codex', 'config.toml'),
        scope: 'user',
        format: 'toml',
        servers: (doc) => at(doc, 'mcp_servers'),
      },
    ],
    install: (env) => ({
      file: join(env.home, '.codex', 'config.toml'),
      format: 'toml',
      entry: stdioEntry(env),
      containerPath: () => ['mcp_servers'],
    }),
  },
  opencode: {
    id: 'opencode',
    label: 'opencode',
    // V1 puts servers directly under `mcp`; V2 under `mcp.servers`.
    sources: (env) =>
      [
        join(env.cwd, 'opencode.json'),
        join(env.cwd, 'opencode.jsonc'),
        join(xdgConfig(env), 'opencode', 'opencode.json'),
        join(xdgConfig(env), 'opencode', 'opencode.jsonc'),
      ].map((file, index) => ({
        host: 'opencode' as const,
        file,
        scope: index < 2 ? ('project' as const) : ('user' as const),
        format: 'jsonc' as const,
        servers: opencodeServers,
      })),
    install: (env) => ({
      file: join(xdgConfig(env), 'opencode', 'opencode.json'),
      format: 'jsonc',
      entry: (() => {
        const launch = env.mcpx ?? DEFAULT_LAUNCH
        return {
          type: 'local',
          command: [launch.command, ...launch.args],
          enabled: true,
          ...(Object.keys(launch.env).length > 0 && { environment: { ...launch.env } }),
        }
      })(),
      containerPath: (doc) => (at(doc, 'mcp', 'servers') !== undefined ? ['mcp', 'servers'] : ['mcp']),
    }),
  },
}

function opencodeServers(doc: unknown): unknown {
  const mcp = at(doc, 'mcp')
  const v2 = at(mcp, 'servers')
  return v2 !== undefined && typeof v2 === 'object' ? v2 : mcp
}

export function isHostId(value: string): value is HostId {
  return (HOST_IDS as readonly string[]).includes(value)
}
