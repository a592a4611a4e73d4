/**
 * The daemon's answers to requests no route serves: refused by the guard (security.ts), made
 * while the daemon stops, or to a path or method the route table lacks. /v1 callers get the
 * API's error shape, MCP endpoints (/mcp) an id-less JSON-RPC error.
 */
import { RPC } from '../errors/index.ts'
import { HTTP_STATUS } from '../wire/index.ts'
import { jsonResponse } from './api-routes.ts'
import type { RouteMatch } from './routes.ts'
import type { Rejection } from './security.ts'

/**
 * OAuth discovery and registration (RFC 9728 protected-resource metadata, RFC 8414 server
 * metadata, RFC 7591 registration). Without OAuth on /mcp they do not exist: 404, no challenge,
 * so a host does not mistake the daemon's bearer token for an OAuth server it cannot register with.
 */
export function isDiscoveryPath(pathname: string): boolean {
  return pathname.startsWith('/.well-known/oauth-') || pathname.startsWith('/.well-known/openid-configuration') || pathname === '/register'
}

export function isApiPath(pathname: string): boolean {
  return pathname === '/v1' || pathname.startsWith('/v1/')
}

/**
 * /v1 callers get the API's error shape; other routes (/mcp) an id-less JSON-RPC error. A 401
 * carries an RFC 6750 section 3 challenge naming the problem, and the body says where the token is and
 * how to send it (no `resource_metadata`: there is no OAuth here). The body of a refused request is
 * never read, so the connection is closed with the answer.
 */
export function rejectionResponse(
  rejection: Rejection | { readonly status: typeof HTTP_STATUS.SERVICE_UNAVAILABLE; readonly code: 'CONNECT'; readonly message: string },
  pathname: string,
  tokenFile: string,
): Response {
  const message =
    rejection.status === HTTP_STATUS.UNAUTHORIZED
      ? `${rejection.message}: send the header "Authorization: Bearer <token>" with the token from ${tokenFile}`
      : rejection.message
  const headers: Record<string, string> =
    rejection.status === HTTP_STATUS.UNAUTHORIZED
      ? {
          'WWW-Authenticate': `Bearer realm="mcpx", error="invalid_token", error_description="send the bearer token from ${tokenFile}"`,
          Connection: 'close',
        }
      : { Connection: 'close' }
  if (isApiPath(pathname)) {
    return jsonResponse(
      { error: { code: rejection.code, message, ...(rejection.status === HTTP_STATUS.UNAUTHORIZED && { tokenFile }) } },
      rejection.status,
      headers,
    )
  }
  // -32600 with no id member: 2025-11-25 and 2026-07-28 schema.json make JSONRPCErrorResponse's id
  // optional for errors that cannot name a request (the SDKs refuse "id": null).
  return jsonResponse(
    {
      jsonrpc: '2.0',
      error: {
        code: RPC.INVALID_REQUEST,
        message,
        ...(rejection.status === HTTP_STATUS.UNAUTHORIZED && { data: { tokenFile, header: 'Authorization: Bearer <token>' } }),
      },
    },
    rejection.status,
    headers,
  )
}

/** 404 or 405 (with Allow) for a request the route table does not serve. */
export function noRouteResponse(match: Extract<RouteMatch, { status: number }>, method: string, pathname: string): Response {
  const allow: Record<string, string> = match.allow ? { Allow: match.allow } : {}
  // MCP endpoints (/mcp) answer in JSON-RPC, whatever the method: an id-less -32600.
  if (!isApiPath(pathname)) {
    const message =
      match.status === HTTP_STATUS.NOT_FOUND
        ? `no route ${pathname}`
        : `Method Not Allowed: ${method} is not served on ${pathname}${match.allow ? ` (allowed: ${match.allow})` : ''}`
    return jsonResponse({ jsonrpc: '2.0', error: { code: RPC.INVALID_REQUEST, message } }, match.status, allow)
  }
  return jsonResponse(
    {
      error: {
        code: 'NOT_FOUND',
        message: match.status === HTTP_STATUS.NOT_FOUND ? `no route ${pathname}` : `${method} not allowed on ${pathname}`,
      },
    },
    match.status,
    allow,
  )
}
