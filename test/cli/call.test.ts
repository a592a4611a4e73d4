/**
 * `mcpx call` end to end: the CLI (the compiled binary under `npm test`) starts an isolated daemon
 * on demand, which spawns a real stdio upstream; stdout, stderr and the exit code are asserted.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO_ROOT, runMcpx, tempDir, errorJson } from '../harness.ts'
import { layoutForEnv } from '../support/layout.ts'

const dir = tempDir('mcpx-call')
const config = join(dir.path, 'config.json')
const env = { MCPX_HOME: join(dir.path, 'home') }
const call = (...args: string[]) => runMcpx(['call', ...args, '--config', config], { env })
const upstream = { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/peers/gateway-upstream-fixture.ts')] }

beforeAll(() => {
  writeFileSync(config, JSON.stringify({ mcpServers: { up: upstream } }))
})
afterAll(async () => {
  await runMcpx(['daemon', 'stop', '--config', config], { env })
  dir[Symbol.dispose]()
})

describe('mcpx call', () => {
  test('calls an upstream tool through the daemon it starts on demand', async () => {
    expect(await call('up.echo', 'text=007')).toEqual({ stdout: '007\n', stderr: '', exitCode: 0 })
  })

  test('--json prints the CallToolResult as the spec shapes it', async () => {
    const result = await call('up.add', 'a=2', 'b=40', '--json')
    expect(result.exitCode).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({ content: [{ type: 'text', text: '42' }] })
    // The upstream speaks 2025-11-25 (SDK 1.x): that revision has no resultType, nor 2026 cache hints.
    expect(Object.keys(JSON.parse(result.stdout)).filter((key) => ['resultType', 'ttlMs', 'cacheScope'].includes(key))).toEqual([])
  })

  test('the server and the tool as two words, as the lists print names', async () => {
    expect(await call('up', 'echo', 'text=two')).toEqual({ stdout: 'two\n', stderr: '', exitCode: 0 })
    // A second word that is an argument is one: the first is then no server.tool.
    for (const argument of ['text=x', '{"text":"x"}', '-']) {
      const refused = await runMcpx(['call', 'up', argument, '--config', config], { env, stdin: '{}' })
      expect(refused.exitCode).toBe(2)
      expect(errorJson(refused.stderr).error.message).toBe('"up" is not <server>.<tool> (the first dot separates the server from the tool)')
    }
  })

  test('arguments as one JSON object and from stdin', async () => {
    expect((await call('up.add', '{"a":1,"b":2}')).stdout).toBe('3\n')
    expect((await runMcpx(['call', 'up.add', '-', '--config', config], { env, stdin: '{"a":5,"b":5}' })).stdout).toBe('10\n')
  })

  test('unknown tool: did-you-mean, exit 2, one JSON line on stderr', async () => {
    const result = await call('up.ecoh', 'text=x')
    expect(result.exitCode).toBe(2)
    expect(result.stdout).toBe('')
    expect(errorJson(result.stderr)).toEqual({
      error: {
        code: 'NOT_FOUND',
        message: 'server "up" has no tool "ecoh" (did you mean up.echo?)',
        data: { server: 'up', tool: 'ecoh', suggestions: ['echo'] },
      },
    })
  })

  test('a warm call coerces against the schema cached from the catalog; a schema the daemon no longer holds is refused and the catalog fetched again', async () => {
    const cacheFile = join(layoutForEnv(env, config).runDir, 'tools', 'up.json')
    expect((await call('up.add', 'a=1', 'b=2')).stdout).toBe('3\n')
    const cache = JSON.parse(readFileSync(cacheFile, 'utf8')) as {
      daemon: string
      tools: Record<string, { inputSchema: { properties: Record<string, unknown> } }>
    }
    expect(Object.keys(cache.tools)).toContain('add')
    const warm = await call('up.add', 'a=1', 'b=2', '--verbose')
    expect(warm.stdout).toBe('3\n')
    expect(warm.stderr).toContain('(built against the cached schema)')
    // A copy that no longer matches the daemon's: the call is refused before it runs, and the CLI
    // builds the arguments again from a fresh catalog (which rewrites the copy).
    cache.tools.add!.inputSchema.properties.a = { type: 'string' }
    writeFileSync(cacheFile, JSON.stringify(cache))
    const stale = await call('up.add', 'a=4', 'b=5', '--verbose')
    expect(stale.stdout).toBe('9\n')
    expect(stale.stderr).toMatch(/calling up add \(through the daemon\) with \{"a":4,"b":5\}\n/)
    expect((JSON.parse(readFileSync(cacheFile, 'utf8')) as typeof cache).tools.add!.inputSchema.properties.a).not.toEqual({
      type: 'string',
    })
  })

  test("a warm call takes the config file's settings section, below MCPX_* variables", async () => {
    // The warm path reads only this section of the file (lib/config/settings-section.ts).
    const withSettings = join(dir.path, 'with-settings.json')
    writeFileSync(withSettings, JSON.stringify({ mcpServers: { up: upstream }, settings: { cliSlowNoticeMs: 50 } }))
    // The harness sets MCPX_CLI_SLOW_NOTICE_MS for every run; empty is unset, so the file's value applies.
    const slowCall = (notice = '') =>
      runMcpx(['call', 'up.slow', 'ms=500', '--verbose', '--config', withSettings], { env: { ...env, MCPX_CLI_SLOW_NOTICE_MS: notice } })
    try {
      expect((await slowCall()).exitCode).toBe(0)
      const warm = await slowCall()
      expect(warm.stderr).toContain('(built against the cached schema)')
      expect(warm.stderr).toContain('mcpx: waiting for up.slow…')
      const fromEnv = await slowCall('60000')
      expect(fromEnv.stderr).toContain('(built against the cached schema)')
      expect(fromEnv.stderr).not.toContain('waiting for')
    } finally {
      await runMcpx(['daemon', 'stop', '--config', withSettings], { env })
    }
  })

  test('an argument of the wrong type is named before the round trip', async () => {
    const result = await call('up.add', 'a=x', 'b=2')
    expect(result.exitCode).toBe(2)
    expect(errorJson(result.stderr).error).toMatchObject({ code: 'USAGE', data: { field: 'a' } })
  })

  test('unknown server and malformed target are usage errors', async () => {
    const unknown = await call('nope.echo')
    expect(unknown.exitCode).toBe(2)
    expect(errorJson(unknown.stderr).error.code).toBe('NOT_FOUND')
    const malformed = await call('justatool')
    expect(malformed.exitCode).toBe(2)
    expect(errorJson(malformed.stderr).error.code).toBe('USAGE')
  })

  test('a call past its --timeout names the tool and how to give it longer (exit 3)', async () => {
    const result = await call('up.slow', 'ms=3000', '--timeout', '300')
    expect(result.exitCode).toBe(3)
    expect(result.stdout).toBe('')
    expect(errorJson(result.stderr).error).toMatchObject({
      code: 'TIMEOUT',
      message: 'up.slow got no answer within 300 ms (give it longer with --timeout MS)',
      data: { method: 'tools/call', timeoutMs: 300 },
    })
  })

  test('a tool that dies mid-call gives a clear error, and the next call succeeds after restart', async () => {
    const crashed = await call('up.crash')
    expect(crashed.exitCode).toBe(3)
    expect(errorJson(crashed.stderr).error.code).toBe('CONNECT')
    expect((await call('up.echo', 'text=back')).stdout).toBe('back\n')
    // The upstream's stderr is forwarded to the daemon log under its name.
    expect(readFileSync(layoutForEnv(env, config).daemonLog, 'utf8')).toContain('[up stderr] gateway fixture crashing on request')
  })
})

describe('the README main command', () => {
  test('`mcpx call demo.echo text=hello` works on a fresh machine with no config', async () => {
    const { isolatedUser } = await import('./cli-env.ts')
    using user = isolatedUser('mcpx-readme')
    try {
      expect(await runMcpx(['call', 'demo.echo', 'text=hello'], { env: user.env })).toEqual({ stdout: 'hello\n', stderr: '', exitCode: 0 })
      // demo.echo's schema lets other arguments through: a misspelt one is sent, and named on stderr once.
      expect(await runMcpx(['call', 'demo.echo', 'text=hi', 'txet=1'], { env: user.env })).toEqual({
        stdout: 'hi\n',
        stderr: 'mcpx: demo.echo takes no argument "txet" (did you mean "text"?); sent as given (its arguments: text)\n',
        exitCode: 0,
      })
      expect((await runMcpx(['call', 'demo.echo', 'text=hi', 'txet=1', '--quiet'], { env: user.env })).stderr).toBe('')
      // Misspelt when it is required: refused before the round trip, naming the missing argument and the stray one.
      const misspelt = await runMcpx(['call', 'demo.echo', 'txet=hi'], { env: user.env })
      expect(misspelt.exitCode).toBe(2)
      expect(misspelt.stdout).toBe('')
      expect(misspelt.stderr.split('\n')[0]).toBe(
        'mcpx: missing required argument: text; demo.echo takes no argument "txet" (did you mean "text"?)',
      )
      expect(errorJson(misspelt.stderr).error).toMatchObject({ code: 'USAGE', data: { fields: ['text'] } })
    } finally {
      await runMcpx(['daemon', 'stop'], { env: user.env })
    }
  })
})

describe('mcpx call --progress', () => {
  test("the upstream's progress notifications and log messages are printed on stderr, the result on stdout", async () => {
    using dir2 = tempDir('mcpx-progress')
    const config2 = join(dir2.path, 'config.json')
    writeFileSync(
      config2,
      JSON.stringify({
        mcpServers: { ev: { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/everything/main.ts'), '--stdio'] } },
      }),
    )
    const env2 = { MCPX_HOME: join(dir2.path, 'home') }
    try {
      const result = await runMcpx(['call', 'ev.test_tool_with_progress', '--progress', '--config', config2], { env: env2 })
      expect(result.exitCode).toBe(0)
      expect(result.stderr.trim().split('\n')).toEqual([
        'ev.test_tool_with_progress: 0/100 Completed step 1 of 3',
        'ev.test_tool_with_progress: 50/100 Completed step 2 of 3',
        'ev.test_tool_with_progress: 100/100 Completed step 3 of 3',
      ])
      expect(result.stdout.length).toBeGreaterThan(0)
      // Its log messages during the call likewise (notifications/message), in the order sent.
      const logged = await runMcpx(['call', 'ev.test_tool_with_logging', '--progress', '--config', config2], { env: env2 })
      expect(logged).toMatchObject({ exitCode: 0, stdout: 'Logging test completed\n' })
      expect(logged.stderr.trim().split('\n')).toEqual([
        'ev.test_tool_with_logging: [info] Tool execution started',
        'ev.test_tool_with_logging: [info] Tool processing data',
        'ev.test_tool_with_logging: [info] Tool execution completed',
      ])
      // Without --progress, on a stderr that is no terminal: nothing but the result.
      expect((await runMcpx(['call', 'ev.test_tool_with_logging', '--config', config2], { env: env2 })).stderr).toBe('')
    } finally {
      await runMcpx(['daemon', 'stop', '--config', config2], { env: env2 })
    }
  })
})

describe('mcpx call --task', () => {
  // The everything fixture's slow_compute is task-optional (2025-11-25 execution.taskSupport), and
  // a 2026 server with the tasks extension makes a slow call a task when the client declares it.
  test('a task-optional tool runs as a task the gateway follows: its status shows as progress, the result on stdout', async () => {
    using dir3 = tempDir('mcpx-task')
    const config3 = join(dir3.path, 'config.json')
    const fixture = { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/everything/main.ts'), '--stdio'] }
    writeFileSync(config3, JSON.stringify({ mcpServers: { ev: fixture, old: { ...fixture, protocol: '2025-11-25' } } }))
    const env3 = { MCPX_HOME: join(dir3.path, 'home') }
    const run = (...args: string[]) => runMcpx(['call', ...args, '--progress', '--config', config3], { env: env3 })
    try {
      for (const server of ['ev', 'old']) {
        const asTask = await run(`${server}.slow_compute`, 'seconds=1', '--task')
        expect(asTask.exitCode).toBe(0)
        expect(asTask.stdout).toBe('Computed result after 1s\n')
        expect(asTask.stderr).toContain(`${server}.slow_compute: 1 working\n`)
        // Without --task the same call is a plain one: no task, so no task status.
        const plain = await run(`${server}.slow_compute`, 'seconds=1')
        expect(plain.stdout).toBe('Computed result after 1s\n')
        expect(plain.stderr).not.toContain('working')
      }
      // A 2025-11-25 tool that forbids tasks is named, not called without one.
      const forbidden = await run('old.greet', 'name=x', '--task')
      expect(forbidden.exitCode).toBe(2)
      expect(errorJson(forbidden.stderr).error.message).toBe('old.greet cannot run as a task (its execution.taskSupport is "forbidden")')
    } finally {
      await runMcpx(['daemon', 'stop', '--config', config3], { env: env3 })
    }
  })
})
