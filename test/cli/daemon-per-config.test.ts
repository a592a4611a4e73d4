/**
 * One daemon per config location, one stated environment, paths relative to the config file,
 * per-server failure states, a stable port and honest discovery — against the compiled binary,
 * each test with its own MCPX_HOME (README "Config", "Server states", "Security").
 */
import { describe, expect, test } from 'bun:test'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { REPO_ROOT, errorJson, runMcpx } from '../harness.ts'
import { layoutForEnv } from '../support/layout.ts'
import { isolatedUser } from './cli-env.ts'
import { callThroughServe } from './serve-host.ts'
import { LEGACY, serveFixture } from '../lib/client/sdk-peers.ts'

const ENV_FIXTURE = join(REPO_ROOT, 'test/fixtures/peers/env-upstream-fixture.ts')
const envUpstream = (extra: Record<string, unknown> = {}) => ({ command: process.execPath, args: [ENV_FIXTURE], ...extra })

describe('a daemon per config', () => {
  test('two configs, two daemons side by side; each command and `serve --config` reaches its own, with no warning', async () => {
    using user = isolatedUser('mcpx-per-config')
    const a = join(user.project, 'a.json')
    const b = join(user.project, 'b.json')
    writeFileSync(a, JSON.stringify({ mcpServers: { alpha: envUpstream() } }))
    writeFileSync(b, JSON.stringify({ mcpServers: { beta: envUpstream() } }))
    try {
      const listA = await runMcpx(['servers', '--config', a, '--json'], { env: user.env })
      const listB = await runMcpx(['servers', '--config', b, '--json'], { env: user.env })
      expect(listA.stderr).toBe('')
      expect(listB.stderr).toBe('')
      expect(JSON.parse(listA.stdout).map((s: { name: string }) => s.name)).toEqual(['alpha'])
      expect(JSON.parse(listB.stdout).map((s: { name: string }) => s.name)).toEqual(['beta'])
      const served = await callThroughServe(['--config', b], { ...process.env, ...user.env } as Record<string, string>, 'beta.where')
      expect(served.text).toBe(user.project)
      expect(served.stderr).not.toContain('warn')
      const all = JSON.parse((await runMcpx(['status', '--all', '--json'], { env: user.env })).stdout) as { config: string }[]
      expect(all.map((info) => info.config).sort()).toEqual([a, b].sort())
    } finally {
      const stopped = await runMcpx(['daemon', 'stop', '--all', '--json'], { env: user.env })
      expect(JSON.parse(stopped.stdout).stopped.sort()).toEqual([a, b].sort())
    }
    expect(JSON.parse((await runMcpx(['status', '--all', '--json'], { env: user.env })).stdout)).toEqual([])
  })

  test('quick start with no config, then the default config file appears: the next `servers` lists it without a stop', async () => {
    using user = isolatedUser('mcpx-default-appears')
    try {
      const before = await runMcpx(['servers', '--json'], { env: user.env })
      expect(JSON.parse(before.stdout).map((s: { name: string }) => s.name)).toEqual(['demo'])
      mkdirSync(dirname(user.configFile), { recursive: true })
      writeFileSync(user.configFile, JSON.stringify({ mcpServers: { mine: envUpstream() } }))
      const after = await runMcpx(['servers', '--json'], { env: user.env })
      expect(after.stderr).toBe('')
      expect(JSON.parse(after.stdout).map((s: { name: string }) => s.name)).toEqual(['mine'])
      expect(JSON.parse((await runMcpx(['status', '--json'], { env: user.env })).stdout).daemon.config).toBe(user.configFile)
    } finally {
      await runMcpx(['daemon', 'stop'], { env: user.env })
    }
  })
})

describe('failures stay per server', () => {
  test('an unset ${VAR} makes one server unavailable (naming it and where); setting it in envFile makes it available after the reload', async () => {
    using user = isolatedUser('mcpx-unset-var')
    const config = join(user.project, 'config.json')
    const write = () =>
      writeFileSync(
        config,
        JSON.stringify({
          envFile: 'vars.env',
          mcpServers: { fine: envUpstream(), needs: envUpstream({ env: { X: '${MCPX_TEST_UNSET_VAR}' } }) },
        }),
      )
    write()
    const run = (...args: string[]) => runMcpx([...args, '--config', config], { env: user.env })
    try {
      const servers = JSON.parse((await run('servers', '--json')).stdout) as { name: string; state: string; reason?: string }[]
      // The envFile is not written yet: the reason says so beside the variable.
      expect(servers.find((s) => s.name === 'needs')).toMatchObject({
        state: 'unavailable',
        reason: `environment variable MCPX_TEST_UNSET_VAR is not set (mcpServers.needs.env.X); envFile ${join(user.project, 'vars.env')} does not exist`,
      })
      const human = await run('servers')
      expect(human.stdout).toContain('unavailable: environment variable MCPX_TEST_UNSET_VAR is not set (mcpServers.needs.env.X)')
      expect((await run('call', 'fine.where')).stdout).toBe(`${user.project}\n`)
      const refused = await run('call', 'needs.where')
      expect(refused.exitCode).toBe(2)
      expect(errorJson(refused.stderr).error.message).toContain('environment variable MCPX_TEST_UNSET_VAR is not set')
      writeFileSync(join(user.project, 'vars.env'), 'MCPX_TEST_UNSET_VAR=from-env-file\n')
      const env = JSON.parse((await run('call', 'needs.env')).stdout)
      expect(env.X).toBe('from-env-file')
      const verbose = await run('status', '--verbose')
      expect(verbose.stdout).toContain(`\${MCPX_TEST_UNSET_VAR}  envFile ${join(user.project, 'vars.env')}`)
      expect(verbose.stdout).not.toContain('from-env-file')
    } finally {
      await run('daemon', 'stop')
    }
  })
})

describe('one environment, independent of the starter', () => {
  test('a daemon started by a host with four variables and one started from a full shell give upstreams the same environment', async () => {
    using user = isolatedUser('mcpx-same-env')
    const config = join(user.project, 'config.json')
    writeFileSync(config, JSON.stringify({ mcpServers: { e: envUpstream({ env: { GREETING: '${MCPX_TEST_GREETING}' } }) } }))
    const proxy = { HTTPS_PROXY: 'http://proxy.mcpx.invalid:3128', NO_PROXY: 'localhost,127.0.0.1' }
    const shellEnv = { ...user.env, ...proxy, MCPX_TEST_GREETING: 'hello', MCPX_TEST_SHELL_ONLY: 'not for upstreams' }
    const fromShell = await runMcpx(['call', 'e.env', '--config', config], { env: shellEnv })
    expect(fromShell.exitCode).toBe(0)
    await runMcpx(['daemon', 'stop', '--config', config], { env: user.env })
    // What a host such as Claude Desktop passes: HOME, PATH, SHELL, TERM (plus where mcpx keeps its state).
    const hostEnv = { HOME: user.home, PATH: process.env.PATH!, SHELL: '/bin/sh', TERM: 'dumb', MCPX_HOME: user.env.MCPX_HOME }
    try {
      const fromHost = await callThroughServe(['--config', config], hostEnv, 'e.env')
      if (!fromHost.text.startsWith('{')) throw new Error(fromHost.text)
      const shellSeen = JSON.parse(fromShell.stdout)
      expect(JSON.parse(fromHost.text)).toEqual(shellSeen)
      expect(shellSeen.GREETING).toBe('hello')
      // The shell's proxy reaches upstreams (npx behind a proxy needs it), whoever started the daemon.
      expect(shellSeen).toMatchObject(proxy)
      expect(shellSeen.MCPX_TEST_SHELL_ONLY).toBeUndefined()
      expect(shellSeen.MCPX_TEST_GREETING).toBeUndefined()
    } finally {
      await runMcpx(['daemon', 'stop', '--config', config], { env: user.env })
    }
  })
})

describe("the daemon's own HTTP requests go through the shell's proxy", () => {
  test('a daemon started by a host that passes no proxy still reaches a remote server only the proxy can', async () => {
    using user = isolatedUser('mcpx-proxy')
    await using upstream = await serveFixture(LEGACY, 'http')
    const seen: string[] = []
    // An HTTP proxy: requests for the made-up host go to the fixture (Bun's fetch sends them here in absolute form).
    using proxy = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      idleTimeout: 0,
      async fetch(request) {
        const url = new URL(request.url)
        seen.push(`${request.method} ${url.host}`)
        if (url.host !== 'upstream.mcpx.invalid') return new Response('unknown host', { status: 502 })
        const headers = new Headers(request.headers)
        headers.delete('host')
        const body = request.method === 'POST' ? await request.text() : undefined
        const answer = await fetch(`${new URL(upstream.url).origin}${url.pathname}${url.search}`, { method: request.method, headers, body })
        return new Response(answer.body, { status: answer.status, headers: answer.headers })
      },
    })
    const config = join(user.project, 'config.json')
    writeFileSync(config, JSON.stringify({ mcpServers: { far: { url: 'http://upstream.mcpx.invalid/mcp' } } }))
    const shellEnv = { ...user.env, HTTP_PROXY: `http://127.0.0.1:${proxy.port}` }
    try {
      // A shell command writes the snapshot (its proxy with it); the daemon it starts has the proxy anyway.
      expect((await runMcpx(['call', 'far.echo', 'text=from-shell', '--config', config], { env: shellEnv })).stdout).toBe('from-shell\n')
      await runMcpx(['daemon', 'stop', '--config', config], { env: user.env })
      seen.length = 0
      const hostEnv = { HOME: user.home, PATH: process.env.PATH!, SHELL: '/bin/sh', TERM: 'dumb', MCPX_HOME: user.env.MCPX_HOME }
      // Before, this daemon had no proxy: "cannot reach http://upstream.mcpx.invalid/mcp".
      const fromHost = await callThroughServe(['--config', config], hostEnv, 'far.capabilities')
      expect(fromHost.text).toStartWith('{')
      expect(seen.some((line) => line.endsWith('upstream.mcpx.invalid'))).toBe(true)
    } finally {
      await runMcpx(['daemon', 'stop', '--config', config], { env: user.env })
    }
  })
})

describe('paths relative to the config file', () => {
  test('a relative `args` path works from any cwd, and the upstream runs in the config directory', async () => {
    using user = isolatedUser('mcpx-relative')
    const configDir = join(user.project, 'cfg')
    mkdirSync(join(configDir, 'servers'), { recursive: true })
    writeFileSync(join(configDir, 'servers', 'env.ts'), `import ${JSON.stringify(ENV_FIXTURE)}\n`)
    const config = join(configDir, 'config.json')
    writeFileSync(config, JSON.stringify({ mcpServers: { rel: { command: process.execPath, args: ['./servers/env.ts'] } } }))
    try {
      for (const cwd of [user.home, '/']) {
        const where = await runMcpx(['call', 'rel.where', '--config', config], { env: user.env, cwd })
        expect(where).toMatchObject({ exitCode: 0, stdout: `${configDir}\n` })
        await runMcpx(['daemon', 'stop', '--config', config], { env: user.env })
      }
    } finally {
      await runMcpx(['daemon', 'stop', '--config', config], { env: user.env })
    }
  })
})

describe('a stable address and honest discovery', () => {
  test('the port survives `daemon restart`; without a token, discovery is 404 and /mcp a 401 challenge naming the token file', async () => {
    using user = isolatedUser('mcpx-stable-port')
    try {
      const first = JSON.parse((await runMcpx(['daemon', 'start', '--json'], { env: user.env })).stdout)
      const restarted = await runMcpx(['daemon', 'restart', '--json'], { env: user.env })
      expect(restarted.exitCode).toBe(0)
      const second = JSON.parse(restarted.stdout)
      expect(second.pid).not.toBe(first.pid)
      expect(second.tcp.port).toBe(first.tcp.port)
      const base = second.tcp.url
      for (const path of [
        '/.well-known/oauth-protected-resource',
        '/.well-known/oauth-protected-resource/mcp',
        '/.well-known/oauth-authorization-server',
        '/register',
      ]) {
        const response = await fetch(`${base}${path}`, {
          method: path === '/register' ? 'POST' : 'GET',
          headers: { 'Content-Type': 'application/json' },
          body: path === '/register' ? '{}' : null,
        })
        expect({ path, status: response.status, challenge: response.headers.get('www-authenticate') }).toEqual({
          path,
          status: 404,
          challenge: null,
        })
      }
      const unauthorized = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      })
      expect(unauthorized.status).toBe(401)
      const tokenFile = layoutForEnv(user.env).token
      const challenge = unauthorized.headers.get('www-authenticate')!
      expect(challenge).toStartWith('Bearer realm="mcpx", error="invalid_token", error_description="')
      expect(challenge).not.toContain('resource_metadata')
      const body = await unauthorized.json()
      expect(body.error.message).toContain(tokenFile)
      expect(body.error.message).toContain('Authorization: Bearer')
    } finally {
      await runMcpx(['daemon', 'stop'], { env: user.env })
    }
  })
})
