/** lib/auth/credential-store.ts: the file credential store (a 0600 file in a 0700 directory; a corrupt file reads as none). */
import { describe, expect, test } from 'bun:test'
import { statSync } from 'node:fs'
import {
  createFileCredentialStore,
  createOAuthProvider,
  createRedirectFollowingHandler,
  credentialFilePath,
} from '../../../lib/auth/index.ts'
import { tempDir, testSettings } from '../../harness.ts'
import { type TokenRegistry, callThrough, startAuthorizationServer, startResourceServer } from './oauth-peers.ts'

describe('file credential store', () => {
  test('tokens land in a 0600 file in a 0700 directory and a later provider reuses them without the AS', async () => {
    using home = tempDir('mcpx-auth')
    const dir = `${home.path}/oauth`
    const registry: TokenRegistry = new Map()
    await using as = await startAuthorizationServer({ registry })
    await using rs = await startResourceServer({ registry, authorizationServers: () => [as.issuer] })
    const make = () =>
      createOAuthProvider({
        serverUrl: rs.endpoint,
        settings: testSettings(),
        store: createFileCredentialStore(dir),
        authorizationHandler: createRedirectFollowingHandler(),
      })
    expect((await callThrough(make(), rs.endpoint, 'x')).status).toBe(200)
    const file = credentialFilePath(dir, rs.endpoint)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    const record = JSON.parse(await Bun.file(file).text())
    expect(record).toMatchObject({ serverUrl: rs.endpoint, issuer: as.issuer, resource: rs.endpoint })
    expect(record.issuers[as.issuer].client.clientId).toBe('client-1')

    const before = as.requests.length
    const second = make()
    expect(await second.authorization()).toBe(`Bearer ${record.issuers[as.issuer].tokens.accessToken}`)
    expect((await callThrough(second, rs.endpoint, 'y')).status).toBe(200)
    expect(as.requests.length).toBe(before)

    await second.logout()
    expect(await Bun.file(file).exists()).toBe(false)
  })

  test('a missing or corrupt file reads as no credentials', async () => {
    using home = tempDir('mcpx-auth')
    const store = createFileCredentialStore(home.path)
    expect(await store.load('https://a.example/mcp')).toBeUndefined()
    await Bun.write(credentialFilePath(home.path, 'https://a.example/mcp'), '{not json')
    expect(await store.load('https://a.example/mcp')).toBeUndefined()
  })
})
