/**
 * A configured server's status before any connection: the daemon's unconnected pool and `mcpx status`
 * without a daemon show it as is; Upstream.status() adds the live state. Status objects never carry env
 * values, headers or URL credentials.
 */
import type { ServerConfig } from '../config/index.ts'
import type { ServerStatus } from './pool-shapes.ts'

export function configuredStatus(server: ServerConfig): ServerStatus {
  const target = server.target
  return {
    name: server.name,
    state: server.disabled ? 'disabled' : server.unavailable !== undefined ? 'unavailable' : 'configured',
    ...(!server.disabled && server.unavailable !== undefined && { reason: server.unavailable }),
    transport: target.kind,
    endpoint: target.kind === 'stdio' ? target.command : redactUrl(target.url),
    ...(server.description !== undefined && { description: server.description }),
    ...(server.protocol !== undefined && { protocol: server.protocol }),
  }
}

/** Scheme, host and path only: userinfo, query and fragment may hold credentials. */
export function redactUrl(url: string): string {
  const parsed = new URL(url)
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`
}
