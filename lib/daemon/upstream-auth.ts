/**
 * How the daemon's pool connects each upstream: HTTP upstreams get lib/auth's OAuth provider with
 * the mcpx home's credential store and no interactive login (a daemon has no browser), stdio
 * upstreams inherit the daemon's baseline environment (lib/config/environment.ts). A login the daemon cannot do
 * becomes an AUTH error naming `mcpx auth login <server>`.
 */
import { type OAuthProvider, createUpstreamAuth } from '../auth/index.ts'
import type { ConnectOptions } from '../client/index.ts'
import type { ServerConfig } from '../config/index.ts'
import { McpxError, asMcpxError } from '../errors/index.ts'
import type { Settings } from '../settings/index.ts'
import type { AuthProvider } from '../transport/index.ts'

export interface UpstreamConnectContext {
  readonly settings: Settings
  /** The mcpx home: OAuth credentials live in `<home>/oauth/`. */
  readonly home: string
  /** Environment stdio upstreams inherit (read at each connect); default none. */
  readonly parentEnv?: Readonly<Record<string, string | undefined>> | (() => Readonly<Record<string, string | undefined>>)
}

/** The pool's `connectOptions`: called on every (re)connect, so a login done meanwhile is seen. */
export function upstreamConnectOptions(context: UpstreamConnectContext): (server: ServerConfig) => Partial<ConnectOptions> {
  return (server) => {
    const target = server.target
    if (target.kind === 'stdio') {
      const parentEnv = typeof context.parentEnv === 'function' ? context.parentEnv() : context.parentEnv
      return parentEnv === undefined ? {} : { parentEnv }
    }
    // A static Authorization header from the config is the credential; OAuth would only get in its way.
    if (!target.oauth && Object.keys(target.headers).some((name) => name.toLowerCase() === 'authorization')) return {}
    const provider = createUpstreamAuth({
      serverUrl: target.url,
      settings: context.settings,
      home: context.home,
      ...(target.oauth !== undefined && { config: target.oauth }),
      interactive: false,
    })
    return { auth: namingServer(server.name, provider) }
  }
}

/** The provider, with its failures restated for the daemon's user: which server, which command. */
function namingServer(server: string, provider: OAuthProvider): AuthProvider {
  return {
    authorization: () => provider.authorization(),
    requestHeaders: (request) => provider.requestHeaders(request),
    async onAuthChallenge(response, request) {
      try {
        return await provider.onAuthChallenge(response, request)
      } catch (error) {
        throw loginError(server, asMcpxError(error, 'AUTH'), response.status)
      }
    },
  }
}

function loginError(server: string, error: McpxError, httpStatus: number): McpxError {
  const command = `mcpx auth login ${server}`
  const data = { ...(error.data as Record<string, unknown> | undefined), server, httpStatus, command }
  // lib/auth's "no interactive login here" error carries the server URL in its data.
  const needsLogin = error.code === 'AUTH' && typeof (error.data as { serverUrl?: unknown } | undefined)?.serverUrl === 'string'
  const message = needsLogin
    ? `server "${server}" needs an OAuth login: run \`${command}\``
    : `server "${server}" refused access (HTTP ${httpStatus}) and re-authorization failed: ${error.message}; try \`${command}\``
  return new McpxError('AUTH', message, data, { cause: error })
}
