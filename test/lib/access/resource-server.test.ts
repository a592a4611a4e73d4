/**
 * Token verification of /mcp's resource server (lib/access/resource-server.ts) against real
 * peers: a small authorization server publishing metadata and a JWKS it rotates (RFC 8414, RFC
 * 7517), and oidc-provider for opaque tokens checked by introspection (RFC 7662).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { SignJWT, exportJWK, generateKeyPair } from 'jose'
import { createResourceServer } from '../../../lib/access/index.ts'
import { McpxError } from '../../../lib/errors/index.ts'
import { tempDir, testSettings } from '../../harness.ts'
import {
  type AuthorizationServer,
  INTROSPECTING_CLIENT,
  MCP_SCOPE,
  OPAQUE_CLIENT,
  SERVICE_CLIENT,
  startAuthorizationServer,
} from '../../support/authorization-server.ts'

const RESOURCE = 'https://mcp.example.test/mcp'
const request = (token?: string) => new Request(RESOURCE, { method: 'POST', headers: token ? { authorization: `Bearer ${token}` } : {} })

describe('JWT access tokens and a rotating JWKS', () => {
  type Key = { kid: string; privateKey: CryptoKey; jwk: Record<string, unknown> }
  let published: Key[] = []
  let jwksFetches = 0
  let as: ReturnType<typeof Bun.serve>
  let issuer: string
  const newKey = async (kid: string): Promise<Key> => {
    const { privateKey, publicKey } = await generateKeyPair('ES256')
    return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } }
  }
  const sign = (
    key: Key,
    claims: Record<string, unknown> = {},
    options: { iss?: string; aud?: string; exp?: number; nbf?: number } = {},
  ) => {
    const jwt = new SignJWT({ scope: MCP_SCOPE, ...claims })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' })
      .setIssuer(options.iss ?? issuer)
      .setAudience(options.aud ?? RESOURCE)
      .setSubject('carol')
      .setIssuedAt()
      .setExpirationTime(options.exp ?? Math.floor(Date.now() / 1000) + 300)
    if (options.nbf !== undefined) jwt.setNotBefore(options.nbf)
    return jwt.sign(key.privateKey)
  }

  beforeAll(() => {
    as = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: (req) => {
        const path = new URL(req.url).pathname
        if (path === '/.well-known/oauth-authorization-server') return Response.json({ issuer, jwks_uri: `${issuer}/jwks` })
        if (path === '/jwks') {
          jwksFetches++
          return Response.json({ keys: published.map((k) => k.jwk) })
        }
        return new Response('not found', { status: 404 })
      },
    })
    issuer = `http://127.0.0.1:${as.port}`
  })
  afterAll(() => void as.stop(true))

  const server = () =>
    createResourceServer({
      settings: testSettings({
        mcpAuthIssuer: issuer,
        mcpAuthResource: RESOURCE,
        mcpAuthScopes: MCP_SCOPE,
        mcpAuthJwksCooldownMs: 0,
        mcpAuthClockToleranceMs: 0,
      }),
      defaultResource: () => RESOURCE,
    })!

  test('a rotated key is fetched when a token names it; a retired key no longer verifies', async () => {
    const first = await newKey('k1')
    published = [first]
    const rs = server()
    expect(await rs.authenticate(request(await sign(first)))).toMatchObject({
      ok: true,
      principal: { subject: 'carol', scopes: [MCP_SCOPE] },
    })
    const fetchesBefore = jwksFetches
    // Cached: a second token signed with the same key needs no fetch.
    expect((await rs.authenticate(request(await sign(first)))).ok).toBe(true)
    expect(jwksFetches).toBe(fetchesBefore)

    const second = await newKey('k2')
    published = [second]
    expect((await rs.authenticate(request(await sign(second)))).ok).toBe(true)
    expect(jwksFetches).toBe(fetchesBefore + 1)
    const retired = await rs.authenticate(request(await sign(first)))
    expect(retired).toMatchObject({
      ok: false,
      status: 401,
      message: 'the access token is signed with a key the authorization server does not publish',
    })
  })

  test('iss, aud, exp and nbf are each checked', async () => {
    const key = await newKey('k3')
    published = [key]
    const rs = server()
    const now = Math.floor(Date.now() / 1000)
    const cases: [Promise<string>, string][] = [
      [sign(key, {}, { iss: 'https://other-issuer.example' }), 'the access token was issued by another authorization server'],
      [sign(key, {}, { aud: 'https://other.example/mcp' }), `the access token is not meant for this resource (${RESOURCE})`],
      [sign(key, {}, { exp: now - 10 }), 'the access token has expired'],
      [sign(key, {}, { nbf: now + 600 }), 'the access token is not valid yet'],
    ]
    for (const [token, message] of cases) {
      const outcome = await rs.authenticate(request(await token))
      expect(outcome).toMatchObject({ ok: false, status: 401, message })
      expect(outcome.ok === false && outcome.challenge).toContain('error="invalid_token"')
    }
  })

  test('an unreachable authorization server is 503, not a verdict on the token', async () => {
    const rs = createResourceServer({
      settings: testSettings({ mcpAuthIssuer: 'http://127.0.0.1:9', mcpAuthResource: RESOURCE }),
      defaultResource: () => RESOURCE,
    })!
    const outcome = await rs.authenticate(request('a.b.c'))
    expect(outcome).toMatchObject({ ok: false, status: 503 })
  })

  test('bad settings are CONFIG errors naming the setting', () => {
    expect(() => createResourceServer({ settings: testSettings({ mcpAuthIssuer: 'not a url' }), defaultResource: () => RESOURCE })).toThrow(
      McpxError,
    )
    expect(() =>
      createResourceServer({
        settings: testSettings({ mcpAuthIssuer: issuer, mcpAuthResource: 'https://x.example/mcp#frag' }),
        defaultResource: () => RESOURCE,
      }),
    ).toThrow('setting mcpAuthResource must not contain a fragment (RFC 8707 section 2)')
    expect(createResourceServer({ settings: testSettings(), defaultResource: () => RESOURCE })).toBeNull()
  })
})

describe('opaque access tokens by introspection (oidc-provider)', () => {
  let as: AuthorizationServer
  const dir = tempDir('mcpx-introspect')
  beforeAll(async () => {
    as = await startAuthorizationServer()
  })
  afterAll(async () => {
    await as.close()
    dir[Symbol.dispose]()
  })
  const server = () => {
    const secretFile = join(dir.path, 'secret')
    writeFileSync(secretFile, `${INTROSPECTING_CLIENT.secret}\n`, { mode: 0o600 })
    return createResourceServer({
      settings: testSettings({
        mcpAuthIssuer: as.issuer,
        mcpAuthResource: RESOURCE,
        mcpAuthScopes: MCP_SCOPE,
        mcpAuthIntrospectionUrl: `${as.issuer}/token/introspection`,
        mcpAuthIntrospectionClientId: INTROSPECTING_CLIENT.id,
        mcpAuthIntrospectionSecretFile: secretFile,
      }),
      defaultResource: () => RESOURCE,
    })!
  }

  test('an active opaque token for this resource is accepted with its scopes', async () => {
    const token = await as.clientCredentials(OPAQUE_CLIENT, RESOURCE, MCP_SCOPE)
    expect(token.split('.').length).not.toBe(3)
    expect(await server().authenticate(request(token))).toMatchObject({
      ok: true,
      principal: { subject: OPAQUE_CLIENT.id, scopes: [MCP_SCOPE] },
    })
  })

  test('an opaque token for another resource, or one the AS does not know, is 401', async () => {
    const other = await as.clientCredentials(OPAQUE_CLIENT, 'https://other.example/mcp', MCP_SCOPE)
    expect(await server().authenticate(request(other))).toMatchObject({
      ok: false,
      status: 401,
      message: `the token's audience is not ${RESOURCE}`,
    })
    expect(await server().authenticate(request('unknown-opaque-token'))).toMatchObject({
      ok: false,
      status: 401,
      message: 'the authorization server reports the token inactive',
    })
  })

  test('a JWT from the same AS is still verified locally', async () => {
    const token = await as.clientCredentials(SERVICE_CLIENT, RESOURCE, MCP_SCOPE)
    expect(await server().authenticate(request(token))).toMatchObject({ ok: true, principal: { subject: SERVICE_CLIENT.id } })
  })
})
