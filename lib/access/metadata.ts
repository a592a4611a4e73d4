/**
 * Protected Resource Metadata (RFC 9728) for /mcp. 2026-07-28 basic/authorization/
 * authorization-server-discovery.mdx: served at the path of the MCP endpoint
 * (`/.well-known/oauth-protected-resource/mcp`) and at the root; `authorization_servers` names
 * the issuer whose tokens are accepted.
 */
export const PRM_PATH = '/.well-known/oauth-protected-resource'

export interface ResourceMetadata {
  readonly resource: string
  readonly authorization_servers: readonly string[]
  readonly scopes_supported?: readonly string[]
  readonly bearer_methods_supported: readonly string[]
  readonly resource_name: string
}

export function resourceMetadata(resource: string, issuer: string, scopes: readonly string[]): ResourceMetadata {
  return {
    resource,
    authorization_servers: [issuer],
    ...(scopes.length > 0 && { scopes_supported: scopes }),
    // 2026-07-28 basic/authorization/index.mdx: tokens go in the Authorization header, never the query.
    bearer_methods_supported: ['header'],
    resource_name: 'mcpx',
  }
}

/** The path-specific metadata URL of a resource (RFC 9728 section 3.1: well-known segment before the path). */
export function resourceMetadataUrl(resource: string): string {
  const url = new URL(resource)
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/+$/, '')
  return `${url.origin}${PRM_PATH}${path}`
}

/** Both paths the metadata is served at: the root one and the one under the endpoint's path. */
export function resourceMetadataPaths(resource: string): string[] {
  const path = new URL(resource).pathname.replace(/\/+$/, '')
  return path === '' ? [PRM_PATH] : [PRM_PATH, `${PRM_PATH}${path}`]
}

/** RFC 8707 section 2: the resource is an absolute URI without a fragment. */
export function checkResourceUrl(resource: string): string | undefined {
  let url: URL
  try {
    url = new URL(resource)
  } catch {
    return `is not an absolute URL: ${JSON.stringify(resource)}`
  }
  if (url.hash !== '') return 'must not contain a fragment (RFC 8707 section 2)'
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http(s) URL'
  return undefined
}
