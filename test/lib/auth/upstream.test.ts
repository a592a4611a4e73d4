/** lib/auth/upstream.ts: createUpstreamAuth builds the AuthProvider a configured upstream uses. */
import { describe, expect, test } from 'bun:test'
import { statSync } from 'node:fs'
import * as v from 'valibot'
import { OAuthUpstreamConfigSchema, createUpstreamAuth, credentialFilePath, oauthStoreDir } from '../../../lib/auth/index.ts'
import { McpxError } from '../../../lib/errors/index.ts'
import { tempDir, testSettings } from '../../harness.ts'
import { type TokenRegistry, callThrough, startAuthorizationServer, startResourceServer } from './oauth-peers.ts'

describe('createUpstreamAuth', () => {
  test('non-interactive: a needed login fails AUTH; after an interactive login the daemon-style provider uses the stored token', async () => {
    using home = tempDir('mcpx-home')
    const registry: TokenRegistry = new Map()
    await using as = await startAuthorizationServer({ registry })
    await using rs = await startResourceServer({ registry, authorizationServers: () => [as.issuer] })
    const settings = testSettings()

    let refused: unknown
    try {
      await callThrough(createUpstreamAuth({ serverUrl: rs.endpoint, settings, home: home.path }), rs.endpoint, 'x')
    } catch (error) {
      refused = error
    }
    expect(refused).toBeInstanceOf(McpxError)
    expect((refused as McpxError).code).toBe('AUTH')

    const cli = createUpstreamAuth({
      serverUrl: rs.endpoint,
      settings,
      home: home.path,
      interactive: { open: async (url) => void (await fetch(url)) },
    })
    await cli.login()
    expect(statSync(credentialFilePath(oauthStoreDir(home.path), rs.endpoint)).mode & 0o777).toBe(0o600)

    const daemon = createUpstreamAuth({ serverUrl: rs.endpoint, settings, home: home.path })
    expect((await callThrough(daemon, rs.endpoint, 'y')).status).toBe(200)
    expect(as.of('/authorize').length).toBe(1)
  })

  test('the config block supplies pre-registered credentials and scope; unknown keys are refused', async () => {
    using home = tempDir('mcpx-home')
    const registry: TokenRegistry = new Map()
    await using as = await startAuthorizationServer({
      registry,
      registration: false,
      authMethods: ['client_secret_basic'],
      preRegistered: { mine: 'pw' },
    })
    await using rs = await startResourceServer({ registry, authorizationServers: () => [as.issuer] })
    const config = v.parse(OAuthUpstreamConfigSchema, { clientId: 'mine', clientSecret: 'pw', scope: 'extra' })
    const provider = createUpstreamAuth({
      serverUrl: rs.endpoint,
      settings: testSettings(),
      home: home.path,
      config,
      interactive: { open: async (url) => void (await fetch(url)) },
    })
    expect((await callThrough(provider, rs.endpoint, 'x')).status).toBe(200)
    expect(as.of('/authorize')[0]?.params).toMatchObject({ client_id: 'mine', scope: 'extra' })
    expect(v.safeParse(OAuthUpstreamConfigSchema, { clientID: 'typo' }).success).toBe(false)
  })
})
