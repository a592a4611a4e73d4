/**
 * `mcpx serve` as a byte pipe into the daemon's stdio engine, driven through raw pipes (no SDK) so
 * every stdio rule is checked on the bytes: answers before the initialize answer, pipelining, no
 * reply to a notification, answers flushed after stdin EOF, usage errors on stderr only, EPIPE
 * quiet. Then restarts: a host keeps its session across `mcpx daemon stop`, a call in flight at
 * the stop gets an error (never a re-send), and a side-effecting call in flight when the daemon is
 * SIGKILLed runs at most once. Each test has its own MCPX_HOME.
 */
import { layoutForEnv } from '../support/layout.ts'
import { afterEach, describe, expect, test } from 'bun:test'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client as ModernClient } from '@modelcontextprotocol/client'
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { REPO_ROOT, mcpxCommand, runMcpx, tempDir } from '../harness.ts'

type Message = {
  jsonrpc: '2.0'
  id?: unknown
  method?: string
  result?: Record<string, unknown>
  error?: { code: number; message: string }
}

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-host', version: '1.0.0' } },
}
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' }
const line = (message: unknown) => `${JSON.stringify(message)}\n`

const homes: { dir: ReturnType<typeof tempDir>; env: Record<string, string>; config: string }[] = []

/** A fresh MCPX_HOME and config (the gateway fixture as `up`, the side-effect fixture as `fx`). */
function user() {
  const dir = tempDir('mcpx-serve-channel')
  const config = join(dir.path, 'config.json')
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        up: { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/peers/gateway-upstream-fixture.ts')] },
        fx: { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/peers/side-effect-fixture.ts')] },
      },
    }),
  )
  const env = { ...(process.env as Record<string, string>), MCPX_HOME: join(dir.path, 'home'), MCPX_SHUTDOWN_GRACE_MS: '2000' }
  const entry = { dir, env, config }
  homes.push(entry)
  return entry
}

afterEach(async () => {
  for (const { dir, env, config } of homes.splice(0)) {
    await runMcpx(['daemon', 'stop', '--config', config], { env })
    dir[Symbol.dispose]()
  }
})

/** `mcpx serve` on raw pipes: write lines, read every line it prints. */
function rawServe(u: ReturnType<typeof user>, ...extra: string[]) {
  const proc = Bun.spawn([...mcpxCommand(), 'serve', '--config', u.config, ...extra], {
    env: u.env,
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const lines: Message[] = []
  const waiters: { match: (m: Message) => boolean; resolve: (m: Message) => void }[] = []
  const reading = (async () => {
    const decoder = new TextDecoder()
    let buffered = ''
    const reader = proc.stdout.getReader()
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      buffered += decoder.decode(next.value, { stream: true })
      for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
        const message = JSON.parse(buffered.slice(0, end)) as Message
        buffered = buffered.slice(end + 1)
        lines.push(message)
        for (const waiter of waiters.splice(0)) {
          if (waiter.match(message)) waiter.resolve(message)
          else waiters.push(waiter)
        }
      }
    }
    expect(buffered).toBe('')
  })()
  return {
    lines,
    send(...messages: unknown[]) {
      proc.stdin.write(messages.map(line).join(''))
      proc.stdin.flush()
    },
    /** The first line (already read or still to come) matching. */
    next(match: (m: Message) => boolean): Promise<Message> {
      const seen = lines.find(match)
      if (seen) return Promise.resolve(seen)
      return new Promise((resolve) => waiters.push({ match, resolve }))
    },
    answer(id: unknown) {
      return this.next((m) => m.id === id && m.method === undefined)
    },
    /** Close stdin and wait for the process to end; its stderr. */
    async end(): Promise<{ exitCode: number; stderr: string }> {
      proc.stdin.end()
      const [exitCode, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text(), reading])
      return { exitCode, stderr }
    },
  }
}

const responses = (lines: Message[]) => lines.filter((m) => m.method === undefined)
const textOf = (result: unknown) => ((result as { content?: unknown }).content as { text: string }[]).map((c) => c.text).join('\n')

async function daemonPid(u: ReturnType<typeof user>): Promise<number> {
  const status = await runMcpx(['daemon', 'status', '--json', '--config', u.config], { env: u.env })
  expect(status.exitCode).toBe(0)
  return (JSON.parse(status.stdout) as { pid: number }).pid
}

describe('mcpx serve: stdio semantics on raw pipes', () => {
  test('a ping sent before the initialize answer is answered', async () => {
    const host = rawServe(user())
    host.send({ jsonrpc: '2.0', id: 'early', method: 'ping' }, INIT)
    expect((await host.answer('early')).result).toEqual({})
    expect((await host.answer(1)).result?.protocolVersion).toBe('2025-06-18')
    const { exitCode } = await host.end()
    expect(exitCode).toBe(0)
  })

  test('three pipelined messages get exactly two answers, with the right ids', async () => {
    const host = rawServe(user(), '--mode', 'raw')
    host.send(INIT, INITIALIZED, { jsonrpc: '2.0', id: 2, method: 'tools/list' })
    await host.answer(2)
    await host.end()
    const answers = responses(host.lines)
    expect(answers.map((m) => m.id)).toEqual([1, 2])
    expect(answers.every((m) => m.error === undefined)).toBe(true)
    expect((answers[1]!.result!.tools as { name: string }[]).map((t) => t.name)).toContain('up_echo')
  })

  test('a notification never gets a reply', async () => {
    const host = rawServe(user())
    host.send(
      INIT,
      INITIALIZED,
      { jsonrpc: '2.0', method: 'notifications/unknown-to-everyone', params: { x: 1 } },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'never-sent' } },
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      { jsonrpc: '2.0', id: 9, method: 'ping' },
    )
    await host.answer(9)
    await host.end()
    expect(responses(host.lines).map((m) => m.id)).toEqual([1, 9])
  })

  test('stdin closed right after initialize still gets the initialize answer', async () => {
    const u = user()
    const proc = Bun.spawn([...mcpxCommand(), 'serve', '--config', u.config], {
      env: u.env,
      stdin: new Blob([line(INIT)]),
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [stdout, exitCode] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
    expect(exitCode).toBe(0)
    const printed = stdout
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as Message)
    expect(printed.map((m) => m.id)).toEqual([1])
    expect(printed[0]!.result?.serverInfo).toMatchObject({ name: 'mcpx' })
  })

  test('stdin EOF: a call already read is answered; one that outlives shutdownGraceMs gets an error, not silence', async () => {
    const host = rawServe(user(), '--mode', 'raw')
    host.send(INIT, INITIALIZED, { jsonrpc: '2.0', id: 2, method: 'tools/list' })
    await host.answer(2)
    host.send(
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'up_slow', arguments: { ms: 300 } } },
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'up_slow', arguments: { ms: 60_000 } } },
    )
    const { exitCode } = await host.end()
    expect(exitCode).toBe(0)
    const answers = responses(host.lines)
    expect(answers.map((m) => m.id)).toEqual([1, 2, 3, 4])
    expect(textOf(answers[2]!.result)).toBe('slept 300')
    expect(answers[3]!.error?.message).toMatch(/may or may not have run/)
  })

  test('--mode bogus: the error on stderr (the human line, then the one JSON line), exit 2, nothing on stdout', async () => {
    const u = user()
    const result = await runMcpx(['serve', '--mode', 'bogus', '--config', u.config], { env: u.env, stdin: line(INIT) })
    expect(result.exitCode).toBe(2)
    expect(result.stdout).toBe('')
    const lines = result.stderr.trim().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[0]).toStartWith('mcpx: ')
    expect(JSON.parse(lines[1]!).error).toMatchObject({ code: 'USAGE', message: expect.stringContaining('bogus') })
    // Nothing was started for a command line that was wrong.
    expect(existsSync(layoutForEnv(u.env, u.config).socket)).toBe(false)
  })

  test('`mcpx serve | head -c 1` ends quietly (EPIPE is not a crash)', async () => {
    const u = user()
    const pings = Array.from({ length: 2000 }, (_, i) => line({ jsonrpc: '2.0', id: i + 10, method: 'ping' })).join('')
    const input = join(u.dir.path, 'input.jsonl')
    writeFileSync(input, line(INIT) + pings)
    const errors = join(u.dir.path, 'serve.stderr')
    const serve = mcpxCommand()
      .map((part) => `'${part}'`)
      .join(' ')
    const proc = Bun.spawn(['sh', '-c', `${serve} serve --config '${u.config}' < '${input}' 2> '${errors}' | head -c 1`], {
      env: u.env,
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [stdout, exitCode] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
    expect(exitCode).toBe(0)
    expect(stdout).toBe('{')
    const stderr = readFileSync(errors, 'utf8')
    expect(stderr).not.toMatch(/EPIPE|\n\s+at |error:/i)
  })
})

describe('mcpx serve: many hosts at once', () => {
  test('hosts started together start one daemon between them (one starter at a time), and all are served', async () => {
    const u = user()
    const hosts = Array.from({ length: 12 }, () => rawServe(u))
    for (const host of hosts) host.send(INIT, { jsonrpc: '2.0', id: 2, method: 'ping' })
    await Promise.all(hosts.map((host) => host.answer(2)))
    await Promise.all(hosts.map((host) => host.end()))
    for (const host of hosts) expect(responses(host.lines).map((m) => m.id)).toEqual([1, 2])
    const log = readFileSync(layoutForEnv(u.env, u.config).daemonLog, 'utf8')
    expect(log.match(/mcpx daemon listening/g)).toHaveLength(1)
    expect(log).not.toContain('already running')
  })
})

describe('mcpx serve: restarts are invisible and nothing runs twice', () => {
  test('an SDK host survives `mcpx daemon stop`: the next call succeeds on the same connection, its lists are refreshed', async () => {
    const u = user()
    const client = new Client({ name: 'legacy-host', version: '1.0.0' })
    let listChanged = 0
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged++)
    await client.connect(
      new StdioClientTransport({
        command: mcpxCommand()[0]!,
        args: [...mcpxCommand().slice(1), 'serve', '--mode', 'raw', '--config', u.config],
        env: u.env,
        stderr: 'pipe',
      }),
    )
    try {
      const before = textOf(await client.callTool({ name: 'up_pid', arguments: {} }))
      const daemonBefore = await daemonPid(u)
      const stopped = await runMcpx(['daemon', 'stop', '--config', u.config], { env: u.env })
      expect(stopped.stdout).toBe('stopped\n')
      // The host's next message brings the daemon back; the host never reconnected.
      expect(textOf(await client.callTool({ name: 'up_echo', arguments: { text: 'after the stop' } }))).toBe('after the stop')
      expect(await daemonPid(u)).not.toBe(daemonBefore)
      expect(textOf(await client.callTool({ name: 'up_pid', arguments: {} }))).not.toBe(before)
      expect(listChanged).toBeGreaterThan(0)
    } finally {
      await client.close()
    }
  })

  test('a 2026-07-28 host (no session) just gets a new channel after `mcpx daemon stop`', async () => {
    const u = user()
    const client = new ModernClient({ name: 'modern-host', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await client.connect(
      new ModernStdio({
        command: mcpxCommand()[0]!,
        args: [...mcpxCommand().slice(1), 'serve', '--mode', 'raw', '--config', u.config],
        env: u.env,
        stderr: 'pipe',
      }),
    )
    try {
      expect(textOf(await client.callTool({ name: 'up_echo', arguments: { text: 'before' } }))).toBe('before')
      await runMcpx(['daemon', 'stop', '--config', u.config], { env: u.env })
      expect(textOf(await client.callTool({ name: 'up_echo', arguments: { text: 'after' } }))).toBe('after')
    } finally {
      await client.close()
    }
  })

  test('the daemon stays stopped until the host sends something', async () => {
    const u = user()
    const host = rawServe(u)
    host.send(INIT, INITIALIZED, { jsonrpc: '2.0', id: 'level', method: 'logging/setLevel', params: { level: 'error' } })
    await host.answer('level')
    await runMcpx(['daemon', 'stop', '--config', u.config], { env: u.env })
    const idle = await runMcpx(['daemon', 'status', '--config', u.config], { env: u.env })
    expect(idle.exitCode).toBe(3)
    host.send({ jsonrpc: '2.0', id: 2, method: 'ping' })
    expect((await host.answer(2)).result).toEqual({})
    await host.end()
    // The replayed initialize and log level were answered to the shim: the host saw exactly its own answers,
    // and was told to refresh its lists.
    expect(responses(host.lines).map((m) => m.id)).toEqual([1, 'level', 2])
    expect(host.lines.map((m) => m.method).filter(Boolean)).toContain('notifications/tools/list_changed')
  })

  test('a call in flight at `mcpx daemon stop` gets a JSON-RPC error, and the next call works', async () => {
    const u = user()
    const host = rawServe(u, '--mode', 'raw')
    host.send(INIT, INITIALIZED, { jsonrpc: '2.0', id: 2, method: 'tools/list' })
    await host.answer(2)
    host.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'up_slow', arguments: { ms: 20_000 } } })
    // The stop's own round trip lets the call reach the upstream first.
    await runMcpx(['daemon', 'status', '--config', u.config], { env: u.env })
    await runMcpx(['daemon', 'stop', '--config', u.config], { env: u.env })
    const failed = await host.answer(3)
    expect(failed.error?.code).toBe(-32603)
    expect(failed.error?.message).toMatch(/may or may not have run/)
    host.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'up_echo', arguments: { text: 'again' } } })
    const next = await host.answer(4)
    expect(textOf(next.result)).toBe('again')
    await host.end()
    expect(responses(host.lines).filter((m) => m.id === 3)).toHaveLength(1)
  })

  test("a 2025-03-26 batch's requests in flight at `mcpx daemon stop` each get a JSON-RPC error", async () => {
    const u = user()
    const host = rawServe(u, '--mode', 'raw')
    host.send({ ...INIT, params: { ...INIT.params, protocolVersion: '2025-03-26' } }, INITIALIZED, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/list',
    })
    await host.answer(2)
    // One line holding two requests: the daemon answers them together, after the slow one.
    host.send([
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'up_slow', arguments: { ms: 20_000 } } },
      { jsonrpc: '2.0', id: 5, method: 'ping' },
    ])
    await runMcpx(['daemon', 'status', '--config', u.config], { env: u.env })
    await runMcpx(['daemon', 'stop', '--config', u.config], { env: u.env })
    for (const id of [3, 5]) expect((await host.answer(id)).error?.message).toMatch(/may or may not have run/)
    await host.end()
  })

  test('a side-effecting call in flight when the daemon is SIGKILLed runs at most once', async () => {
    const u = user()
    const sink = join(u.dir.path, 'side-effects.txt')
    const host = rawServe(u, '--mode', 'raw')
    host.send(INIT, INITIALIZED, { jsonrpc: '2.0', id: 2, method: 'tools/list' })
    await host.answer(2)
    const pid = await daemonPid(u)
    host.send({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'fx_append', arguments: { file: sink, line: 'ran', ms: 3_000 } },
    })
    // The side effect happened and the call is still open: now the daemon dies.
    while (!existsSync(sink)) await Bun.sleep(20)
    process.kill(pid, 'SIGKILL')
    const failed = await host.answer(3)
    expect(failed.error?.message).toMatch(/may or may not have run/)
    host.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'fx_echo', arguments: { text: 'still here' } } })
    expect(textOf((await host.answer(4)).result)).toBe('still here')
    // Past the first call's own duration: had it been re-sent, its line would be here twice.
    await Bun.sleep(3_500)
    expect(readFileSync(sink, 'utf8')).toBe('ran\n')
    await host.end()
    expect(responses(host.lines).map((m) => m.id)).toEqual([1, 2, 3, 4])
  })
})
