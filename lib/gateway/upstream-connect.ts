/**
 * How one server entry of the config becomes a client connection: its target (a stdio command
 * whose stderr goes to the daemon log, or a URL with its transport), the capabilities mcpx
 * declares upstream (the union of what it can carry to some host: the questions its broker's
 * handlers answer, and MCP Apps unless the embedder renders none), the embedder's extra options
 * (auth, client info) and, for a server that records, the recording transports. upstream.ts owns
 * when to connect; this file owns what a connection is made of.
 */
import { type ClientHandlers, type ConnectOptions, type JsonObject, type McpClient, type Target, connect } from '../client/index.ts'
import { type ServerConfig, transportKindOf } from '../config/index.ts'
import { log } from '../log/index.ts'
import type { Settings } from '../settings/index.ts'
import { EXTENSION } from '../wire/index.ts'
import { UI_EXTENSION_SETTINGS } from './apps.ts'
import type { UpstreamRecording } from './upstream-recording.ts'

/** What connecting needs of the upstream's context (upstream.ts UpstreamContext). */
export interface ConnectContext {
  readonly settings: Settings
  readonly cacheDir?: string
  /** Declare the MCP Apps extension upstream (default true). */
  readonly apps?: boolean
}

export function connectUpstream(
  config: ServerConfig,
  context: ConnectContext,
  handlers: ClientHandlers,
  extra: Partial<ConnectOptions> | undefined,
  recording: UpstreamRecording | undefined,
): Promise<McpClient> {
  return connect(targetOf(config), {
    settings: context.settings,
    handlers,
    // The union of what mcpx can carry to some host: the questions (from handlers) and MCP Apps.
    capabilities:
      context.apps === false
        ? { ...extra?.capabilities }
        : {
            ...extra?.capabilities,
            extensions: { ...(extra?.capabilities?.extensions as JsonObject | undefined), [EXTENSION.UI]: UI_EXTENSION_SETTINGS },
          },
    ...(config.protocol !== undefined && { revision: config.protocol }),
    ...(context.cacheDir !== undefined && { cacheDir: context.cacheDir }),
    onWarning: (message) => log.warn(`[${config.name}] ${message}`),
    ...(extra && withoutCapabilities(extra)),
    ...(recording !== undefined && { transports: recording.transports }),
  })
}

function withoutCapabilities(options: Partial<ConnectOptions>): Partial<ConnectOptions> {
  const { capabilities: _capabilities, ...rest } = options
  return rest
}

function targetOf(config: ServerConfig): Target {
  const target = config.target
  if (target.kind === 'stdio') {
    return {
      command: target.command,
      args: [...target.args],
      env: { ...target.env },
      ...(target.cwd !== undefined && { cwd: target.cwd }),
      // Upstream stderr goes to the daemon log under the server's name (stderr is logging, never a failure signal:
      // 2025-11-25 basic/transports.mdx "stdio").
      onStderrLine: (line: string) => log.info(`[${config.name} stderr] ${line}`),
    }
  }
  return {
    url: target.url,
    headers: { ...target.headers },
    ...(target.transport !== 'auto' && { transport: transportKindOf(target.transport) as 'streamable-http' | 'http+sse' }),
  }
}
