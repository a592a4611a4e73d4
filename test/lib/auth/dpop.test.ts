/** DPoP (RFC 9449) against a proof-checking AS and resource server, both demanding nonces. */
import { describe, expect, test } from 'bun:test'
import { createOAuthProvider, createRedirectFollowingHandler } from '../../../lib/auth/index.ts'
import { testSettings } from '../../harness.ts'
import { type TokenRegistry, callThrough, startAuthorizationServer, startResourceServer } from './oauth-peers.ts'

describe('DPoP-bound tokens', () => {
  test('a DPoP-only server gets a DPoP token (AS nonce honoured) presented with a fresh proof per request (RS nonce honoured)', async () => {
    const registry: TokenRegistry = new Map()
    await using as = await startAuthorizationServer({ registry, dpop: { nonce: 'as-nonce' } })
    await using rs = await startResourceServer({ registry, authorizationServers: () => [as.issuer], dpop: { nonce: 'rs-nonce' } })
    const provider = createOAuthProvider({
      serverUrl: rs.endpoint,
      settings: testSettings(),
      authorizationHandler: createRedirectFollowingHandler(),
    })
    expect(await callThrough(provider, rs.endpoint, 'a')).toEqual({ status: 200, body: { ok: true, op: 'a', scheme: 'DPoP' } })
    expect(await callThrough(provider, rs.endpoint, 'b')).toEqual({ status: 200, body: { ok: true, op: 'b', scheme: 'DPoP' } })
    // The token request was retried once with the AS's nonce.
    expect(as.of('/token').length).toBe(2)
    expect(await provider.authorization()).toMatch(/^DPoP at-/)
    const one = await provider.requestHeaders({ url: rs.endpoint, method: 'POST' })
    const two = await provider.requestHeaders({ url: rs.endpoint, method: 'POST' })
    expect(one.DPoP).not.toBe(two.DPoP)
  })

  test('a Bearer server never triggers DPoP, even when the AS offers it; dpop:false keeps Bearer', async () => {
    const registry: TokenRegistry = new Map()
    await using as = await startAuthorizationServer({ registry, dpop: {} })
    await using rs = await startResourceServer({ registry, authorizationServers: () => [as.issuer] })
    const provider = createOAuthProvider({
      serverUrl: rs.endpoint,
      settings: testSettings(),
      authorizationHandler: createRedirectFollowingHandler(),
    })
    expect((await callThrough(provider, rs.endpoint, 'x')).status).toBe(200)
    expect(await provider.authorization()).toMatch(/^Bearer /)
    expect(await provider.requestHeaders({ url: rs.endpoint, method: 'POST' })).toEqual({})
  })
})
