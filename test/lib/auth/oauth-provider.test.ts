/**
 * The OAuth provider against a real authorization server and protected resource (Bun.serve):
 * discovery, registration paths, PKCE, resource indicators, scopes, step-up, refresh, migration.
 */
import { describe, expect, test } from 'bun:test'
import { createOAuthProvider, createRedirectFollowingHandler, type OAuthProviderOptions } from '../../../lib/auth/index.ts'
import { McpxError } from '../../../lib/errors/index.ts'
import { testSettings } from '../../harness.ts'
import {
  type AsOptions,
  type ResourceOptions,
  type TokenRegistry,
  callThrough,
  startAuthorizationServer,
  startResourceServer,
} from './oauth-peers.ts'

async function peers(as: Omit<AsOptions, 'registry'> = {}, rs: Omit<ResourceOptions, 'registry' | 'authorizationServers'> = {}) {
  const registry: TokenRegistry = new Map()
  const authServer = await startAuthorizationServer({ registry, ...as })
  const resource = await startResourceServer({ registry, authorizationServers: () => [authServer.issuer], ...rs })
  return {
    registry,
    as: authServer,
    rs: resource,
    provider: (options: Partial<OAuthProviderOptions> = {}) =>
      createOAuthProvider({
        serverUrl: resource.endpoint,
        settings: testSettings(),
        authorizationHandler: createRedirectFollowingHandler(),
        ...options,
      }),
    async [Symbol.asyncDispose]() {
      await resource[Symbol.asyncDispose]()
      await authServer[Symbol.asyncDispose]()
    },
  }
}

async function rejection(promise: Promise<unknown>): Promise<McpxError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof McpxError) return error
    throw error
  }
  throw new Error('expected a rejection')
}

describe('OAuth provider: authorization code flow', () => {
  test('401 → PRM from the challenge → AS metadata → DCR (native, public) → PKCE S256 + resource → Bearer token', async () => {
    await using p = await peers()
    const provider = p.provider()
    expect(await provider.authorization()).toBeUndefined()
    expect(await callThrough(provider, p.rs.endpoint, 'list')).toEqual({ status: 200, body: { ok: true, op: 'list' } })

    const [registration] = p.as.of('/register')
    expect(registration?.body).toMatchObject({
      application_type: 'native',
      token_endpoint_auth_method: 'none',
      redirect_uris: ['http://127.0.0.1/callback'],
    })
    const [authorize] = p.as.of('/authorize')
    expect(authorize?.params).toMatchObject({
      response_type: 'code',
      code_challenge_method: 'S256',
      resource: p.rs.endpoint,
      client_id: 'client-1',
    })
    expect(authorize?.params.scope).toBeUndefined()
    const [token] = p.as.of('/token')
    expect(token?.params).toMatchObject({ grant_type: 'authorization_code', resource: p.rs.endpoint, client_id: 'client-1' })
    expect(token?.params.code_verifier?.length).toBeGreaterThanOrEqual(43)
    expect(await provider.authorization()).toMatch(/^Bearer at-/)
    expect(await provider.issuer()).toBe(p.as.issuer)
  })

  test('concurrent 401s share one authorization', async () => {
    await using p = await peers()
    const provider = p.provider()
    const results = await Promise.all([1, 2, 3].map((n) => callThrough(provider, p.rs.endpoint, `op${n}`)))
    expect(results.map((r) => r.status)).toEqual([200, 200, 200])
    expect(p.as.of('/authorize').length).toBe(1)
    expect(p.as.of('/register').length).toBe(1)
  })

  test('tenant issuer found by OpenID path insertion; PRM found at the well-known URI without a header', async () => {
    await using p = await peers({ issuerPath: '/tenant1', metadataKind: 'openid' }, { prmInHeader: false })
    expect((await callThrough(p.provider(), p.rs.endpoint, 'list')).status).toBe(200)
    const paths = p.as.requests.map((r) => r.path)
    expect(paths.slice(0, 2)).toEqual(['/.well-known/oauth-authorization-server/tenant1', '/.well-known/openid-configuration/tenant1'])
    expect(p.rs.requests.some((r) => r.path === '/.well-known/oauth-protected-resource/mcp')).toBe(true)
  })

  test('scope: the challenge wins over scopes_supported; scopes_supported is used when the challenge has none', async () => {
    {
      await using p = await peers({}, { scopeInChallenge: 'mcp:basic', scopesSupported: ['a', 'b'] })
      await callThrough(p.provider(), p.rs.endpoint, 'list')
      expect(p.as.of('/authorize')[0]?.params.scope).toBe('mcp:basic')
    }
    {
      await using p = await peers({}, { scopesSupported: ['a', 'b'] })
      await callThrough(p.provider(), p.rs.endpoint, 'list')
      expect(p.as.of('/authorize')[0]?.params.scope).toBe('a b')
    }
  })

  test('offline_access is added only when the AS lists it', async () => {
    {
      await using p = await peers({ scopesSupported: ['mcp', 'offline_access'] }, { scopesSupported: ['mcp'] })
      await callThrough(p.provider(), p.rs.endpoint, 'list')
      expect(p.as.of('/authorize')[0]?.params.scope).toBe('mcp offline_access')
    }
    {
      await using p = await peers({ scopesSupported: ['mcp'] }, { scopesSupported: ['mcp'] })
      await callThrough(p.provider(), p.rs.endpoint, 'list')
      expect(p.as.of('/authorize')[0]?.params.scope).toBe('mcp')
    }
  })

  test('403 insufficient_scope steps up with the union of scopes; a challenge the token already satisfies is refused', async () => {
    await using p = await peers(
      {},
      { scopeInChallenge: 'read', requiredScopes: (op) => (op === 'write' ? ['write'] : op === 'admin' ? ['admin'] : ['read']) },
    )
    const provider = p.provider()
    expect((await callThrough(provider, p.rs.endpoint, 'read')).status).toBe(200)
    expect((await callThrough(provider, p.rs.endpoint, 'write')).status).toBe(200)
    expect(p.as.of('/authorize').map((r) => r.params.scope)).toEqual(['read', 'read write'])
    // A server that keeps asking for a scope the token already has: no second authorization.
    await using stubborn = await peers({}, { scopeInChallenge: 'admin', alwaysForbid: 'admin' })
    const err = await rejection(callThrough(stubborn.provider(), stubborn.rs.endpoint, 'x'))
    expect(err.code).toBe('AUTH')
    expect(stubborn.as.of('/authorize').map((r) => r.params.scope)).toEqual(['admin'])
  })

  test('a PRM naming another resource is refused before any authorization request', async () => {
    await using p = await peers({}, { prmResource: () => 'https://evil.example.com/mcp' })
    const err = await rejection(callThrough(p.provider(), p.rs.endpoint, 'list'))
    expect(err.code).toBe('AUTH')
    expect(err.data).toMatchObject({ resource: 'https://evil.example.com/mcp' })
    expect(p.as.requests).toEqual([])
  })

  test('AS metadata whose issuer differs from the one queried is refused and its endpoints never used', async () => {
    await using p = await peers({ metadataIssuer: 'https://attacker.example.com' })
    const err = await rejection(callThrough(p.provider(), p.rs.endpoint, 'list'))
    expect(err.data).toMatchObject({ metadataIssuer: 'https://attacker.example.com' })
    expect(p.as.requests.map((r) => r.path)).toEqual(['/.well-known/oauth-authorization-server'])
  })

  test('a wrong iss in the redirect stops the flow before the token endpoint', async () => {
    await using p = await peers({ issInRedirect: 'wrong', issParameterSupported: true })
    const err = await rejection(callThrough(p.provider(), p.rs.endpoint, 'list'))
    expect(err.message).toContain('https://evil.example')
    expect(p.as.of('/token')).toEqual([])
  })

  test('without an authorization handler the provider asks for a login instead of hanging', async () => {
    await using p = await peers()
    const err = await rejection(callThrough(p.provider({ authorizationHandler: undefined }), p.rs.endpoint, 'list'))
    expect(err.code).toBe('AUTH')
    expect(err.message).toContain('mcpx auth login')
  })
})

describe('OAuth provider: client registration', () => {
  test('pre-registered credentials go by client_secret_basic and skip registration; another issuer is refused', async () => {
    await using p = await peers({ registration: false, authMethods: ['client_secret_basic'], preRegistered: { 'pre-client': 's3cret' } })
    expect(
      (
        await callThrough(
          p.provider({ preRegistered: { clientId: 'pre-client', clientSecret: 's3cret', issuer: p.as.issuer } }),
          p.rs.endpoint,
          'x',
        )
      ).status,
    ).toBe(200)
    expect(p.as.of('/register')).toEqual([])
    expect(p.as.of('/token')[0]?.authorization).toBe(`Basic ${Buffer.from('pre-client:s3cret').toString('base64')}`)
    const err = await rejection(
      callThrough(p.provider({ preRegistered: { clientId: 'pre-client', issuer: 'https://other.example' } }), p.rs.endpoint, 'x'),
    )
    expect(err.data).toMatchObject({ registeredIssuer: 'https://other.example', issuer: p.as.issuer })
  })

  test('pre-registered credentials without a configured issuer bind to the first AS and are not carried to a new one', async () => {
    const registry: TokenRegistry = new Map()
    await using as1 = await startAuthorizationServer({
      registry,
      registration: false,
      authMethods: ['client_secret_basic'],
      preRegistered: { pre: 'pw' },
    })
    await using as2 = await startAuthorizationServer({ registry, authMethods: ['client_secret_basic'], preRegistered: { pre: 'pw' } })
    let current = as1.issuer
    await using rs = await startResourceServer({ registry, authorizationServers: () => [current] })
    const provider = createOAuthProvider({
      serverUrl: rs.endpoint,
      settings: testSettings(),
      authorizationHandler: createRedirectFollowingHandler(),
      preRegistered: { clientId: 'pre', clientSecret: 'pw' },
    })
    expect((await callThrough(provider, rs.endpoint, 'a')).status).toBe(200)
    current = as2.issuer
    const err = await rejection(callThrough(provider, rs.endpoint, 'b'))
    expect(err.data).toMatchObject({ registeredIssuer: as1.issuer, issuer: as2.issuer })
    expect(as2.of('/authorize')).toEqual([])
    expect(as2.of('/token')).toEqual([])
  })

  test('a Client ID Metadata Document URL is the client_id when the AS supports CIMD', async () => {
    await using p = await peers({ cimd: true })
    const url = 'https://mcpx.example/client.json'
    expect((await callThrough(p.provider({ clientMetadataUrl: url }), p.rs.endpoint, 'x')).status).toBe(200)
    expect(p.as.of('/register')).toEqual([])
    expect(p.as.of('/authorize')[0]?.params.client_id).toBe(url)
  })

  test('token endpoint auth follows what the AS supports (client_secret_post)', async () => {
    await using p = await peers({ authMethods: ['client_secret_post'] })
    expect((await callThrough(p.provider(), p.rs.endpoint, 'x')).status).toBe(200)
    expect(p.as.of('/token')[0]?.params).toMatchObject({ client_id: 'client-1', client_secret: 'secret-1' })
    expect(p.as.of('/token')[0]?.authorization).toBeUndefined()
  })

  test('when the PRM names a new authorization server, mcpx registers there and never shows it the old client', async () => {
    const registry: TokenRegistry = new Map()
    await using as1 = await startAuthorizationServer({ registry, clientPrefix: 'as1' })
    await using as2 = await startAuthorizationServer({ registry, clientPrefix: 'as2' })
    let current = as1.issuer
    await using rs = await startResourceServer({ registry, authorizationServers: () => [current] })
    const provider = createOAuthProvider({
      serverUrl: rs.endpoint,
      settings: testSettings(),
      authorizationHandler: createRedirectFollowingHandler(),
    })
    expect((await callThrough(provider, rs.endpoint, 'a')).status).toBe(200)
    expect(as1.of('/register').length).toBe(1)
    current = as2.issuer
    expect((await callThrough(provider, rs.endpoint, 'b')).status).toBe(200)
    expect(as2.of('/register').length).toBe(1)
    expect(as2.of('/authorize').map((r) => r.params.client_id)).toEqual(['as2-1'])
    expect(as2.of('/token').map((r) => r.params.client_id)).toEqual(['as2-1'])
    expect(JSON.stringify(as2.requests)).not.toContain('as1-')
    expect(await provider.issuer()).toBe(as2.issuer)
  })
})

describe('OAuth provider: tokens', () => {
  test('an expiring access token is refreshed with the refresh token and the same resource', async () => {
    await using p = await peers({ refresh: { expiresIn: 0 } })
    const provider = p.provider()
    expect((await callThrough(provider, p.rs.endpoint, 'x')).status).toBe(200)
    const first = p.as.of('/token').length
    const header = await provider.authorization()
    const refreshes = p.as.of('/token').slice(first)
    expect(refreshes.map((r) => r.params.grant_type)).toEqual(['refresh_token'])
    expect(refreshes[0]?.params.resource).toBe(p.rs.endpoint)
    expect((await callThrough(provider, p.rs.endpoint, 'x')).status).toBe(200)
    expect(header).toMatch(/^Bearer at-/)
  })

  test('client_credentials with private_key_jwt signs an assertion the AS verifies', async () => {
    const pair = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair
    const der = Buffer.from(await crypto.subtle.exportKey('pkcs8', pair.privateKey)).toString('base64')
    const pem = `-----BEGIN PRIVATE KEY-----\n${der.match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`
    await using p = await peers({
      authMethods: ['private_key_jwt'],
      grantTypes: ['client_credentials'],
      clientPublicKeys: { machine: pair.publicKey },
    })
    const provider = p.provider({
      grant: 'client_credentials',
      authorizationHandler: undefined,
      preRegistered: { clientId: 'machine', privateKeyPem: pem, signingAlgorithm: 'ES256' },
    })
    expect((await callThrough(provider, p.rs.endpoint, 'x')).status).toBe(200)
    expect(p.as.of('/authorize')).toEqual([])
    expect(p.as.of('/token')[0]?.params).toMatchObject({
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      resource: p.rs.endpoint,
    })
  })
})
