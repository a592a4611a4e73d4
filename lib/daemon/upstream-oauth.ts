/**
 * The OAuth provider of one HTTP upstream in the daemon (lib/auth): non-interactive, the mcpx
 * home's credential store, its failures restated for the daemon's user. Loaded by upstream-auth.ts
 * with the first HTTP upstream that needs it.
 */
import { type OAuthProvider, createUpstreamAuth } from '../auth/index.ts'
import type { ServerConfig } from '../config/index.ts'
import { McpxError, asMcpxError } from '../errors/index.ts'
import type { AuthProvider } from '../transport/index.ts'
import type { UpstreamConnectContext } from './upstream-auth.ts'

type HttpTarget = Extract<ServerConfig['target'], { kind: 'http' }>

export function upstreamOAuth(server: string, target: HttpTarget, context: UpstreamConnectContext): AuthProvider {
  const provider = createUpstreamAuth({
    serverUrl: target.url,
    settings: context.settings,
    home: context.home,
    ...(target.oauth !== undefined && { config: target.oauth }),
    interactive: false,
  })
  return namingServer(server, provider)
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
