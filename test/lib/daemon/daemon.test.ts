/** lib/daemon: a spawned daemon in an isolated MCPX_HOME (listeners, private state files, the guard, /v1, the event feed, start/stop). */
import { describe, expect, test } from 'bun:test'
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { DaemonClient, type DaemonEvent } from '../../../lib/daemon/index.ts'
import { PROTOCOL_MATRIX } from '../../../lib/wire/index.ts'
import { REPO_ROOT, runMcpx, tempDir, errorJson } from '../../harness.ts'
import { layoutForEnv } from '../../support/layout.ts'
import { rawHttp, runForeground, startTestDaemon } from './daemon-process.ts'

describe('mcpx daemon (spawned, isolated MCPX_HOME)', () => {
  test('health reports the actual TCP port and listens on both surfaces', async () => {
    await using daemon = await startTestDaemon()
    expect(daemon.info.tcp.port).toBeGreaterThan(0)
    expect(daemon.info.tcp.address).toBe('127.0.0.1')
    const overSocket = await (await daemon.unix('/v1/health')).json()
    const overTcp = await (await daemon.tcp('/v1/health')).json()
    expect(overSocket.pid).toBe(daemon.info.pid)
    expect(overTcp.pid).toBe(daemon.info.pid)
    expect(overSocket.tcp).toEqual(daemon.info.tcp)
    expect(overSocket.config).toBeNull()
    expect(statSync(daemon.layout.home).mode & 0o777).toBe(0o700)
  })

  test('state files are private: run dir 0700 (even if it existed wider), socket and token 0600', async () => {
    using dir = tempDir('mcpx-daemon-modes')
    const home = join(dir.path, 'home')
    const runDir = layoutForEnv({ MCPX_HOME: home }).runDir
    mkdirSync(runDir, { recursive: true, mode: 0o755 })
    chmodSync(runDir, 0o755)
    await using daemon = await startTestDaemon({ MCPX_HOME: home })
    expect(statSync(daemon.layout.runDir).mode & 0o777).toBe(0o700)
    expect(statSync(daemon.layout.socket).mode & 0o777).toBe(0o600)
    expect(statSync(daemon.layout.token).mode & 0o777).toBe(0o600)
  })

  test('TCP needs the bearer token from the token file; the socket does not', async () => {
    await using daemon = await startTestDaemon()
    expect((await daemon.tcp('/v1/servers', { token: null })).status).toBe(401)
    expect((await daemon.tcp('/v1/servers', { token: 'x'.repeat(64) })).status).toBe(401)
    expect((await daemon.tcp('/v1/servers')).status).toBe(200)
    expect((await daemon.unix('/v1/servers')).status).toBe(200)
    const viaClient = new DaemonClient({ layout: daemon.layout, via: 'tcp' })
    expect((await viaClient.health())?.pid).toBe(daemon.info.pid)
  })

  // TR-41 (reference register): a web page POSTs a CORS-"simple" text/plain body to the loopback
  // port, directly (Origin: the attacker) or after DNS rebinding (Host: the attacker's name).
  test('TR-41 replay: cross-origin simple POST and DNS-rebound Host are refused', async () => {
    using dir = tempDir('mcpx-daemon-tr41')
    const config = join(dir.path, 'config.json')
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { demo: { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/peers/gateway-upstream-fixture.ts')] } },
      }),
    )
    await using daemon = await startTestDaemon({ MCPX_CONFIG: config })
    const port = daemon.info.tcp.port
    const body = '{"server":"demo","tool":"echo","arguments":{"text":"pwned"}}'
    const browserPost = (host: string, origin: string, extra = '') =>
      `POST /v1/call HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${origin}\r\nContent-Type: text/plain;charset=UTF-8\r\n${extra}Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`
    // Cross-site page, even one that somehow holds the token: Origin is checked first.
    expect((await rawHttp(port, browserPost(`127.0.0.1:${port}`, 'https://evil.example'))).status).toBe(403)
    expect(
      (await rawHttp(port, browserPost(`127.0.0.1:${port}`, 'https://evil.example', `Authorization: Bearer ${daemon.token}\r\n`))).status,
    ).toBe(403)
    // DNS rebinding: the page is now same-origin with the attacker's name, so Host is what gives it away.
    expect((await rawHttp(port, browserPost(`rebind.evil.example:${port}`, `http://rebind.evil.example:${port}`))).status).toBe(403)
    expect(
      (
        await rawHttp(
          port,
          browserPost(`rebind.evil.example:${port}`, `http://rebind.evil.example:${port}`, `Authorization: Bearer ${daemon.token}\r\n`),
        )
      ).status,
    ).toBe(403)
    // The same body from a local client without Origin still has to be JSON and carry the token.
    expect((await daemon.tcp('/v1/call', { method: 'POST', body, headers: { 'Content-Type': 'text/plain;charset=UTF-8' } })).status).toBe(
      415,
    )
    expect(
      (await daemon.tcp('/v1/call', { method: 'POST', body, headers: { 'Content-Type': 'application/json' }, token: null })).status,
    ).toBe(401)
    // The Unix socket applies Host and Origin too.
    expect(
      (
        await daemon.unix('/v1/call', {
          method: 'POST',
          body,
          headers: { Origin: 'https://evil.example', 'Content-Type': 'application/json' },
        })
      ).status,
    ).toBe(403)
    // Routes mounted later (/mcp) sit behind the same guard and answer with an id-less JSON-RPC error.
    const mcp = await rawHttp(
      port,
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: https://evil.example\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
    )
    expect(mcp.status).toBe(403)
    expect(JSON.parse(mcp.text.slice(mcp.text.indexOf('\r\n\r\n') + 4))).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } })
    // /mcp is where code mode runs scripts: the rebound and the simple-request variants are refused there too.
    const rpc = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
    const mcpPost = (host: string, type: string, extra = '') =>
      `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: ${type}\r\nAccept: application/json, text/event-stream\r\n${extra}Content-Length: ${rpc.length}\r\nConnection: close\r\n\r\n${rpc}`
    expect(
      (await rawHttp(port, mcpPost(`rebind.evil.example:${port}`, 'application/json', `Authorization: Bearer ${daemon.token}\r\n`))).status,
    ).toBe(403)
    expect((await rawHttp(port, mcpPost(`127.0.0.1:${port}`, 'text/plain;charset=UTF-8', `Origin: https://evil.example\r\n`))).status).toBe(
      403,
    )
    expect(
      (await rawHttp(port, mcpPost(`127.0.0.1:${port}`, 'text/plain;charset=UTF-8', `Authorization: Bearer ${daemon.token}\r\n`))).status,
    ).toBe(415)
    expect((await rawHttp(port, mcpPost(`127.0.0.1:${port}`, 'application/json'))).status).toBe(401)
    // Control: the same body from a legitimate local client does run the tool, so the refusals above are the guard's.
    const legit = await daemon.tcp('/v1/call', { method: 'POST', body, headers: { 'Content-Type': 'application/json' } })
    expect(legit.status).toBe(200)
    expect(await legit.json()).toMatchObject({ content: [{ type: 'text', text: 'pwned' }] })
  })

  test('/v1 validates parameters and answers errors with a stable code', async () => {
    await using daemon = await startTestDaemon()
    const post = (path: string, body: unknown) =>
      daemon.unix(path, { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } })
    expect(await (await post('/v1/call', { server: 'demo' })).json()).toEqual({
      error: { code: 'USAGE', message: 'call: parameter "tool" is required', data: { operation: 'call', param: 'tool' } },
    })
    expect((await post('/v1/call', { server: 'demo', tool: 't', arguments: [1] })).status).toBe(400)
    expect((await post('/v1/call', { server: 'demo', tool: 't', extra: 1 })).status).toBe(400)
    // A parameter with a fixed set of values names them.
    expect(await (await post('/v1/call', { server: 'demo', tool: 't', logLevel: 'loud' })).json()).toMatchObject({
      error: {
        code: 'USAGE',
        message: 'call: parameter "logLevel" must be one of debug, info, notice, warning, error, critical, alert, emergency, got "loud"',
      },
    })
    expect(
      (await daemon.unix('/v1/call', { method: 'POST', body: '{not json', headers: { 'Content-Type': 'application/json' } })).status,
    ).toBe(400)
    const missing = await daemon.unix('/v1/servers/nope')
    expect(missing.status).toBe(404)
    expect((await missing.json()).error.code).toBe('NOT_FOUND')
    expect((await daemon.unix('/v1/nothing-here')).status).toBe(404)
    const wrongMethod = await daemon.unix('/v1/health', { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } })
    expect(wrongMethod.status).toBe(405)
    expect(wrongMethod.headers.get('allow')).toBe('GET')
    const ops = await (await daemon.unix('/v1')).json()
    expect(ops.operations.map((op: { name: string }) => op.name)).toEqual([
      'operations',
      'health',
      'servers',
      'server',
      'catalog',
      'call',
      'request',
      'answer',
      'search',
      'types',
      'exec',
      'protocol',
      'memory',
      'events',
      'shutdown',
    ])
    expect(ops.operations.find((op: { name: string }) => op.name === 'call').params.required).toEqual(['server', 'tool'])
  })

  test('serves the configured servers with their state and the protocol table', async () => {
    using dir = tempDir('mcpx-daemon-config')
    const config = join(dir.path, 'config.json')
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          files: { command: 'server-files', args: ['--root', '${ROOT:-/srv}'], env: { SECRET: 'hidden' } },
          web: { url: 'https://user:pw@example.com/mcp?key=hidden', disabled: true, protocol: '2025-06-18' },
        },
      }),
    )
    await using daemon = await startTestDaemon({ MCPX_CONFIG: config })
    expect(await (await daemon.unix('/v1/servers')).json()).toEqual([
      // Not installed here: unavailable, saying why and where in the config.
      {
        name: 'files',
        state: 'unavailable',
        reason: 'command "server-files" is not on PATH (mcpServers.files.command)',
        transport: 'stdio',
        endpoint: 'server-files',
      },
      { name: 'web', state: 'disabled', transport: 'http', endpoint: 'https://example.com/mcp', protocol: '2025-06-18' },
    ])
    const call = await (
      await daemon.unix('/v1/call', {
        method: 'POST',
        body: '{"server":"web","tool":"x"}',
        headers: { 'Content-Type': 'application/json' },
      })
    ).json()
    expect(call.error).toMatchObject({ code: 'CONNECT', data: { server: 'web' } })
    expect((await (await daemon.unix('/v1/health')).json()).config).toBe(config)
    const protocol = await (await daemon.unix('/v1/protocol')).json()
    expect(protocol).toEqual(JSON.parse(JSON.stringify(PROTOCOL_MATRIX)))
    expect(protocol.byRevision['2026-07-28'].era).toBe('modern')
  })

  test('event feed: SSE with ids, resumed after Last-Event-ID', async () => {
    await using daemon = await startTestDaemon()
    const client = new DaemonClient({ layout: daemon.layout })
    const abort = new AbortController()
    const first: DaemonEvent[] = []
    for await (const event of client.events({ signal: abort.signal })) {
      first.push(event)
      if (event.type === 'daemon.started') {
        await daemon.unix('/v1/call', {
          method: 'POST',
          body: '{"server":"nope","tool":"echo"}',
          headers: { 'Content-Type': 'application/json' },
        })
      }
      if (event.type === 'call') break
    }
    abort.abort()
    expect(first.map((event) => [event.id, event.type])).toEqual([
      [1, 'daemon.started'],
      [2, 'call'],
    ])
    expect(first[1]!.data).toMatchObject({ server: 'nope', tool: 'echo', ok: false, error: 'NOT_FOUND' })
    const resumed = await daemon.unix('/v1/events', { headers: { 'Last-Event-ID': '1' } })
    expect(resumed.headers.get('content-type')).toBe('text/event-stream')
    const reader = resumed.body!.getReader()
    let text = ''
    while (!text.includes('event: call\n')) text += new TextDecoder().decode((await reader.read()).value)
    await reader.cancel()
    expect(text).toStartWith('retry: ')
    expect(text).toContain('id: 2\nevent: call\n')
    expect(text).not.toContain('id: 1\n')
  })

  test('start is idempotent, stop ends the process and removes socket, lock and state', async () => {
    await using daemon = await startTestDaemon()
    const again = await runMcpx(['daemon', 'start', '--json'], { env: daemon.env })
    expect(again.exitCode).toBe(0)
    expect(JSON.parse(again.stdout).pid).toBe(daemon.info.pid)
    const stopped = await runMcpx(['daemon', 'stop'], { env: daemon.env })
    expect(stopped).toMatchObject({ exitCode: 0, stdout: 'stopped\n' })
    expect([existsSync(daemon.layout.socket), existsSync(daemon.layout.lock), existsSync(daemon.layout.state)]).toEqual([
      false,
      false,
      false,
    ])
    const status = await runMcpx(['daemon', 'status'], { env: daemon.env })
    expect(status.exitCode).toBe(3)
    expect(errorJson(status.stderr).error.code).toBe('CONNECT')
    expect((await runMcpx(['daemon', 'stop'], { env: daemon.env })).stdout).toBe('not running\n')
  })

  test('one instance per user: a second run fails naming the running pid', async () => {
    await using daemon = await startTestDaemon()
    const second = await runMcpx(['daemon', 'run'], { env: daemon.env })
    expect(second.exitCode).toBe(2)
    expect(errorJson(second.stderr).error).toMatchObject({ code: 'USAGE', data: { pid: daemon.info.pid } })
    expect((await daemon.unix('/v1/health')).status).toBe(200)
  })

  test('a stale lock (dead pid) and a leftover socket file do not stop a new daemon', async () => {
    using dir = tempDir('mcpx-daemon-stale')
    const home = join(dir.path, 'home')
    const env = { MCPX_HOME: home, HOME: dir.path }
    const layout = layoutForEnv(env)
    mkdirSync(layout.runDir, { recursive: true })
    await using dead = Bun.spawn(['true'])
    await dead.exited
    writeFileSync(layout.lock, `${dead.pid}\n`)
    writeFileSync(layout.socket, '')
    const started = await runMcpx(['daemon', 'start', '--json'], { env })
    expect(started.exitCode).toBe(0)
    expect((await runMcpx(['daemon', 'stop'], { env })).stdout).toBe('stopped\n')
  })

  test('foreground run exits on its own after the idle setting, cleaning up', async () => {
    using dir = tempDir('mcpx-daemon-idle')
    const env = { MCPX_HOME: join(dir.path, 'home'), HOME: dir.path, MCPX_DAEMON_IDLE_MS: '50' }
    await using proc = await runForeground(env)
    expect(await proc.exited).toBe(0)
    expect(existsSync(layoutForEnv(env).lock)).toBe(false)
    expect(existsSync(layoutForEnv(env).socket)).toBe(false)
  })

  test('the idle exit counts from the last request: a daemon in use stays up, then exits once quiet', async () => {
    using dir = tempDir('mcpx-daemon-in-use')
    const idleMs = 600
    const env = { MCPX_HOME: join(dir.path, 'home'), HOME: dir.path, MCPX_DAEMON_IDLE_MS: String(idleMs) }
    await using proc = await runForeground(env)
    const socket = layoutForEnv(env).socket
    // Requests spaced well inside the idle window, for three windows in all.
    const until = performance.now() + 3 * idleMs
    while (performance.now() < until) {
      expect((await fetch('http://localhost/v1/health', { unix: socket })).status).toBe(200)
      await Bun.sleep(idleMs / 4)
    }
    expect(proc.exitCode).toBeNull()
    expect(await proc.exited).toBe(0)
  })

  test('SIGTERM shuts the foreground daemon down gracefully', async () => {
    using dir = tempDir('mcpx-daemon-term')
    const env = { MCPX_HOME: join(dir.path, 'home'), HOME: dir.path }
    await using proc = await runForeground(env)
    proc.kill('SIGTERM')
    expect(await proc.exited).toBe(0)
    expect(existsSync(layoutForEnv(env).lock)).toBe(false)
  })

  test('CLI commands start the daemon on demand', async () => {
    using dir = tempDir('mcpx-daemon-demand')
    const env = { MCPX_HOME: join(dir.path, 'home'), HOME: dir.path }
    const servers = await runMcpx(['daemon', 'servers'], { env })
    expect(servers.exitCode).toBe(0)
    expect(JSON.parse(servers.stdout).map((server: { name: string }) => server.name)).toEqual(['demo'])
    expect((await runMcpx(['daemon', 'stop'], { env })).stdout).toBe('stopped\n')
  })

  test('a daemon that cannot listen reports why to `start` (through the ready fd) and leaves no lock', async () => {
    await using busy = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('taken') })
    using dir = tempDir('mcpx-daemon-busy')
    const env = { MCPX_HOME: join(dir.path, 'home'), HOME: dir.path, MCPX_DAEMON_PORT: String(busy.port) }
    const started = await runMcpx(['daemon', 'start'], { env })
    expect(started.exitCode).toBe(3)
    expect(errorJson(started.stderr).error).toMatchObject({ code: 'CONNECT', data: { address: '127.0.0.1', port: busy.port } })
    expect(existsSync(layoutForEnv(env).lock)).toBe(false)
    expect(existsSync(layoutForEnv(env).socket)).toBe(false)
  })

  test('a wider bind address is only used when asked for, and TCP still needs the token', async () => {
    await using daemon = await startTestDaemon({ MCPX_DAEMON_ADDRESS: '0.0.0.0', MCPX_DAEMON_ALLOWED_HOSTS: 'mcpx.lan' })
    expect(daemon.info.tcp.address).toBe('0.0.0.0')
    const url = `http://127.0.0.1:${daemon.info.tcp.port}/v1/health`
    expect((await fetch(url)).status).toBe(401)
    expect((await fetch(url, { headers: { Authorization: `Bearer ${daemon.token}` } })).status).toBe(200)
    expect((await fetch(url, { headers: { Authorization: `Bearer ${daemon.token}`, Host: 'mcpx.lan' } })).status).toBe(200)
    expect((await fetch(url, { headers: { Authorization: `Bearer ${daemon.token}`, Host: 'elsewhere.example' } })).status).toBe(403)
  })

  test('start rotates a daemon log that grew past the setting', async () => {
    using dir = tempDir('mcpx-daemon-log')
    const env = { MCPX_HOME: join(dir.path, 'home'), HOME: dir.path, MCPX_DAEMON_LOG_MAX_BYTES: '10' }
    mkdirSync(layoutForEnv(env).logDir, { recursive: true })
    writeFileSync(layoutForEnv(env).daemonLog, 'old log line that is long enough\n')
    try {
      expect((await runMcpx(['daemon', 'start'], { env })).exitCode).toBe(0)
      expect(readFileSync(`${layoutForEnv(env).daemonLog}.1`, 'utf8')).toBe('old log line that is long enough\n')
      expect(readFileSync(layoutForEnv(env).daemonLog, 'utf8')).toContain('mcpx daemon listening on')
    } finally {
      await runMcpx(['daemon', 'stop'], { env })
    }
  })
})
