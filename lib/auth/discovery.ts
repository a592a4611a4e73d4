/**
 * Authorization server discovery for one MCP server (2026-07-28
 * basic/authorization/authorization-server-discovery.mdx): protected resource metadata from the
 * challenge's `resource_metadata`, else the path-based then root well-known URI (RFC 9728 section 3);
 * the PRM `resource` must identify this server; then AS metadata from the RFC 8414 / OpenID
 * well-known URIs in the spec's priority order, whose `issuer` must equal the one we built from.
 */
import { McpxError } from '../errors/index.ts'
import { LOOPBACK_HOSTNAMES } from '../wire/index.ts'
import { type HttpContext, readJson, request } from './http.ts'
import {
  type AuthorizationServerMetadata,
  AuthorizationServerMetadataSchema,
  type ProtectedResourceMetadata,
  ProtectedResourceMetadataSchema,
} from './schemas.ts'

const PRM_SUFFIX = '/.well-known/oauth-protected-resource'
const OAUTH_AS_SUFFIX = '/.well-known/oauth-authorization-server'
const OPENID_SUFFIX = '/.well-known/openid-configuration'

/** Well-known PRM URLs for a server URL: path-based first, root second (RFC 9728 section 3.1). */
export function protectedResourceMetadataUrls(serverUrl: string): string[] {
  const url = new URL(serverUrl)
  const path = url.pathname.replace(/\/+$/, '')
  const root = `${url.origin}${PRM_SUFFIX}`
  return path ? [`${url.origin}${PRM_SUFFIX}${path}`, root] : [root]
}

/**
 * Fetch the PRM document: from `resourceMetadataUrl` when the challenge named one (no fallback:
 * the server told us where it is), else the well-known URIs in order. `undefined` when the server
 * publishes none (a 2025-03-26 era server).
 */
export async function fetchProtectedResourceMetadata(
  ctx: HttpContext,
  serverUrl: string,
  resourceMetadataUrl?: string,
): Promise<ProtectedResourceMetadata | undefined> {
  const candidates = resourceMetadataUrl ? [resourceMetadataUrl] : protectedResourceMetadataUrls(serverUrl)
  for (const url of candidates) {
    const response = await request(ctx, url, { headers: { accept: 'application/json' } })
    if (response.ok) return readJson(response, ProtectedResourceMetadataSchema, 'protected resource metadata')
    await response.body?.cancel()
    if (resourceMetadataUrl) {
      throw new McpxError('AUTH', `protected resource metadata at ${url} answered HTTP ${response.status}`, {
        url,
        status: response.status,
      })
    }
  }
  return undefined
}

/**
 * Whether PRM `resource` identifies the MCP server at `serverUrl` (RFC 9728 section 3.3, RFC 8707 section 2):
 * same origin, and the resource path equals the server path or is a path-segment prefix of it
 * (a root PRM may name the origin for every endpoint under it).
 */
export function resourceMatchesServer(resource: string, serverUrl: string): boolean {
  let r: URL
  let s: URL
  try {
    r = new URL(resource)
    s = new URL(serverUrl)
  } catch {
    return false
  }
  if (r.origin !== s.origin || r.hash) return false
  const rPath = r.pathname.replace(/\/+$/, '')
  const sPath = s.pathname.replace(/\/+$/, '')
  return sPath === rPath || sPath.startsWith(`${rPath}/`)
}

/** AS metadata URLs for an issuer, in the spec's priority order (RFC 8414 section 3.1 and section 5). */
export function authorizationServerMetadataUrls(issuer: string): string[] {
  const url = new URL(issuer)
  const path = url.pathname.replace(/\/+$/, '')
  if (!path) return [`${url.origin}${OAUTH_AS_SUFFIX}`, `${url.origin}${OPENID_SUFFIX}`]
  return [`${url.origin}${OAUTH_AS_SUFFIX}${path}`, `${url.origin}${OPENID_SUFFIX}${path}`, `${url.origin}${path}${OPENID_SUFFIX}`]
}

/**
 * Fetch and validate AS metadata for `issuer`. `undefined` when no well-known URL answers 2xx.
 * A document whose `issuer` differs from the one we built the URL from is refused outright
 * (RFC 8414 section 3.3: MUST NOT use it; a poisoned document is not a reason to keep probing).
 */
export async function fetchAuthorizationServerMetadata(ctx: HttpContext, issuer: string): Promise<AuthorizationServerMetadata | undefined> {
  for (const url of authorizationServerMetadataUrls(issuer)) {
    const response = await request(ctx, url, { headers: { accept: 'application/json' } })
    if (!response.ok) {
      await response.body?.cancel()
      continue
    }
    const metadata = await readJson(response, AuthorizationServerMetadataSchema, 'authorization server metadata')
    if (metadata.issuer !== issuer) {
      throw new McpxError('AUTH', `authorization server metadata at ${url} names issuer ${metadata.issuer}, expected ${issuer}`, {
        url,
        issuer,
        metadataIssuer: metadata.issuer,
      })
    }
    requireSecureEndpoints(metadata)
    return metadata
  }
  return undefined
}

const ENDPOINTS = ['authorization_endpoint', 'token_endpoint', 'registration_endpoint'] as const

/**
 * 2026-07-28 security-considerations.mdx "Communication Security": AS endpoints MUST be HTTPS.
 * Loopback hosts are exempt (local development, test servers); nothing else is.
 */
export function requireSecureEndpoints(metadata: AuthorizationServerMetadata): void {
  for (const key of ENDPOINTS) {
    const value = metadata[key]
    if (value === undefined) continue
    let url: URL
    try {
      url = new URL(value)
    } catch {
      throw new McpxError('AUTH', `authorization server ${metadata.issuer} publishes an invalid ${key}: ${value}`, {
        issuer: metadata.issuer,
        [key]: value,
      })
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) {
      throw new McpxError('AUTH', `authorization server ${metadata.issuer} publishes a non-HTTPS ${key} (${value}); refused`, {
        issuer: metadata.issuer,
        [key]: value,
      })
    }
  }
}

/** The loopback names, plus any address of the 127.0.0.0/8 block (all of it is loopback). */
function isLoopback(hostname: string): boolean {
  return LOOPBACK_HOSTNAMES.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname)
}

/**
 * 2025-03-26 basic/authorization.mdx "Fallbacks for Servers without Metadata Discovery": with no metadata document, the AS lives at the MCP
 * server's origin with default endpoint paths.
 */
export function defaultAuthorizationServerMetadata(serverUrl: string): AuthorizationServerMetadata {
  const origin = new URL(serverUrl).origin
  return {
    issuer: origin,
    authorization_endpoint: `${origin}/authorize`,
    token_endpoint: `${origin}/token`,
    registration_endpoint: `${origin}/register`,
  }
}
