/**
 * `mcpx auth` end to end against a real OAuth 2.1 authorization server and a protected MCP server
 * (lib/server behind a Bearer check, both on Bun.serve port 0): before login the daemon's call
 * fails AUTH naming `mcpx auth login <server>`; login is driven without a browser by fetching the
 * printed URL (the AS redirects straight to mcpx's loopback listener); then `mcpx call` goes through
 * the daemon with the stored token; status shows issuer and expiry but no token; logout forgets it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Engine, createHttpHandler, defineServer, defineTool } from '../../lib/server/index.ts'
import { type AuthorizationServer, type TokenRegistry, startAuthorizationServer } from '../lib/auth/oauth-peers.ts'
import { mcpxCommand, runMcpx, tempDir, testSettings, errorJson } from '../harness.ts'

/** An MCP server at /mcp that answers only Bearer tokens the AS issued for it (RFC 9728 PRM published). */
function startProtectedMcp(registry: TokenRegistry, issuer: () => string) {
  const settings = testSettings()
  const engine = new Engine(
    defineServer({
      info: { name: 'protected', version: '1.0.0' },
      tools: [
        defineTool({
          name: 'whoami',
          description: 'Say who answered',
          handler: () => ({ content: [{ type: 'text', text: 'protected hello' }] }),
        }),
      ],
    }),
    settings,
  )
  const mcp = createHttpHandler({ engine, settings, origin: { checkHost: false, allowedOrigins: [] } })
  let unauthorized = 0
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    idleTimeout: 0,
    fetch(request) {
      const url = new URL(request.url)
      const endpoint = `${url.origin}/mcp`
      if (url.pathname === '/.well-known/oauth-protected-resource/mcp')
        return Response.json({ resource: endpoint, authorization_servers: [issuer()] })
      if (url.pathname !== '/mcp') return new Response('not found', { status: 404 })
      const header = request.headers.get('authorization')
      const token = header?.startsWith('Bearer ') ? registry.get(header.slice(7)) : undefined
      if (!token || token.issuer !== issuer() || token.resource !== endpoint) {
        unauthorized++
        const prm = `${url.origin}/.well-known/oauth-protected-resource/mcp`
        return new Response(null, {
          status: 401,
          headers: { 'www-authenticate': `Bearer error="invalid_token", resource_metadata="${prm}"` },
        })
      }
      return mcp.fetch(request)
    },
  })
  return {
    endpoint: `http://127.0.0.1:${server.port}/mcp`,
    unauthorized: () => unauthorized,
    async [Symbol.asyncDispose]() {
      mcp.close()
      await server.stop(true)
    },
  }
}

const dir = tempDir('mcpx-auth')
const config = join(dir.path, 'config.json')
const home = join(dir.path, 'home')
// No failure hold: the call right after login must connect again instead of replaying the AUTH error.
const env = { MCPX_HOME: home, MCPX_CONNECT_FAILURE_HOLD_MS: '0' }
const mcpx = (...args: string[]) => runMcpx([...args, '--config', config], { env })
const registry: TokenRegistry = new Map()
let as: AuthorizationServer
let resource: Awaited<ReturnType<typeof startProtectedMcp>>

beforeAll(async () => {
  as = await startAuthorizationServer({ registry, refresh: { expiresIn: 3600 } })
  resource = startProtectedMcp(registry, () => as.issuer)
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { secure: { url: resource.endpoint }, local: { command: process.execPath, args: ['--version'] } } }),
  )
})
afterAll(async () => {
  await runMcpx(['daemon', 'stop', '--config', config], { env })
  await resource[Symbol.asyncDispose]()
  await as[Symbol.asyncDispose]()
  dir[Symbol.dispose]()
})

/** Run `mcpx auth login`, act as the browser on the URL it prints, and collect its outcome. */
async function loginByFollowingTheUrl(server: string) {
  await using proc = Bun.spawn([...mcpxCommand(), 'auth', 'login', server, '--config', config], {
    env: { ...process.env, ...env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const reader = proc.stderr.getReader()
  let stderr = ''
  let authorizationUrl: string | undefined
  while (authorizationUrl === undefined) {
    const chunk = await reader.read()
    if (chunk.done) break
    stderr += new TextDecoder().decode(chunk.value)
    authorizationUrl = stderr.split('\n').find((line, i, lines) => line.startsWith('http') && i < lines.length - 1)
  }
  expect(authorizationUrl).toBeDefined()
  // The "browser": the AS redirects at once to mcpx's loopback listener, which ends the login.
  const landing = await fetch(authorizationUrl!, { redirect: 'follow' })
  const landingText = await landing.text()
  const restOfStderr = (async () => {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) stderr += new TextDecoder().decode(chunk.value)
  })()
  const [stdout, , exitCode] = await Promise.all([new Response(proc.stdout).text(), restOfStderr, proc.exited])
  return {
    authorizationUrl: new URL(authorizationUrl!),
    landing: { status: landing.status, url: landing.url, text: landingText },
    stdout,
    stderr,
    exitCode,
  }
}

describe('mcpx auth', () => {
  test('before login: status says so, and a call through the daemon fails AUTH naming the login command', async () => {
    const status = await mcpx('auth', 'status', 'secure', '--json')
    expect(status.exitCode).toBe(0)
    expect(JSON.parse(status.stdout)).toEqual({ server: 'secure', url: resource.endpoint, loggedIn: false })

    const call = await mcpx('call', 'secure.whoami')
    expect(call.exitCode).toBe(4)
    expect(call.stdout).toBe('')
    const error = errorJson(call.stderr).error
    expect(error.code).toBe('AUTH')
    expect(error.message).toBe('server "secure" needs an OAuth login: run `mcpx auth login secure`')
    expect(error.data).toMatchObject({ server: 'secure', httpStatus: 401, command: 'mcpx auth login secure' })
    expect(resource.unauthorized()).toBeGreaterThan(0)
  })

  test('login through the printed URL, then `mcpx call` succeeds through the daemon', async () => {
    const login = await loginByFollowingTheUrl('secure')
    expect(login.exitCode).toBe(0)
    expect(login.authorizationUrl.origin).toBe(as.origin)
    expect(login.authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256')
    expect(login.authorizationUrl.searchParams.get('resource')).toBe(resource.endpoint)
    expect(new URL(login.landing.url).hostname).toBe('127.0.0.1')
    expect(login.landing.status).toBe(200)
    expect(login.stdout).toContain(`logged in to "secure" at ${as.issuer}`)
    expect(as.of('/token').map((r) => r.params.grant_type)).toEqual(['authorization_code'])

    // Stored 0600 under the mcpx home, where the daemon looks.
    const files = readdirSync(join(home, 'oauth'))
    expect(files).toHaveLength(1)
    expect(statSync(join(home, 'oauth', files[0]!)).mode & 0o777).toBe(0o600)

    expect(await mcpx('call', 'secure.whoami')).toEqual({ stdout: 'protected hello\n', stderr: '', exitCode: 0 })
  })

  test('status names issuer and expiry and never prints a token', async () => {
    const issued = [...registry.keys()]
    const human = await mcpx('auth', 'status', 'secure')
    expect(human.exitCode).toBe(0)
    expect(human.stdout).toMatch(
      new RegExp(`^secure: logged in at ${as.issuer}; the access token expires \\d{4}-\\d\\d-\\d\\dT.*, refreshable\\n$`),
    )
    const json = await mcpx('auth', 'status', '--json')
    const [status] = JSON.parse(json.stdout)
    expect(status).toMatchObject({
      server: 'secure',
      loggedIn: true,
      issuer: as.issuer,
      tokenType: 'Bearer',
      expired: false,
      refreshable: true,
    })
    expect(Date.parse(status.expiresAt)).toBeGreaterThan(Date.now())
    for (const output of [human.stdout, json.stdout]) {
      for (const token of issued) expect(output).not.toContain(token)
      expect(output).not.toContain('rt-')
    }
  })

  test('usage errors: unknown server, stdio server', async () => {
    const unknown = await mcpx('auth', 'login', 'nope')
    expect(unknown.exitCode).toBe(2)
    expect(errorJson(unknown.stderr).error).toMatchObject({
      code: 'NOT_FOUND',
      message: 'no server "nope" in the config (HTTP servers: secure)',
    })
    const stdio = await mcpx('auth', 'status', 'local')
    expect(stdio.exitCode).toBe(2)
    expect(errorJson(stdio.stderr).error.code).toBe('USAGE')
  })

  test('logout removes the stored credentials', async () => {
    const files = readdirSync(join(home, 'oauth'))
    const logout = await mcpx('auth', 'logout', 'secure')
    expect(logout).toEqual({ stdout: 'removed the stored credentials of "secure"\n', stderr: '', exitCode: 0 })
    expect(existsSync(join(home, 'oauth', files[0]!))).toBe(false)
    expect(JSON.parse((await mcpx('auth', 'status', 'secure', '--json')).stdout).loggedIn).toBe(false)
    expect((await mcpx('auth', 'logout', 'secure')).stdout).toBe('"secure" had no stored credentials\n')
  })
})
