/** lib/auth/discovery.ts: well-known metadata URLs, resource matching and secure-endpoint checks. */
import { describe, expect, test } from 'bun:test'
import {
  authorizationServerMetadataUrls,
  protectedResourceMetadataUrls,
  requireSecureEndpoints,
  resourceMatchesServer,
} from '../../../lib/auth/index.ts'

describe('well-known URLs (2026-07-28 authorization-server-discovery.mdx)', () => {
  test('PRM: path-based first, then root; root only for a pathless server', () => {
    expect(protectedResourceMetadataUrls('https://example.com/public/mcp')).toEqual([
      'https://example.com/.well-known/oauth-protected-resource/public/mcp',
      'https://example.com/.well-known/oauth-protected-resource',
    ])
    expect(protectedResourceMetadataUrls('https://example.com/')).toEqual(['https://example.com/.well-known/oauth-protected-resource'])
  })

  test('AS metadata: OAuth then OpenID insertion then OpenID appending for a tenant issuer', () => {
    expect(authorizationServerMetadataUrls('https://auth.example.com/tenant1')).toEqual([
      'https://auth.example.com/.well-known/oauth-authorization-server/tenant1',
      'https://auth.example.com/.well-known/openid-configuration/tenant1',
      'https://auth.example.com/tenant1/.well-known/openid-configuration',
    ])
    expect(authorizationServerMetadataUrls('https://auth.example.com')).toEqual([
      'https://auth.example.com/.well-known/oauth-authorization-server',
      'https://auth.example.com/.well-known/openid-configuration',
    ])
  })
})

describe('resourceMatchesServer', () => {
  test.each([
    ['https://mcp.example.com/mcp', 'https://mcp.example.com/mcp', true],
    ['https://mcp.example.com', 'https://mcp.example.com/mcp', true],
    ['https://mcp.example.com/', 'https://mcp.example.com/mcp', true],
    ['https://mcp.example.com/mcp/', 'https://mcp.example.com/mcp', true],
    ['https://evil.example.com/mcp', 'https://mcp.example.com/mcp', false],
    ['https://mcp.example.com/other', 'https://mcp.example.com/mcp', false],
    ['https://mcp.example.com/mc', 'https://mcp.example.com/mcp', false],
    ['http://mcp.example.com/mcp', 'https://mcp.example.com/mcp', false],
    ['https://mcp.example.com:8443/mcp', 'https://mcp.example.com/mcp', false],
    ['https://mcp.example.com/mcp#x', 'https://mcp.example.com/mcp', false],
    ['not a url', 'https://mcp.example.com/mcp', false],
  ])('%s for %s → %p', (resource, server, expected) => {
    expect(resourceMatchesServer(resource, server)).toBe(expected)
  })
})

describe('requireSecureEndpoints (security-considerations.mdx "Communication Security")', () => {
  const meta = (endpoint: string) => ({ issuer: 'https://as.example', token_endpoint: endpoint })
  test('https and loopback http pass; other http and garbage are refused', () => {
    expect(() => requireSecureEndpoints(meta('https://as.example/token'))).not.toThrow()
    expect(() => requireSecureEndpoints(meta('http://127.0.0.1:8080/token'))).not.toThrow()
    expect(() => requireSecureEndpoints(meta('http://localhost/token'))).not.toThrow()
    expect(() => requireSecureEndpoints(meta('http://as.example/token'))).toThrow(/non-HTTPS token_endpoint/)
    expect(() => requireSecureEndpoints(meta('not a url'))).toThrow(/invalid token_endpoint/)
  })
})
