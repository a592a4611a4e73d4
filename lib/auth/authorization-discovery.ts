/**
 * Everything the provider learns before it can ask for a token: the server's challenge (when
 * probing for a login), its protected resource metadata and the resource check, the chosen
 * authorization server's validated metadata, or, for a PRM-less 2025-03-26 server, the AS at the
 * server's origin (metadata optional, default endpoints otherwise).
 */
import { McpxError } from '../errors/index.ts'
import { HTTP_STATUS, POST_ACCEPT_HEADER, MIME } from '../wire/index.ts'
import {
  defaultAuthorizationServerMetadata,
  fetchAuthorizationServerMetadata,
  fetchProtectedResourceMetadata,
  requireSecureEndpoints,
  resourceMatchesServer,
} from './discovery.ts'
import { type HttpContext, request } from './http.ts'
import type { AuthorizationServerMetadata } from './schemas.ts'
import { type BearerChallenge, parseBearerChallenge } from './www-authenticate.ts'

export interface Discovered {
  /** The RFC 8707 `resource` to send: the PRM's, verbatim, or the canonical server URI. */
  resource?: string
  prmScopes?: string[]
  metadata: AuthorizationServerMetadata
  /** False when the AS published no metadata and default endpoints stand in (2025-03-26). */
  fromDocument: boolean
}

/**
 * PRM (from the challenge or well-known), its resource check, then the AS metadata.
 * `currentIssuer`: the AS we already hold state for, kept when the PRM still lists it.
 */
export async function discoverAuthorization(
  http: HttpContext,
  serverUrl: string,
  challenge: BearerChallenge,
  currentIssuer?: string,
): Promise<Discovered> {
  const prm = await fetchProtectedResourceMetadata(http, serverUrl, challenge.resourceMetadata)
  if (prm) {
    // RFC 9728 section 3.3 / RFC 8707: a PRM naming another resource must not steer our tokens.
    if (!resourceMatchesServer(prm.resource, serverUrl)) {
      throw new McpxError('AUTH', `protected resource metadata names resource ${prm.resource}, which is not ${serverUrl}; refused`, {
        resource: prm.resource,
        serverUrl,
      })
    }
    // RFC 9728 section 7.6: the choice among several is ours; stay with the one we hold state for.
    const servers = prm.authorization_servers ?? []
    const issuer = currentIssuer !== undefined && servers.includes(currentIssuer) ? currentIssuer : servers[0]
    if (!issuer)
      throw new McpxError('AUTH', `protected resource metadata of ${serverUrl} names no authorization server`, { resource: prm.resource })
    const metadata = await fetchAuthorizationServerMetadata(http, issuer)
    if (!metadata) throw new McpxError('AUTH', `authorization server ${issuer} publishes no OAuth or OpenID metadata`, { issuer })
    const discovered: Discovered = { resource: prm.resource, metadata, fromDocument: true }
    if (prm.scopes_supported) discovered.prmScopes = prm.scopes_supported
    return discovered
  }
  // 2025-03-26 servers: no PRM; the AS is the server's origin, its metadata optional.
  const metadata = await fetchAuthorizationServerMetadata(http, new URL(serverUrl).origin)
  // RFC 8707 still applies: the canonical server URI is the resource (sent regardless of support).
  const resource = canonicalResource(serverUrl)
  const discovered: Discovered = metadata
    ? { metadata, resource, fromDocument: true }
    : { metadata: defaultAuthorizationServerMetadata(serverUrl), resource, fromDocument: false }
  requireSecureEndpoints(discovered.metadata)
  return discovered
}

/**
 * The server's own 401 challenge to an unauthenticated ping, for a login started before any
 * request failed: it may name a PRM location no well-known URI would find, and the scopes it wants.
 */
export async function probeChallenge(http: HttpContext, serverUrl: string): Promise<BearerChallenge> {
  try {
    const response = await request(http, serverUrl, {
      method: 'POST',
      headers: { 'content-type': MIME.JSON, accept: POST_ACCEPT_HEADER },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }),
    })
    await response.body?.cancel()
    return response.status === HTTP_STATUS.UNAUTHORIZED ? parseBearerChallenge(response) : {}
  } catch {
    return {}
  }
}

/** RFC 8707 section 2 canonical URI: no fragment, and no bare trailing slash on a pathless URI. */
function canonicalResource(serverUrl: string): string {
  const url = new URL(serverUrl)
  url.hash = ''
  const text = url.toString()
  return url.pathname === '/' && !url.search ? text.replace(/\/$/, '') : text
}

/** 2026-07-28 security-considerations.mdx: no S256 in the metadata means no PKCE, so refuse. */
export function requirePkce(metadata: AuthorizationServerMetadata): void {
  if (!metadata.code_challenge_methods_supported?.includes('S256')) {
    throw new McpxError('AUTH', `authorization server ${metadata.issuer} does not advertise PKCE S256; refused`, {
      issuer: metadata.issuer,
    })
  }
}
