/**
 * The daemon pool's connect options: stdio servers inherit the given parent environment, HTTP
 * servers get a non-interactive OAuth provider from the mcpx home, whose failures name the server
 * and `mcpx auth login <server>` (real AS and protected resource from the auth room's peers).
 */
import { describe, expect, test } from 'bun:test'
import type { ServerConfig } from '../../../lib/config/index.ts'
import { McpxError } from '../../../lib/errors/index.ts'
import { upstreamConnectOptions } from '../../../lib/daemon/upstream-auth.ts'
import { callThrough, startAuthorizationServer, startResourceServer, type TokenRegistry } from '../auth/oauth-peers.ts'
import { tempDir, testSettings } from '../../harness.ts'

const settings = testSettings()
const http = (name: string, url: string, extra: Partial<Extract<ServerConfig['target'], { kind: 'http' }>> = {}): ServerConfig => ({
  name,
  disabled: false,
  codemode: true,
  target: { kind: 'http', url, headers: {}, transport: 'auto', ...extra },
})

describe('upstreamConnectOptions', () => {
  test('stdio servers get the parent environment and no auth; none when none was given', () => {
    using home = tempDir('mcpx-upstream-auth')
    const stdio: ServerConfig = { name: 'fs', disabled: false, codemode: true, target: { kind: 'stdio', command: 'x', args: [], env: {} } }
    expect(upstreamConnectOptions({ settings, home: home.path, parentEnv: { PATH: '/bin' } })(stdio)).toEqual({
      parentEnv: { PATH: '/bin' },
    })
    expect(upstreamConnectOptions({ settings, home: home.path })(stdio)).toEqual({})
  })

  test('a configured static Authorization header is left alone; an oauth block still gets a provider', async () => {
    using home = tempDir('mcpx-upstream-auth')
    const options = upstreamConnectOptions({ settings, home: home.path })
    expect(options(http('keyed', 'https://example.com/mcp', { headers: { authorization: 'Bearer static' } }))).toEqual({})
    expect(
      (await options(http('both', 'https://example.com/mcp', { headers: { Authorization: 'x' }, oauth: { clientId: 'c' } }))).auth,
    ).toBeDefined()
    expect((await options(http('plain', 'https://example.com/mcp'))).auth).toBeDefined()
  })

  test('a 401 without stored credentials fails AUTH naming the server and the login command', async () => {
    using home = tempDir('mcpx-upstream-auth')
    const registry: TokenRegistry = new Map()
    await using as = await startAuthorizationServer({ registry })
    await using resource = await startResourceServer({ registry, authorizationServers: () => [as.issuer] })
    const { auth } = await upstreamConnectOptions({ settings, home: home.path })(http('secure', resource.endpoint))
    const error = (await callThrough(auth!, resource.endpoint, 'list').catch((e: unknown) => e)) as McpxError
    expect(error).toBeInstanceOf(McpxError)
    expect(error.code).toBe('AUTH')
    expect(error.message).toBe('server "secure" needs an OAuth login: run `mcpx auth login secure`')
    expect(error.data).toMatchObject({ server: 'secure', httpStatus: 401, command: 'mcpx auth login secure', serverUrl: resource.endpoint })
    // Nothing was registered or granted: a daemon never starts a login.
    expect(as.of('/token')).toEqual([])
  })

  test('other authorization failures are AUTH too, with the cause and the login hint', async () => {
    using home = tempDir('mcpx-upstream-auth')
    const registry: TokenRegistry = new Map()
    // The PRM names an authorization server that is not there.
    await using resource = await startResourceServer({ registry, authorizationServers: () => ['http://127.0.0.1:9/nowhere'] })
    const { auth } = await upstreamConnectOptions({ settings, home: home.path })(http('secure', resource.endpoint))
    const error = (await callThrough(auth!, resource.endpoint, 'list').catch((e: unknown) => e)) as McpxError
    expect(error.code).toBe('AUTH')
    expect(error.message).toStartWith('server "secure" refused access (HTTP 401) and re-authorization failed: ')
    expect(error.message).toEndWith('; try `mcpx auth login secure`')
    expect(error.cause).toBeInstanceOf(McpxError)
  })
})
