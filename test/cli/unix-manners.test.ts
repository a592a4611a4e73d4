/**
 * The CLI as a Unix tool, one row per reported bug: strict parsing, exit codes, which stream
 * carries what, pipes and an open stdin. Every row runs the CLI (the compiled binary under
 * `npm test`) as a user would, with the built-in demo server or a small config.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { REPO_ROOT, errorJson, mcpxCommand, runMcpx } from '../harness.ts'
import { isolatedUser } from './cli-env.ts'

const user = isolatedUser('mcpx-manners')
const blockedConfig = join(user.home, 'blocked.json')
const recordConfig = join(user.home, 'record.json')
const brokenConfig = join(user.home, 'broken.json')
// The same broken file, read first by a command that starts its daemon (not by `status`).
const freshBrokenConfig = join(user.home, 'fresh-broken.json')
const crashConfig = join(user.home, 'crash.json')
const hostConfig = join(user.home, 'host.json')
const binDir = join(user.home, 'bin')
const ANSI = /\u001b\[/
const shell = (line: string) => ['bash', '-c', `set -o pipefail; ${line}`]
const self = mcpxCommand()
  .map((part) => `'${part}'`)
  .join(' ')

beforeAll(() => {
  mkdirSync(join(user.home, '.config', 'mcpx'), { recursive: true })
  const demo = { command: mcpxCommand()[0]!, args: [...mcpxCommand().slice(1), 'demo-server'] }
  writeFileSync(blockedConfig, JSON.stringify({ mcpServers: { demo: { ...demo, blockedTools: ['add'] } } }))
  writeFileSync(recordConfig, JSON.stringify({ mcpServers: { demo: { ...demo, record: join(user.home, 'no-such-dir', 'demo.jsonl') } } }))
  writeFileSync(brokenConfig, '{\n  "mcpServers": {\n    "demo": { "command": "x" }\n    "other": {}\n  }\n}\n')
  writeFileSync(freshBrokenConfig, '{\n  "mcpServers": {\n    "demo": { "command": "x" }\n    "other": {}\n  }\n}\n')
  // A server that dies at start-up after some chatter, naming its error on a later stderr line.
  const crash = {
    command: 'bash',
    args: ['-c', 'echo starting >&2; echo "Error: kaboom" >&2; echo "    at main (boom.js:1:1)" >&2; exit 1'],
  }
  writeFileSync(crashConfig, JSON.stringify({ mcpServers: { boom: crash, gone: { command: join(user.home, 'no-such-binary') } } }))
  writeFileSync(hostConfig, JSON.stringify({ mcpServers: { demo } }))
  // `doctor` looks for mcpx on PATH: a wrapper stands in for an installed binary.
  mkdirSync(binDir, { recursive: true })
  writeFileSync(join(binDir, 'mcpx'), `#!/bin/sh\nexec ${self} "$@"\n`, { mode: 0o755 })
})
afterAll(async () => {
  for (const config of [undefined, blockedConfig, recordConfig, brokenConfig, freshBrokenConfig, crashConfig, hostConfig])
    await run(['daemon', 'stop', ...(config ? ['--config', config] : [])])
  user[Symbol.dispose]()
})

async function run(argv: string[], options: { env?: Record<string, string>; stdin?: string } = {}) {
  // A daemon serves one config: each config file gets its own mcpx home.
  const config = argv[argv.indexOf('--config') + 1]
  const home = argv.includes('--config') ? { MCPX_HOME: `${config}.home` } : {}
  return runMcpx(argv, {
    env: { ...user.env, ...home, ...options.env },
    cwd: user.project,
    ...(options.stdin !== undefined && { stdin: options.stdin }),
  })
}

async function runShell(line: string) {
  await using proc = Bun.spawn(shell(line), { cwd: user.project, env: { ...process.env, ...user.env }, stdout: 'pipe', stderr: 'pipe' })
  const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { stdout, stderr, exitCode }
}

type Row = [label: string, argv: string[], exit: number, stream: 'stdout' | 'stderr', pattern: RegExp]

describe('strict parsing', () => {
  test.each<Row>([
    [
      'mcpx alone prints help and exits 2',
      [],
      2,
      'stderr',
      /^Usage: mcpx \[--config FILE\] \[--json\] \[--verbose\] \[--quiet\] <command>/,
    ],
    ['an unknown flag on call', ['call', 'demo.echo', 'text=a', '--bogus'], 2, 'stderr', /call: unknown option --bogus/],
    [
      'a misspelt flag gets did-you-mean',
      ['call', 'demo.echo', 'text=a', '--progres'],
      2,
      'stderr',
      /unknown option --progres \(did you mean --progress\?\)/,
    ],
    ['an unknown flag on exec', ['exec', '-', '--bogus'], 2, 'stderr', /exec: unknown option --bogus/],
    ['an unknown command', ['bogus'], 2, 'stderr', /unknown command "bogus"/],
    // An unknown option before any command is one line (no help dump), and not "mcpx: mcpx: …".
    ['an unknown option before the command', ['--bogus'], 2, 'stderr', /^mcpx: unknown option --bogus; see `mcpx --help`\n/],
    [
      'an unknown option on a command group',
      ['daemon', '--bogus'],
      2,
      'stderr',
      /^mcpx: daemon: unknown option --bogus; see `mcpx daemon --help`\n/,
    ],
    ['--config with no command', ['--config', 'x.json'], 2, 'stderr', /--config names no command; see `mcpx --help`/],
    [
      'a repeated key for a string parameter',
      ['call', 'demo.echo', 'text=a', 'text=b'],
      2,
      'stderr',
      /argument "text" given more than once/,
    ],
    [
      'a dotted key into a string is named',
      ['call', 'demo.echo', 'text.inner=a'],
      2,
      'stderr',
      /argument "text" is string, so "text.inner" cannot set a field inside it/,
    ],
    ['a string flag without its value', ['call', 'demo.echo', '--timeout'], 2, 'stderr', /--timeout needs a value/],
    // A word no positional takes is refused, not dropped (only call, prompt get and search take many).
    ['an extra word on settings', ['settings', 'nope'], 2, 'stderr', /settings: unexpected argument "nope" \(see `mcpx settings --help`\)/],
    ['a second server on tools', ['tools', 'demo', 'other'], 2, 'stderr', /tools: unexpected argument "other"/],
    // So is a command after `--` on a command that runs none: tools names the ad-hoc way to reach one.
    [
      'a command after -- on tools',
      ['tools', '--', 'npx', 'some-server'],
      2,
      'stderr',
      /tools: takes nothing after "--", got "npx" \(a server run as a command is named with --stdio "npx some-server"\)/,
    ],
    [
      'a word after -- on servers',
      ['servers', '--', 'x'],
      2,
      'stderr',
      /servers: takes nothing after "--", got "x"; see `mcpx servers --help`/,
    ],
    [
      'a command after -- on replay without --against',
      ['replay', 'f.jsonl', '--', 'x'],
      2,
      'stderr',
      /replay: takes nothing after "--", got "x"/,
    ],
    [
      'probe given the command twice',
      ['probe', '--stdio', 'a', '--', 'b'],
      2,
      'stderr',
      /probe takes the command either as --stdio "CMD" or after `--`, not both/,
    ],
    ['probe given a URL and a command', ['probe', 'http://127.0.0.1:9/mcp', '--stdio', 'a'], 2, 'stderr', /probe takes one target/],
    [
      'record given two targets',
      ['record', 'f.jsonl', '--stdio', 'a', '--url', 'http://127.0.0.1:9/mcp'],
      2,
      'stderr',
      /needs exactly one of `--url <url>`, `--stdio "CMD"` or `-- <command> \[args\]`/,
    ],
    [
      'prompt get without the prompt name',
      ['prompt', 'get', 'demo'],
      2,
      'stderr',
      /"demo" is not <server>\.<prompt> \(the first dot separates the server from the prompt; `mcpx prompt list demo` lists them\)/,
    ],
    // The server.tool habit on a URL (`URL.tool`) is one URL: the message shows the split.
    [
      'an ad-hoc URL with .tool appended',
      ['call', 'http://127.0.0.1:9/mcp.echo', 'text=a'],
      2,
      'stderr',
      /call http:\/\/127\.0\.0\.1:9\/mcp\.echo: name the tool after the URL \(mcpx call http:\/\/127\.0\.0\.1:9\/mcp echo text=a\)/,
    ],
    ['types of an unknown tool', ['types', 'demo.nope'], 2, 'stderr', /server "demo" has no tool "nope"/],
    ['search on an unknown server', ['search', 'q', '--server', 'nope'], 2, 'stderr', /no server named "nope"/],
    ['search for nothing', ['search', '  '], 2, 'stderr', /search: QUERY is empty/],
    [
      'search with a limit that is no count',
      ['search', 'q', '--limit', '0'],
      2,
      'stderr',
      /--limit must be a whole number of hits, at least 1; got "0"/,
    ],
    [
      'a blocked tool is reported as blocked',
      ['call', 'demo.add', 'a=1', 'b=2', '--config', blockedConfig],
      2,
      'stderr',
      /tool "add" of server "demo" is blocked by the config \(blockedTools\)/,
    ],
    // A file that does not parse keeps the daemon serving what it had; `status` says so, naming line and column, and fails.
    [
      'a config JSON error names line and column',
      ['status', '--config', brokenConfig],
      2,
      'stderr',
      /broken\.json:4:5: not valid JSON: expected "," or "}"/,
    ],
    // A server that cannot be started as configured is unavailable, naming the path in the config.
    [
      'a record path in a missing directory',
      ['call', 'demo.echo', 'text=a', '--config', recordConfig],
      2,
      'stderr',
      /server "demo" is unavailable: directory .*no-such-dir does not exist \(mcpServers\.demo\.record\)/,
    ],
  ])('%s → exit %d on %s', async (_label, argv, exit, stream, pattern) => {
    const result = await run(argv)
    expect(result.exitCode).toBe(exit)
    expect(result[stream]).toMatch(pattern)
    // `status` reports what it found on stdout even when it fails; every other failure leaves stdout empty.
    if (stream === 'stderr' && exit !== 0 && argv[0] !== 'status') expect(result.stdout).toBe('')
    expect(result.stderr).not.toMatch(ANSI)
    // No stack traces for expected failures.
    expect(result.stderr).not.toMatch(/\n\s+at /)
  })

  test('the options every command takes may stand before it, as git and docker take theirs', async () => {
    const before = await run(['--config', blockedConfig, '--json', 'servers'])
    expect(before.exitCode).toBe(0)
    expect(JSON.parse(before.stdout)).toEqual(JSON.parse((await run(['servers', '--json', '--config', blockedConfig])).stdout))
    // A command that does not take one refuses it as its own.
    const refused = await run(['--json', 'completion', 'bash'])
    expect(refused.exitCode).toBe(2)
    expect(refused.stderr).toContain('completion: unknown option --json')
  })

  test('everything after -- belongs to the wrapped command (replay --against -- cmd --print)', async () => {
    const recording = join(
      REPO_ROOT,
      'test/fixtures/recordings',
      readdirSync(join(REPO_ROOT, 'test/fixtures/recordings')).find((f) => f.endsWith('.jsonl'))!,
    )
    const result = await run(['replay', recording, '--against', '--', 'false', '--print', '--json'])
    // `false --print --json` is run (and answers nothing): a divergence report, not "choose one of
    // --print, --serve or --against", and human text (the --json was the command's).
    expect(result.stderr).not.toMatch(/choose one of/)
    expect(result.exitCode).toBe(6)
    expect(result.stdout).not.toStartWith('{')
    expect(result.stdout).toContain('false --print --json')
  })
})

describe('streams and exit codes', () => {
  test('with stderr not a terminal, a failure writes the human line and the JSON line', async () => {
    const result = await run(['call', 'demo.ecoh', 'text=x'])
    expect(result.exitCode).toBe(2)
    const lines = result.stderr.trim().split('\n')
    expect(lines[0]).toBe('mcpx: server "demo" has no tool "ecoh" (did you mean demo.echo?)')
    expect(errorJson(result.stderr).error.code).toBe('NOT_FOUND')
  })

  test('replay --serve on a busy port is CONNECT (exit 3), not a bug', async () => {
    const holder = createServer()
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
    const port = (holder.address() as { port: number }).port
    try {
      const recording = join(
        REPO_ROOT,
        'test/fixtures/recordings',
        readdirSync(join(REPO_ROOT, 'test/fixtures/recordings')).find((f) => f.endsWith('.jsonl'))!,
      )
      const result = await run(['replay', recording, '--serve', '--port', String(port)])
      expect(result.exitCode).toBe(3)
      expect(result.stderr).toMatch(new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: the port is in use`))
    } finally {
      holder.close()
    }
  })

  test('probe -- cat exits 3 as its help says, within the probe deadlines from settings', async () => {
    const env = { MCPX_PROBE_TIMEOUT_MS: '300', MCPX_PROBE_STEP_TIMEOUT_MS: '2000' }
    const settings = await run(['settings', '--json'], { env })
    const values = Object.fromEntries((JSON.parse(settings.stdout) as { name: string; value: unknown }[]).map((s) => [s.name, s.value]))
    expect(values).toMatchObject({ probeTimeoutMs: 300, probeStepTimeoutMs: 2000 })
    const result = await run(['probe', '--', 'cat'], { env })
    expect(result.exitCode).toBe(3)
    expect(result.stderr).toMatch(/cat is not an MCP server/)
    expect(result.stdout).toMatch(/modern\/stdio: connect — server\/discover got no answer within 300 ms/)
  })

  test('EPIPE ends quietly with exit 0 (tools | head -1, settings | head -1)', async () => {
    for (const command of ['tools', 'settings']) {
      const result = await runShell(`${self} ${command} | head -1`)
      expect(result).toMatchObject({ exitCode: 0 })
      expect(result.stdout.split('\n').length).toBe(2)
      expect(result.stderr).not.toMatch(/EPIPE|at /)
    }
  })

  test('a call of a tool without required arguments does not wait on an open stdin', async () => {
    await using proc = Bun.spawn([...mcpxCommand(), 'call', 'demo.time'], {
      cwd: user.project,
      env: { ...process.env, ...user.env },
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
    })
    // stdin stays open for the whole call: the test times out if mcpx waits for EOF.
    const [stdout, exitCode] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
    expect(exitCode).toBe(0)
    expect(stdout).toMatch(/^\d{4}-\d\d-\d\dT/)
  })

  test('--verbose says what call does, on stderr', async () => {
    const result = await run(['call', 'demo.echo', 'text=hi', '--verbose'])
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toBe('hi\n')
    expect(result.stderr).toMatch(/mcpx: calling demo echo \(through the daemon\) with \{"text":"hi"\}/)
    expect(result.stderr).toMatch(/mcpx: demo echo answered in \d+ ms/)
  })

  test('a slow step says what it waits for on stderr (setting cliSlowNoticeMs)', async () => {
    await run(['daemon', 'stop'])
    const result = await run(['call', 'demo.echo', 'text=hi'], { env: { MCPX_CLI_SLOW_NOTICE_MS: '0' } })
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toBe('hi\n')
    expect(result.stderr).toMatch(/^mcpx: connecting to demo…$/m)
  })
})

describe('config problems, tables and doctor', () => {
  test('an mcpx home that is a file is a CONFIG error (exit 2), not a bug', async () => {
    const file = join(user.home, 'home-is-a-file')
    writeFileSync(file, '')
    const result = await run(['tools'], { env: { MCPX_HOME: file } })
    expect(result.exitCode).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toStartWith(`mcpx: cannot use ${file} as the mcpx home (MCPX_HOME): a file is in the way of its directories\n`)
    expect(result.stderr).not.toMatch(/\n\s+at /)
  })

  test('a config that does not parse is reported by the command that started the daemon, with line and column', async () => {
    const result = await run(['tools', '--config', freshBrokenConfig])
    expect(result.stderr).toMatch(
      /^config .*fresh-broken\.json not loaded: config .*fresh-broken\.json:4:5: not valid JSON: expected "," or "}"/m,
    )
    expect(result.stdout).toBe('')
  })

  test('tables: one line per failed server, naming the error its stderr ended with; columns line up', async () => {
    const tools = await run(['tools', '--config', crashConfig])
    expect(tools.exitCode).toBe(0)
    expect(tools.stdout).toMatch(
      /^boom {2}\(unavailable: initialize got no answer: server exited with code 1: starting … Error: kaboom\)$/m,
    )
    expect(tools.stdout).not.toContain('boom.js')
    expect(tools.stdout).toMatch(/^gone {2}\(unavailable: .*no-such-binary does not exist or is not executable/m)
    const servers = await run(['servers', '--config', crashConfig])
    const rows = servers.stdout.trim().split('\n')
    expect(rows.length).toBe(2)
    // A local command that never started is not tried again in the background (each try would spawn it): no next try.
    expect(rows[0]).toMatch(/^boom {2}failed: .* … Error: kaboom {2,}stdio {2}/)
    expect(rows.map((row) => row.indexOf('  stdio  '))).toEqual([rows[0]!.indexOf('  stdio  '), rows[0]!.indexOf('  stdio  ')])
    const verbose = await run(['servers', '--config', crashConfig, '--verbose'])
    expect(verbose.stdout).toContain('    at main (boom.js:1:1)')
  })

  test('doctor: exit 0 when all is well, 2 for a config or host problem, 3 for a server that does not connect', async () => {
    const path = { PATH: `${binDir}:${process.env.PATH}` }
    const healthy = await run(['doctor', '--config', hostConfig], { env: path })
    expect(healthy.exitCode).toBe(0)
    expect(healthy.stdout).toMatch(/^ok {4}mcpx on PATH: /m)
    expect(healthy.stdout).toMatch(/^ok {4}server demo: ready, \d+ tools$/m)
    expect(healthy.stdout).toMatch(/^ok {4}hosts: no host config has an mcpx entry yet/m)
    expect(healthy.stderr).toBe('')
    const broken = await run(['doctor', '--config', brokenConfig], { env: path })
    expect(broken.exitCode).toBe(2)
    expect(broken.stdout).toMatch(/^FAIL {2}config: config .*broken\.json:4:5: not valid JSON/m)
    expect(errorJson(broken.stderr).error).toMatchObject({ code: 'CONFIG', message: 'doctor found 1 problem: config' })
    const down = await run(['doctor', '--config', crashConfig], { env: path })
    expect(down.exitCode).toBe(3)
    expect(down.stdout).toMatch(/^FAIL {2}server boom: .* … Error: kaboom$/m)
    expect(errorJson(down.stderr).error.message).toBe('doctor found 2 problems: server boom, server gone')
    // Not finding mcpx on PATH is a setup problem (2), not a server that does not connect (3).
    const noPath = await run(['doctor', '--config', hostConfig], { env: { PATH: '/nonexistent' } })
    expect(noPath.exitCode).toBe(2)
    expect(errorJson(noPath.stderr).error.code).toBe('CONFIG')
    expect(noPath.stdout).toMatch(/^FAIL {2}mcpx on PATH: not found/m)
    // A host config whose mcpx entry starts a binary that is gone.
    const claude = join(user.home, '.claude.json')
    writeFileSync(
      claude,
      JSON.stringify({ mcpServers: { mcpx: { type: 'stdio', command: join(user.home, 'gone', 'mcpx'), args: ['serve'] } } }),
    )
    try {
      const host = await run(['doctor', '--config', hostConfig], { env: path })
      expect(host.exitCode).toBe(2)
      expect(host.stdout).toMatch(
        /^FAIL {2}host claude-code: the mcpx entry in .*\.claude\.json starts ".*gone\/mcpx", which is not found/m,
      )
    } finally {
      rmSync(claude)
    }
  })
})

describe('help', () => {
  test('call --help documents positional JSON, stdin and key=@file, with examples, in 80 columns without colour', async () => {
    const result = await run(['call', '--help'])
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toContain("'{json}'")
    expect(result.stdout).toContain('key=@file')
    expect(result.stdout).toMatch(/reads a JSON object from\s+stdin/)
    expect(result.stdout).toContain('Examples:')
    expect(result.stdout).not.toMatch(ANSI)
    for (const line of result.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80)
  })

  test('every command has examples in its help', async () => {
    const top = await run(['--help'])
    expect(top.exitCode).toBe(0)
    for (const line of top.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80)
    const commands = [
      ...top.stdout
        .split('Commands:')[1]!
        .split('\n\n')[0]!
        .matchAll(/^ {2}([a-z-]+)\s/gm),
    ].map((m) => m[1]!)
    expect(commands).toContain('resource')
    for (const command of commands) {
      const help = await run([command, '--help'])
      expect({ command, exit: help.exitCode, examples: help.stdout.includes('Examples:') }).toEqual({ command, exit: 0, examples: true })
    }
  })
})
