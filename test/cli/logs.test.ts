/**
 * The daemon log people can read: timestamped lines, one per host session and per upstream
 * connect, rotated by size while the daemon runs; `mcpx logs` prints it. And state written under
 * umask 000 is still private (README "Security").
 */
import { describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { mcpxCommand, runMcpx } from '../harness.ts'
import { layoutForEnv } from '../support/layout.ts'
import { isolatedUser } from './cli-env.ts'
import { callThroughServe } from './serve-host.ts'

describe('the daemon log', () => {
  test('timestamped lines for sessions and upstream connects; rotated while running; `mcpx logs` prints it', async () => {
    using user = isolatedUser('mcpx-logs')
    // A tiny limit checked after every line: the first few lines already rotate it.
    const env = { ...user.env, MCPX_DAEMON_LOG_MAX_BYTES: '400', MCPX_DAEMON_LOG_CHECK_BYTES: '1' }
    const layout = layoutForEnv(env)
    try {
      const served = await callThroughServe([], { ...process.env, ...env } as Record<string, string>, 'demo.echo')
      expect(served.text).toBeDefined()
      const pid = JSON.parse((await runMcpx(['status', '--json'], { env })).stdout).daemon.pid
      await callThroughServe([], { ...process.env, ...env } as Record<string, string>, 'demo.echo')
      const text = `${existsSync(`${layout.daemonLog}.1`) ? readFileSync(`${layout.daemonLog}.1`, 'utf8') : ''}${readFileSync(layout.daemonLog, 'utf8')}`
      expect(existsSync(`${layout.daemonLog}.1`)).toBe(true)
      // Same daemon: it rotated while running, not at a start.
      expect(JSON.parse((await runMcpx(['status', '--json'], { env })).stdout).daemon.pid).toBe(pid)
      const lines = text
        .trim()
        .split('\n')
        .filter((line) => !line.startsWith('  '))
      for (const line of lines) expect(line).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (info |warn |error|debug) /)
      expect(text).toMatch(
        /session opened: test-host 1\.0\.0, revision 2025-06-18 over the stdio channel \(mcpx serve\), surface code-mode/,
      )
      expect(text).toMatch(/upstream demo connected \((modern|legacy) era, revision \d{4}-\d\d-\d\d\)/)
      const printed = await runMcpx(['logs'], { env })
      expect(printed.exitCode).toBe(0)
      expect(printed.stdout).toBe(readFileSync(layout.daemonLog, 'utf8'))
    } finally {
      await runMcpx(['daemon', 'stop'], { env })
    }
  })
})

describe('mcpx logs -n', () => {
  test('the last N lines, as tail -n prints them, across the chunks a long log is read back in', async () => {
    using user = isolatedUser('mcpx-logs-tail')
    const layout = layoutForEnv(user.env)
    mkdirSync(dirname(layout.daemonLog), { recursive: true })
    // Longer than one 64 KB read, so the last lines are found across a chunk boundary.
    const written = Array.from({ length: 3000 }, (_, i) => `2026-12-07T00:00:00.000Z info  line ${i} ${'x'.repeat(i % 50)}\n`).join('')
    writeFileSync(layout.daemonLog, written)
    const tail = (n: string) => runMcpx(['logs', '-n', n], { env: user.env })
    const all = written.split('\n').slice(0, -1)
    for (const n of [1, 2, 1500, 2999]) expect((await tail(String(n))).stdout).toBe(`${all.slice(-n).join('\n')}\n`)
    expect((await tail('3000')).stdout).toBe(written)
    expect((await tail('5000')).stdout).toBe(written)
    expect((await tail('0')).stdout).toBe('')
    // A last line without its newline (the daemon writing it) is one of the N.
    writeFileSync(layout.daemonLog, 'a\nb\nc')
    expect((await runMcpx(['logs', '--lines', '2'], { env: user.env })).stdout).toBe('b\nc')
    const bad = await tail('x')
    expect(bad.exitCode).toBe(2)
    expect(bad.stderr).toContain('--lines must be a whole number of lines; got "x"')
  })
})

describe('private state whatever the umask', () => {
  test('under umask 000, the home, run, log and cache directories are 0700 and every state file 0600', async () => {
    using user = isolatedUser('mcpx-umask')
    const layout = layoutForEnv(user.env)
    const command = [...mcpxCommand(), 'call', 'demo.echo', 'text=hi'].map((word) => `'${word}'`).join(' ')
    await using proc = Bun.spawn(['sh', '-c', `umask 000; exec ${command}`], {
      env: { ...process.env, ...user.env },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    expect(await proc.exited).toBe(0)
    try {
      for (const dir of [layout.home, layout.runDir, layout.logDir, layout.cacheDir])
        expect({ dir, mode: statSync(dir).mode & 0o777 }).toEqual({ dir, mode: 0o700 })
      const files = [
        layout.state,
        layout.token,
        layout.port,
        layout.envSnapshot,
        layout.lock,
        layout.daemonLog,
        ...readdirSync(layout.cacheDir).map((name) => join(layout.cacheDir, name)),
      ]
      expect(files.length).toBeGreaterThan(6)
      for (const file of files) expect({ file, mode: statSync(file).mode & 0o777 }).toEqual({ file, mode: 0o600 })
    } finally {
      await runMcpx(['daemon', 'stop'], { env: user.env })
    }
  })
})
