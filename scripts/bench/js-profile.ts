/**
 * Where the daemon's JavaScript time per `/mcp?codemode=false` tools/call goes, beside the relay
 * floor's (relay-floor.ts). Both processes run with js-profile-preload.ts and are sampled by
 * JavaScriptCore's sampling profiler while an SDK 1.x client makes `--calls` sequential calls,
 * after `--warmup` calls so the per-call path is compiled as in a daemon that has served a while.
 * The profiler samples the JS thread only while JavaScript (or a host function it called, such as
 * a pipe's flush) is on its stack, so samples × interval / calls is the time per call with
 * JavaScript on the stack, and each function's self samples say where it went. The daemon is the
 * compiled binary started as `mcpx daemon start` starts it (FTL off, lib/daemon/spawn.ts).
 * Usage: bun scripts/bench/js-profile.ts [--binary path] [--calls 30000] [--warmup 20000] [--top 25]
 *        [--interval-us 250] (the profiler's sampling interval).
 * Markdown on stdout; without --binary the binary is built into the run's temp dir.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { REPO, buildBinary, daemonAndRelayTargets } from './peers.ts'
import { integerFlag } from './flags.ts'
import { fmt } from './stats.ts'

const { values: flags } = parseArgs({
  options: {
    binary: { type: 'string' },
    calls: { type: 'string', default: '30000' },
    warmup: { type: 'string', default: '20000' },
    top: { type: 'string', default: '25' },
    'interval-us': { type: 'string', default: '250' },
  },
})
const count = (name: 'calls' | 'warmup' | 'top' | 'interval-us') => integerFlag(name, flags[name])
/** The pause after each signal (for the profiler to start, then between looks for the preload's file), and how many looks. */
const PROFILE_SIGNAL_WAIT_MS = 200
const PROFILE_WRITE_TRIES = 50

interface Frame {
  readonly name: string
  readonly sourceURL?: string
  readonly category: string
}
interface Profile {
  readonly interval: number
  readonly traces: readonly { readonly frames: readonly Frame[] }[]
}

const intervalUs = count('interval-us')
const dir = mkdtempSync(join(tmpdir(), 'mcpx-js-profile-'))
const profileEnv = {
  BUN_OPTIONS: `--preload=${join(REPO, 'scripts/bench/js-profile-preload.ts')}`,
  MCPX_BENCH_PROFILE_DIR: dir,
  MCPX_BENCH_PROFILE_INTERVAL_US: String(intervalUs),
}

async function profile(pid: number, call: () => Promise<unknown>, calls: number): Promise<Profile> {
  process.kill(pid, 'SIGUSR2')
  await Bun.sleep(PROFILE_SIGNAL_WAIT_MS)
  for (let i = 0; i < calls; i++) await call()
  process.kill(pid, 'SIGUSR2')
  const file = join(dir, `profile-${pid}.json`)
  for (let tries = 0; tries < PROFILE_WRITE_TRIES; tries++) {
    await Bun.sleep(PROFILE_SIGNAL_WAIT_MS)
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as Profile
    } catch {}
  }
  throw new Error(`process ${pid} wrote no profile to ${file}`)
}

const NOT_ATTRIBUTED = '(not attributed: native code or GC)'

/** A frame's name as the table shows it: the function and its file (host functions have none). */
function frameName(frame: Frame): string {
  const file = frame.sourceURL?.replace(`${REPO}/`, '').replace(/^\/\$bunfs\/root\//, '')
  if (frame.name === '' && !file) return NOT_ATTRIBUTED
  return file ? `${frame.name || '(anonymous)'} ${file}` : `${frame.name} (host)`
}

function selfTimes(p: Profile): Map<string, number> {
  const counts = new Map<string, number>()
  for (const trace of p.traces) {
    const top = trace.frames[0]
    const name = top === undefined ? NOT_ATTRIBUTED : frameName(top)
    counts.set(name, (counts.get(name) ?? 0) + 1)
  }
  return counts
}

const calls = count('calls')
const warmup = count('warmup')
const top = count('top')
const binary = flags.binary ?? (await buildBinary(dir))
const { targets, stop } = await daemonAndRelayTargets(binary, dir, profileEnv).catch((error: unknown) => {
  rmSync(dir, { recursive: true, force: true })
  throw error
})
try {
  for (const target of targets) for (let i = 0; i < warmup; i++) await target.call()
  const results = []
  for (const target of targets) {
    const sampled = await profile(target.pid, target.call, calls)
    // One sample stands for `interval` of JavaScript on the stack, spread over the profiled calls.
    results.push({ name: target.name, self: selfTimes(sampled), callUsPerSample: (sampled.interval * 1e6) / calls })
  }
  const perCall = (samples: number, callUsPerSample: number) => fmt(samples * callUsPerSample, 1)
  const when = new Date().toISOString()
  console.log(`## JavaScript on the stack per call (${calls} calls after ${warmup}, every ${intervalUs} µs, ${when})\n`)
  console.log('| process | samples | µs per call | in its own JavaScript | in host functions | not attributed |\n|---|---|---|---|---|---|')
  for (const r of results) {
    const sum = (keep: (name: string) => boolean) => [...r.self].filter(([name]) => keep(name)).reduce((a, [, n]) => a + n, 0)
    const total = sum(() => true)
    const host = sum((name) => name.endsWith(' (host)'))
    const unattributed = sum((name) => name === NOT_ATTRIBUTED)
    const row = [total, total - host - unattributed, host, unattributed].map((n) => perCall(n, r.callUsPerSample))
    console.log(`| ${r.name} | ${total} | ${row.join(' | ')} |`)
  }
  for (const r of results) {
    console.log(`\n### ${r.name}: self time, top ${top}\n\n| function | samples | µs per call |\n|---|---|---|`)
    const ranked = [...r.self.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)
    for (const [name, samples] of ranked) console.log(`| ${name} | ${samples} | ${perCall(samples, r.callUsPerSample)} |`)
  }
} finally {
  await stop()
  rmSync(dir, { recursive: true, force: true })
}
