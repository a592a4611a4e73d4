/**
 * The CLI's requests over the daemon's Unix socket, against the side-effect fixture: a call slower
 * than the HTTP idle timeout is answered (Bun cannot lift that timeout per request on a Unix
 * listener, so the socket keeps none), and a call cut off by a daemon that dies mid-call fails
 * naming that, and is never sent again (it may have run).
 */
import { describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { REPO_ROOT, errorJson, mcpxCommand, runMcpx } from '../harness.ts'
import { isolatedUser } from './cli-env.ts'

const FIXTURE = join(REPO_ROOT, 'test/fixtures/peers/side-effect-fixture.ts')

function userWithFixture(prefix: string, extraEnv: Record<string, string> = {}) {
  const user = isolatedUser(prefix)
  mkdirSync(dirname(user.configFile), { recursive: true })
  writeFileSync(user.configFile, JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [FIXTURE] } } }))
  return Object.assign(user, { env: { ...user.env, ...extraEnv } })
}

const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [])

describe('the daemon socket', () => {
  test('a call slower than the HTTP idle timeout is answered, once', async () => {
    // Bun closes an idle Unix connection within a few seconds of a 1 s idle timeout; the call takes 6 s.
    using user = userWithFixture('mcpx-socket-slow', { MCPX_HTTP_IDLE_TIMEOUT_MS: '1000' })
    const file = join(user.project, 'ran.txt')
    try {
      const result = await runMcpx(['call', 'fx.append', `file=${file}`, 'line=slow', 'ms=6000'], { env: user.env })
      expect(result).toMatchObject({ exitCode: 0, stdout: 'appended slow\n' })
      expect(lines(file)).toEqual(['slow'])
    } finally {
      await runMcpx(['daemon', 'stop'], { env: user.env })
    }
  })

  test('a daemon killed mid-call: the call fails saying so, and is not sent again', async () => {
    using user = userWithFixture('mcpx-socket-killed')
    const file = join(user.project, 'ran.txt')
    try {
      await using call = Bun.spawn([...mcpxCommand(), 'call', 'fx.append', `file=${file}`, 'line=once', 'ms=5000'], {
        env: { ...process.env, ...user.env },
        stdout: 'pipe',
        stderr: 'pipe',
      })
      // In flight: the upstream has run the side effect and holds the call open.
      while (lines(file).length === 0) await Bun.sleep(20)
      const pid = JSON.parse((await runMcpx(['status', '--json'], { env: user.env })).stdout).daemon.pid as number
      process.kill(pid, 'SIGKILL')
      const [stderr, exitCode] = await Promise.all([new Response(call.stderr).text(), call.exited])
      expect(exitCode).toBe(3)
      expect(errorJson(stderr).error).toMatchObject({ code: 'CONNECT', data: { daemon: 'closed' } })
      expect(errorJson(stderr).error.message).toContain('closed the connection before answering')
      // Long enough for a re-sent call (a fresh daemon, a fresh upstream) to have appended again.
      await Bun.sleep(1500)
      expect(lines(file)).toEqual(['once'])
    } finally {
      await runMcpx(['daemon', 'stop'], { env: user.env })
    }
  })
})
