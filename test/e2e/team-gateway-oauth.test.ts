/**
 * The team gateway: /mcp as an OAuth 2.1 resource server in front of a real authorization server
 * (oidc-provider on loopback, test/support/authorization-server.ts). An SDK 2.x host (alice) and an
 * SDK 1.x host (bob) each run the whole flow — 401 with resource_metadata, Protected Resource
 * Metadata, the AS's metadata, dynamic registration, PKCE, a token for this resource — then list
 * and call. Refused tokens (other audience, expired, missing scope) get the right status and
 * challenge; the two principals' policies give them different tools that they cannot cross; every
 * call is one audit line; the owner's local token still works on loopback.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttp,
  type OAuthClientProvider as ModernProvider,
} from '@modelcontextprotocol/client'
import type { OAuthClientProvider as LegacyProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { homeLayout, parseConfig } from '../../lib/config/index.ts'
import { Engine, createHttpHandler } from '../../lib/server/index.ts'
import { everythingServer } from '../fixtures/everything/server.ts'
import { type Daemon, readToken, startGatewayDaemon } from '../../lib/daemon/index.ts'
import { REPO_ROOT, tempDir, testSettings } from '../harness.ts'
import {
  type AuthorizationServer,
  MCP_SCOPE,
  SERVICE_CLIENT,
  SHORT_LIVED_CLIENT,
  startAuthorizationServer,
} from '../support/authorization-server.ts'

const dir = tempDir('mcpx-team')
const layout = homeLayout(join(dir.path, 'home'), join(dir.path, 'config.json'))
let as: AuthorizationServer
let daemon: Daemon
let mcpUrl: string
/** An HTTP upstream that notes the Authorization header of every request it gets. */
let web: ReturnType<typeof Bun.serve>
const upstreamAuthorization: (string | null)[] = []
/** Never served: the AS's redirect is read from its Location header (authorization-server.ts). */
const REDIRECT = 'http://127.0.0.1:9/callback'

beforeAll(async () => {
  as = await startAuthorizationServer()
  as.groups.set('alice', ['devs'])
  as.groups.set('bob', ['ops'])
  const upstreamHttp = createHttpHandler({ engine: new Engine(everythingServer, testSettings()), settings: testSettings() })
  web = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: (request) => {
      upstreamAuthorization.push(request.headers.get('authorization'))
      return upstreamHttp.fetch(request)
    },
  })
  const config = parseConfig(
    JSON.stringify({
      mcpServers: {
        up: { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/peers/gateway-upstream-fixture.ts')] },
        ev: { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/everything/main.ts'), '--stdio'] },
        web: { url: `http://127.0.0.1:${web.port}/mcp` },
      },
      access: {
        rules: [
          { name: 'alice-web', subjects: ['alice'], allow: ['web.test_simple_text'] },
          { name: 'devs', groups: ['devs'], allow: ['up'], deny: ['up.crash'] },
          { name: 'ops', groups: ['ops'], allow: ['ev.test_simple_*'] },
        ],
      },
    }),
    'team.json',
    {},
  )
  const settings = testSettings({ daemonIdleMs: 0, mcpAuthIssuer: as.issuer, mcpAuthScopes: MCP_SCOPE, mcpAuthClockToleranceMs: 0 })
  daemon = await startGatewayDaemon({ settings, config, layout, version: '0.0.0-test' })
  mcpUrl = `${daemon.info().tcp.url}/mcp`
})
afterAll(async () => {
  await daemon?.shutdown('test done')
  await as?.close()
  void web?.stop(true)
  dir[Symbol.dispose]()
})

/** The client side of the OAuth flow for both SDKs: everything in memory, the redirect captured. */
class HostAuth implements LegacyProvider, ModernProvider {
  authorizationUrl?: URL
  #client?: Record<string, unknown>
  #tokens?: Record<string, unknown>
  #verifier = ''
  get redirectUrl() {
    return REDIRECT
  }
  get clientMetadata() {
    return {
      client_name: 'team test host',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    }
  }
  clientInformation() {
    return this.#client as never
  }
  saveClientInformation(info: unknown) {
    this.#client = info as Record<string, unknown>
  }
  tokens() {
    return this.#tokens as never
  }
  saveTokens(tokens: unknown) {
    this.#tokens = tokens as Record<string, unknown>
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier
  }
  codeVerifier() {
    return this.#verifier
  }
  get accessToken(): string {
    return String(this.#tokens?.access_token)
  }
}

const alice = new HostAuth()
const bob = new HostAuth()
const names = (tools: { name: string }[]) => tools.map((t) => t.name).sort()
const textOf = (result: unknown) => ((result as { content?: { text?: string }[] }).content ?? []).map((c) => c.text).join('\n')

async function modernHost(auth: HostAuth, path = '?codemode=false'): Promise<ModernClient> {
  const client = new ModernClient(
    { name: 'modern-host', version: '2.0.0' },
    { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  )
  await client.connect(new ModernHttp(new URL(mcpUrl + path), { authProvider: auth }))
  return client
}
async function legacyHost(auth: HostAuth, path = '?codemode=false'): Promise<LegacyClient> {
  const client = new LegacyClient({ name: 'legacy-host', version: '1.0.0' }, { capabilities: {} })
  await client.connect(new LegacyHttp(new URL(mcpUrl + path), { authProvider: auth }))
  return client
}

function post(token: string | undefined, body: unknown = { jsonrpc: '2.0', id: 1, method: 'ping' }): Promise<Response> {
  return fetch(mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'ping',
      ...(token !== undefined && { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
  })
}

describe('discovery', () => {
  test('a request without a token gets 401 naming the resource metadata and the scope', async () => {
    const response = await post(undefined)
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer scope="${MCP_SCOPE}", resource_metadata="${daemon.info().tcp.url}/.well-known/oauth-protected-resource/mcp"`,
    )
  })

  test('the Protected Resource Metadata names this resource and its authorization server, at both well-known paths', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const response = await fetch(`${daemon.info().tcp.url}${path}`)
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({
        resource: mcpUrl,
        authorization_servers: [as.issuer],
        scopes_supported: [MCP_SCOPE],
        bearer_methods_supported: ['header'],
        resource_name: 'mcpx',
      })
    }
  })
})

describe('the full OAuth flow', () => {
  test('an SDK 2.x host (alice) discovers, registers, authorizes with PKCE and a resource, then lists and calls', async () => {
    const transport = new ModernHttp(new URL(`${mcpUrl}?codemode=false`), { authProvider: alice })
    const first = new ModernClient(
      { name: 'modern-host', version: '2.0.0' },
      { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    )
    await expect(first.connect(transport)).rejects.toThrow()
    const url = alice.authorizationUrl!
    expect(url.searchParams.get('code_challenge_method')).toBe('S256')
    expect(url.searchParams.get('resource')).toBe(mcpUrl)
    expect(url.searchParams.get('scope')).toBe(MCP_SCOPE)
    await transport.finishAuth(await as.authorize(url, 'alice'))
    const claims = JSON.parse(Buffer.from(alice.accessToken.split('.')[1]!, 'base64url').toString())
    expect(claims).toMatchObject({ sub: 'alice', aud: mcpUrl, iss: as.issuer, groups: ['devs'] })

    const client = await modernHost(alice)
    try {
      expect(names((await client.listTools()).tools)).toEqual([
        'up_add',
        'up_ask',
        'up_echo',
        'up_pid',
        'up_slow',
        'up_touch',
        'web_test_simple_text',
      ])
      expect(textOf(await client.callTool({ name: 'up_echo', arguments: { text: 'from alice' } }))).toBe('from alice')
      expect(textOf(await client.callTool({ name: 'web_test_simple_text', arguments: {} }))).toContain('simple text')
      // The spec forbids token passthrough: the HTTP upstream never sees alice's token (nor any).
      expect(upstreamAuthorization.length).toBeGreaterThan(0)
      expect(upstreamAuthorization.filter((header) => header !== null)).toEqual([])
    } finally {
      await client.close()
    }
  })

  test('an SDK 1.x host (bob) runs the same flow and sees his own tools', async () => {
    const transport = new LegacyHttp(new URL(`${mcpUrl}?codemode=false`), { authProvider: bob })
    const first = new LegacyClient({ name: 'legacy-host', version: '1.0.0' }, { capabilities: {} })
    await expect(first.connect(transport)).rejects.toThrow()
    const url = bob.authorizationUrl!
    expect(url.searchParams.get('resource')).toBe(mcpUrl)
    const redirect = await as.authorize(url, 'bob')
    await transport.finishAuth(redirect.get('code')!)

    const client = await legacyHost(bob)
    try {
      const tools = names((await client.listTools()).tools)
      expect(tools.length).toBeGreaterThan(0)
      expect(tools.every((name) => name.startsWith('ev_test_simple_'))).toBe(true)
      expect(textOf(await client.callTool({ name: 'ev_test_simple_text', arguments: {} }))).toContain('simple text')
    } finally {
      await client.close()
    }
  })
})

describe('refused tokens', () => {
  const challengeOf = (response: Response) => response.headers.get('www-authenticate') ?? ''

  test('a token for another audience is 401 invalid_token', async () => {
    const token = await as.clientCredentials(SERVICE_CLIENT, 'http://127.0.0.1:9/other-mcp', MCP_SCOPE)
    const response = await post(token)
    expect(response.status).toBe(401)
    expect(challengeOf(response)).toContain('error="invalid_token"')
    expect(challengeOf(response)).toContain(`error_description="the access token is not meant for this resource (${mcpUrl})"`)
    expect(challengeOf(response)).toContain('resource_metadata="')
  })

  test('an expired token is 401 invalid_token', async () => {
    const token = await as.clientCredentials(SHORT_LIVED_CLIENT, mcpUrl, MCP_SCOPE)
    const { exp } = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { exp: number }
    // Wait until the token's exp has passed (seconds resolution), not for a fixed time.
    while (Date.now() / 1000 <= exp) await Bun.sleep(100)
    const response = await post(token)
    expect(response.status).toBe(401)
    expect(challengeOf(response)).toContain('error="invalid_token", error_description="the access token has expired"')
  })

  test('a token without the needed scope is 403 insufficient_scope naming the scope', async () => {
    const token = await as.clientCredentials(SERVICE_CLIENT, mcpUrl, 'other:scope')
    const response = await post(token)
    expect(response.status).toBe(403)
    expect(challengeOf(response)).toBe(
      `Bearer error="insufficient_scope", error_description="the token lacks the scope ${MCP_SCOPE}", scope="${MCP_SCOPE}", resource_metadata="${daemon.info().tcp.url}/.well-known/oauth-protected-resource/mcp"`,
    )
  })

  test('a token that is not a token is 401 invalid_token', async () => {
    const response = await post('not-a-jwt')
    expect(response.status).toBe(401)
    expect(challengeOf(response)).toContain('error="invalid_token"')
  })
})

describe('policy per principal', () => {
  test("alice cannot call bob's tools: unknown on the raw surface, denied by name through mcpx_call", async () => {
    const client = await modernHost(alice)
    try {
      await expect(client.callTool({ name: 'ev_test_simple_text', arguments: {} })).rejects.toThrow(/ev_test_simple_text/)
    } finally {
      await client.close()
    }
    const codeMode = await modernHost(alice, '')
    try {
      await expect(codeMode.callTool({ name: 'mcpx_call', arguments: { tool: 'ev.test_simple_text', arguments: {} } })).rejects.toThrow(
        'access denied: alice may not use ev.test_simple_text: no access rule allows it (default deny)',
      )
      await expect(codeMode.callTool({ name: 'mcpx_call', arguments: { tool: 'up.crash', arguments: {} } })).rejects.toThrow(
        'access denied: alice may not use up.crash: rule "devs" denies "up.crash"',
      )
    } finally {
      await codeMode.close()
    }
  })

  test("bob cannot call alice's tools", async () => {
    const client = await legacyHost(bob, '')
    try {
      const result = client.callTool({ name: 'mcpx_call', arguments: { tool: 'up.echo', arguments: { text: 'x' } } })
      await expect(result).rejects.toThrow('access denied: bob may not use up.echo: no access rule allows it (default deny)')
    } finally {
      await client.close()
    }
  })

  test('search, types, catalog and code mode show each principal only what it may call', async () => {
    const client = await modernHost(alice, '')
    try {
      const listed = names((await client.listTools()).tools)
      // The daemon's own mcpx_<op> tools describe the whole daemon: not offered to OAuth principals.
      expect(listed).toEqual(['mcpx_call', 'mcpx_catalog', 'mcpx_exec', 'mcpx_search', 'mcpx_types'])
      const search = (await client.callTool({ name: 'mcpx_search', arguments: { query: 'simple text echo', limit: 50 } }))
        .structuredContent as { hits: { qualifiedName: string }[] }
      expect(search.hits.map((h) => h.qualifiedName)).toContain('up.echo')
      const allowed = (name: string) => (name.startsWith('up.') && name !== 'up.crash') || name === 'web.test_simple_text'
      expect(search.hits.map((h) => h.qualifiedName).filter((name) => !allowed(name))).toEqual([])
      const catalog = (await client.callTool({ name: 'mcpx_catalog', arguments: {} })).structuredContent as {
        servers: { name: string; tools: number }[]
      }
      expect(catalog.servers.map((s) => [s.name, s.tools])).toEqual([
        ['up', 6],
        ['web', 1],
      ])
      const types = textOf(
        await client.callTool({ name: 'mcpx_types', arguments: { tools: ['up.echo', 'up.crash', 'ev.test_simple_text'] } }),
      )
      expect(types).toContain('echo')
      expect(types).not.toContain('crash')
      expect(types).not.toContain('test_simple_text')
      const exec = (
        await client.callTool({
          name: 'mcpx_exec',
          arguments: {
            code:
              'return { ev: typeof ev, echo: await up.echo({ text: "in exec" }), listed: "crash" in up, ' +
              'called: await up.crash({}).then(() => "ran", (e) => e.message) }',
          },
        })
      ).structuredContent as { result: Record<string, unknown> }
      // Not listed; and a name not listed is still a call, which the policy refuses.
      expect(exec.result).toMatchObject({ ev: 'undefined', echo: 'in exec', listed: false })
      expect(exec.result.called).toStartWith('access denied')
    } finally {
      await client.close()
    }
  })

  test("prompts and resources follow the same policy: bob sees ev's allowed prompts and its resources, alice none of ev's", async () => {
    const ofBob = await legacyHost(bob, '')
    try {
      const prompts = (await ofBob.listPrompts()).prompts.map((p) => p.name)
      expect(prompts).toContain('ev_test_simple_prompt')
      expect(prompts.every((name) => name.startsWith('ev_test_simple_'))).toBe(true)
      expect((await ofBob.listResources()).resources.some((r) => r.uri.startsWith('mcpx://ev/'))).toBe(true)
    } finally {
      await ofBob.close()
    }
    const ofAlice = await modernHost(alice, '')
    try {
      expect((await ofAlice.listPrompts()).prompts.filter((p) => p.name.startsWith('ev_'))).toEqual([])
      expect((await ofAlice.listResources()).resources.filter((r) => r.uri.startsWith('mcpx://ev/'))).toEqual([])
    } finally {
      await ofAlice.close()
    }
  })

  test('a principal cannot open the pass-through surface of a server its policy does not reach', async () => {
    const response = await fetch(`${mcpUrl}?passthrough=ev`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${alice.accessToken}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    })
    expect(response.status).toBe(403)
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe('access denied: alice may not use server ev')
  })

  test("a legacy session belongs to its principal: another principal's token cannot use its id", async () => {
    const legacyPost = (token: string, body: unknown, session?: string) =>
      fetch(`${mcpUrl}?codemode=false`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
          ...(session && { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }),
        },
        body: JSON.stringify(body),
      })
    const init = await legacyPost(bob.accessToken, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    })
    const session = init.headers.get('mcp-session-id')!
    expect(session).toBeTruthy()
    await init.body?.cancel()
    const mine = await legacyPost(bob.accessToken, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, session)
    expect(mine.status).toBe(200)
    await mine.body?.cancel()
    const stolen = await legacyPost(alice.accessToken, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, session)
    expect(stolen.status).toBe(404)
    await stolen.body?.cancel()
  })

  test("the owner's local token still works on the loopback listener and sees everything", async () => {
    const client = new LegacyClient({ name: 'owner', version: '1.0.0' })
    await client.connect(
      new LegacyHttp(new URL(`${mcpUrl}?codemode=false`), {
        requestInit: { headers: { Authorization: `Bearer ${readToken(layout.token)}` } },
      }),
    )
    try {
      const tools = names((await client.listTools()).tools)
      expect(tools).toContain('up_crash')
      expect(tools).toContain('ev_test_simple_text')
    } finally {
      await client.close()
    }
  })

  test('the audit log holds one line per call, with principal, server, tool, outcome and duration', () => {
    const lines = readFileSync(join(layout.logDir, 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    const seen = lines.map((l) => [String(l.principal).split('#')[1], l.server, l.tool, l.outcome])
    expect(seen).toEqual([
      ['alice', 'up', 'echo', 'ok'],
      ['alice', 'web', 'test_simple_text', 'ok'],
      ['bob', 'ev', 'test_simple_text', 'ok'],
      ['alice', 'ev', 'test_simple_text', 'denied'],
      ['alice', 'up', 'crash', 'denied'],
      ['bob', 'up', 'echo', 'denied'],
      ['alice', 'up', 'echo', 'ok'],
      // mcpx_exec's up.crash({}), a name its namespace does not list: a call, refused and audited.
      ['alice', 'up', 'crash', 'denied'],
    ])
    for (const line of lines) {
      expect(typeof line.time).toBe('string')
      expect(typeof line.durationMs).toBe('number')
      expect(line.arguments).toBeUndefined()
    }
  })
})
