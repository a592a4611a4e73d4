/** lib/auth/jwt-bearer.ts: the RFC 7523 JWT bearer grant and ID-JAG exchange. */
import { describe, expect, test } from 'bun:test'
import { createIdJagAssertion, createOAuthProvider, staticAssertion } from '../../../lib/auth/index.ts'
import { testSettings } from '../../harness.ts'
import { type TokenRegistry, callThrough, startAuthorizationServer, startResourceServer } from './oauth-peers.ts'

describe('JWT bearer grant (RFC 7523)', () => {
  test('a workload identity assertion is presented as is, by a public pre-registered client, with the resource', async () => {
    const registry: TokenRegistry = new Map()
    await using as = await startAuthorizationServer({
      registry,
      registration: false,
      grantTypes: ['urn:ietf:params:oauth:grant-type:jwt-bearer'],
      preRegistered: { workload: undefined },
    })
    await using rs = await startResourceServer({ registry, authorizationServers: () => [as.issuer] })
    const provider = createOAuthProvider({
      serverUrl: rs.endpoint,
      settings: testSettings(),
      grant: { type: 'jwt-bearer', assertion: staticAssertion('workload.jwt.value') },
      preRegistered: { clientId: 'workload', authMethod: 'none' },
    })
    expect((await callThrough(provider, rs.endpoint, 'x')).status).toBe(200)
    expect(as.of('/token')[0]?.params).toMatchObject({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: 'workload.jwt.value',
      client_id: 'workload',
      resource: rs.endpoint,
    })
    expect(as.of('/authorize')).toEqual([])
  })

  test('an ID-JAG comes from the IdP by token exchange, addressed to the AS issuer and the resource', async () => {
    const seen: Record<string, string>[] = []
    await using idp = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      async fetch(req) {
        seen.push(Object.fromEntries(new URLSearchParams(await req.text())))
        return Response.json({
          access_token: 'id-jag.jwt',
          issued_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
          token_type: 'N_A',
        })
      },
    })
    const registry: TokenRegistry = new Map()
    await using as = await startAuthorizationServer({
      registry,
      registration: false,
      authMethods: ['client_secret_basic'],
      preRegistered: { app: 'app-secret' },
    })
    await using rs = await startResourceServer({ registry, authorizationServers: () => [as.issuer] })
    const settings = testSettings()
    const provider = createOAuthProvider({
      serverUrl: rs.endpoint,
      settings,
      grant: {
        type: 'jwt-bearer',
        assertion: createIdJagAssertion({
          settings,
          idpTokenEndpoint: `http://127.0.0.1:${idp.port}/token`,
          idpClientId: 'idp-app',
          idToken: 'user.id.token',
        }),
      },
      preRegistered: { clientId: 'app', clientSecret: 'app-secret' },
    })
    expect((await callThrough(provider, rs.endpoint, 'x')).status).toBe(200)
    expect(seen).toEqual([
      {
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
        subject_token: 'user.id.token',
        subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
        audience: as.issuer,
        client_id: 'idp-app',
        resource: rs.endpoint,
      },
    ])
    expect(as.of('/token')[0]?.params.assertion).toBe('id-jag.jwt')
    expect(as.of('/token')[0]?.authorization).toStartWith('Basic ')
  })
})
