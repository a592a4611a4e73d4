/**
 * A daemon outliving a binary upgrade (README "Daemon"): two compiled binaries built from the same
 * source are two builds (dev builds all say the same version). The daemon one started is named by
 * the other's commands — one stderr line, stdout unchanged — by `status` and by `doctor` (exit
 * non-zero); the daemon is never restarted for the user. The binary that started it says nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO_ROOT, tempDir } from '../harness.ts'
import { isolatedUser } from './cli-env.ts'

const ENV_FIXTURE = join(REPO_ROOT, 'test/fixtures/peers/env-upstream-fixture.ts')
const HINT = 'the running mcpx daemon was started by a different mcpx build'

const bins = tempDir('mcpx-builds')
const first = join(bins.path, 'mcpx-first')
const second = join(bins.path, 'mcpx-second')
const user = isolatedUser('mcpx-build')
const config = join(user.project, 'mcpx.json')

async function run(exe: string, args: string[]) {
  await using proc = Bun.spawn([exe, ...args, '--config', config], {
    cwd: user.project,
    env: { ...process.env, ...user.env, MCPX_CLI_SLOW_NOTICE_MS: '600000' },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { stdout, stderr, exitCode }
}

beforeAll(async () => {
  for (const outfile of [first, second]) {
    const build = Bun.spawnSync([process.execPath, join(REPO_ROOT, 'scripts/build.ts'), '--outfile', outfile], {
      cwd: REPO_ROOT,
      stdout: 'ignore',
      stderr: 'pipe',
    })
    if (build.exitCode !== 0) throw new Error(`build ${outfile} failed: ${build.stderr.toString()}`)
  }
  writeFileSync(config, JSON.stringify({ mcpServers: { alpha: { command: process.execPath, args: [ENV_FIXTURE] } } }))
})

afterAll(async () => {
  await run(first, ['daemon', 'stop'])
  user[Symbol.dispose]()
  bins[Symbol.dispose]()
})

describe('a daemon from another build', () => {
  test('the binary that started it says nothing; another binary says so on stderr, in status and doctor, and restarts nothing', async () => {
    expect((await run(first, ['daemon', 'start'])).exitCode).toBe(0)
    const pid = JSON.parse((await run(first, ['status', '--json'])).stdout).daemon.pid as number

    const same = await run(first, ['call', 'alpha.where'])
    expect(same).toEqual({ stdout: `${user.project}\n`, stderr: '', exitCode: 0 })
    const sameStatus = await run(first, ['status'])
    expect(sameStatus.stdout).not.toContain(HINT)
    expect(JSON.parse((await run(first, ['status', '--json'])).stdout).otherBuild).toBe(false)

    // The warm call: the same stdout, one stderr line naming the cause and the fix.
    const other = await run(second, ['call', 'alpha.where'])
    expect(other.stdout).toBe(same.stdout)
    expect(other.exitCode).toBe(0)
    expect(other.stderr).toBe(`mcpx: ${HINT} than this one; run \`mcpx daemon restart\` to use this build\n`)

    const status = await run(second, ['status'])
    expect(status.exitCode).toBe(0)
    expect(status.stderr).toBe('')
    expect(status.stdout).toContain(`build    ${HINT} (${first} as it was when the daemon started)`)
    expect(JSON.parse((await run(second, ['status', '--json'])).stdout).otherBuild).toBe(true)

    const doctor = await run(second, ['doctor', '--json'])
    // A daemon of another build is fixed by a restart: a setup problem (2), not a connection failure (3).
    expect(doctor.exitCode).toBe(2)
    const checks = JSON.parse(doctor.stdout) as { check: string; ok: boolean; detail: string }[]
    expect(checks.find((c) => c.check === 'daemon build')).toEqual({
      check: 'daemon build',
      ok: false,
      detail: `${HINT} (${first} as it was when the daemon started) than this one; run \`mcpx daemon restart\` to use this build`,
    })
    expect(JSON.parse(doctor.stderr.trim().split('\n').at(-1)!).error.data.failed).toContain('daemon build')
    const sameDoctor = JSON.parse((await run(first, ['doctor', '--json'])).stdout) as { check: string; ok: boolean }[]
    expect(sameDoctor.find((c) => c.check === 'daemon build')?.ok).toBe(true)

    // A request the daemon rejects as USAGE (what an older build does with what it does not know) carries the hint.
    const rejected = await run(second, ['daemon', 'request', '--server', 'alpha', '--method', 'nope/nope'])
    expect(rejected.exitCode).toBe(2)
    expect(rejected.stdout).toBe('')
    expect(rejected.stderr).toContain(`is not passed on`)
    expect(rejected.stderr.split('\n').find((line) => line.startsWith('mcpx: ') && line.includes('is not passed on'))).toContain(
      `(${HINT} than this one; run \`mcpx daemon restart\``,
    )
    const rejectedSame = await run(first, ['daemon', 'request', '--server', 'alpha', '--method', 'nope/nope'])
    expect(rejectedSame.stderr).not.toContain(HINT)

    // Not restarted: the daemon the first binary started still serves.
    expect(JSON.parse((await run(second, ['status', '--json'])).stdout).daemon.pid).toBe(pid)
    const restarted = await run(second, ['daemon', 'restart'])
    expect(restarted.exitCode).toBe(0)
    expect(restarted.stderr).toBe('')
    expect(restarted.stdout).not.toContain(HINT)
    expect(await run(second, ['call', 'alpha.where'])).toEqual({ stdout: `${user.project}\n`, stderr: '', exitCode: 0 })
    await run(second, ['daemon', 'stop'])
  })
})
