/**
 * Who a /mcp request runs as. Without OAuth configured, every request that passed the guard is the
 * machine's owner (socket, or the local token on TCP). With OAuth (`mcpAuthIssuer`, lib/access):
 * the Unix socket and the local token on a loopback listener are still the owner; any other
 * bearer must be an access token for this resource, verified by the resource server, and a
 * listener off loopback takes nothing else. The metadata routes (RFC 9728) are served without auth.
 * gateway.ts loads this module only when `mcpAuthIssuer` is set: the resource server brings jose
 * (README "Start-up and memory").
 */
import { RPC } from '../errors/index.ts'
import { type Principal, OWNER, PRM_PATH, createResourceServer } from '../access/index.ts'
import type { Settings } from '../settings/index.ts'
import { jsonResponse } from './api-routes.ts'
import type { Route } from './routes.ts'
import { hasToken, type ListenerKind } from './security.ts'
import { HTTP_STATUS } from '../wire/index.ts'

export interface McpAuthOptions {
  readonly settings: Settings
  /** The resource URL when `mcpAuthResource` is empty (the listener's own /mcp URL, known after it binds). */
  readonly defaultResource: () => string
  readonly mcpPath: string
  /** The daemon's local token (token.ts) and whether the TCP listener is on loopback. */
  readonly localToken: () => string
  readonly loopback: boolean
}

export interface McpAuth {
  principalFor(request: Request, listener: ListenerKind): Promise<Principal | Response>
  readonly routes: readonly Route[]
  authenticatesItself(pathname: string): boolean
}

/** null when OAuth is not configured on /mcp (`mcpAuthIssuer` empty). Bad settings throw CONFIG. */
export function createMcpAuth(options: McpAuthOptions): McpAuth | null {
  const { mcpPath } = options
  const server = createResourceServer({ settings: options.settings, defaultResource: options.defaultResource })
  if (server === null) return null
  const metadataRoute: Route = {
    methods: ['GET'],
    path: PRM_PATH,
    prefix: true,
    handle: () => jsonResponse(server.metadata(), HTTP_STATUS.OK, { 'Cache-Control': 'no-store' }),
  }
  return {
    routes: [metadataRoute],
    authenticatesItself: (pathname) => pathname === mcpPath || pathname === PRM_PATH || pathname.startsWith(`${PRM_PATH}/`),
    async principalFor(request, listener) {
      if (listener === 'unix') return OWNER
      if (options.loopback && hasToken(request, options.localToken())) return OWNER
      const outcome = await server.authenticate(request)
      if (outcome.ok) return outcome.principal
      // JSON-RPC 2.0 section 5.1: the request was not read, so the id is null.
      return jsonResponse(
        { jsonrpc: '2.0', id: null, error: { code: RPC.INVALID_REQUEST, message: outcome.message } },
        outcome.status,
        outcome.challenge ? { 'WWW-Authenticate': outcome.challenge } : {},
      )
    },
  }
}
