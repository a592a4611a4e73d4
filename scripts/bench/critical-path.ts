/**
 * Where along a call's critical path the daemon spends its time, beside the relay floor
 * (relay-floor.ts): the two stretches a gateway process holds a `/mcp?codemode=false` tools/call,
 * timed by the kernel's own syscall tracepoints on each process's main thread while an SDK 1.x
 * client makes sequential calls:
 *  - the request side: from the read that returns the host's request to the write that hands it to
 *    the upstream (everything a gateway must do before the upstream may start);
 *  - the answer side: from the read that returns the upstream's answer to the write that sends it
 *    to the host.
 * Work done after either write overlaps with the other process's (the machine has more than one
 * core), so these two stretches are what a call's latency pays for in the gateway. Tracing adds a
 * little to each system call; both processes make the same calls per call, so the difference
 * between them is the gateway's own work. Rounds alternate the targets, so a change in the
 * machine's state lands on both. Each round also makes as many calls untraced and reads every
 * thread's CPU time from /proc (Linux; 10 ms ticks, so use enough calls): which threads the CPU per
 * call is spent on (the main thread, or the runtime's helpers: JIT compilers, the collector's).
 * Needs `perf` (Debian: linux-perf) and permission to trace the two processes.
 * Usage: bun scripts/bench/critical-path.ts [--binary path] [--calls 6000] [--warmup 5000] [--rounds 3].
 * Markdown on stdout.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { buildBinary, daemonAndRelayTargets } from './peers.ts'
import { integerFlag } from './flags.ts'
import { recordWhile, requirePerf } from './perf-record.ts'
import { fmt, median, quantile } from './stats.ts'

const { values: flags } = parseArgs({
  options: {
    binary: { type: 'string' },
    calls: { type: 'string', default: '6000' },
    warmup: { type: 'string', default: '5000' },
    rounds: { type: 'string', default: '3' },
  },
})
const calls = integerFlag('calls', flags.calls)
const warmup = integerFlag('warmup', flags.warmup)
const rounds = integerFlag('rounds', flags.rounds)

requirePerf('critical-path')

/** x86-64 system call numbers (arch/x86/entry/syscalls/syscall_64.tbl) that move a call's bytes. */
const READS = new Set([0, 45, 47]) // read, recvfrom, recvmsg
const WRITES = new Set([1, 20, 44, 46]) // write, writev, sendto, sendmsg
const OPENS = new Set([2, 257]) // open, openat
const CLOSE = 3

interface Stretches {
  readonly request: number[]
  readonly answer: number[]
  syscalls: number
  cycles: number
  /** Clock ticks by thread ('main', or the runtime's name for a helper) over the untraced calls. */
  readonly ticks: Map<string, number>
  untracedCalls: number
}

/** USER_HZ: /proc reports CPU time in these ticks. */
const TICK_US = 10_000

/** utime + stime of every thread of `pid`, by thread: the main thread, else its name without a trailing number. */
function threadTicks(pid: number): Map<string, number> {
  const ticks = new Map<string, number>()
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
    } catch {
      continue // the thread ended meanwhile
    }
    const name = Number(tid) === pid ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/\d+$/, '#')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    ticks.set(name, (ticks.get(name) ?? 0) + Number(fields[11]) + Number(fields[12]))
  }
  return ticks
}

const SYS_ENTER = /^\s*(\d+)\s+([\d.]+):\s+raw_syscalls:sys_enter:\s+NR (\d+) \(([0-9a-f]+)/
const SYS_EXIT = /^\s*(\d+)\s+([\d.]+):\s+raw_syscalls:sys_exit:\s+NR (\d+) = (-?\d+)/

/**
 * The two stretches of every complete call in one trace of process `pid`'s main thread: a read from
 * a connection C, a write to another fd (the upstream), a read from a third (its answer), a write
 * back to C. Files the process opens meanwhile (the runtime reads a few now and then) are not
 * connections: their reads are left out. A new request on C before the cycle closed starts it over.
 */
function stretchesOf(script: string, pid: number, into: Stretches): void {
  type State =
    | { at: 'idle' }
    | { at: 'request'; client: number; since: number }
    | { at: 'waiting'; client: number }
    | { at: 'answer'; client: number; since: number }
  let state: State = { at: 'idle' }
  const files = new Set<number>()
  let enteredFd = -1
  let syscalls = 0
  for (const line of script.split('\n')) {
    const enter = SYS_ENTER.exec(line)
    if (enter !== null) {
      if (Number(enter[1]) !== pid) continue
      syscalls++
      const nr = Number(enter[3])
      const fd = Number.parseInt(enter[4]!, 16)
      enteredFd = fd
      if (nr === CLOSE) files.delete(fd)
      if (!WRITES.has(nr)) continue
      const seconds = Number(enter[2])
      if (state.at === 'request' && fd !== state.client && !files.has(fd)) {
        into.request.push((seconds - state.since) * 1e6)
        state = { at: 'waiting', client: state.client }
      } else if (state.at === 'answer' && fd === state.client) {
        into.answer.push((seconds - state.since) * 1e6)
        into.cycles++
        into.syscalls += syscalls
        state = { at: 'idle' }
      }
      continue
    }
    const exit = SYS_EXIT.exec(line)
    if (exit === null || Number(exit[1]) !== pid) continue
    const nr = Number(exit[3])
    const returned = Number(exit[4])
    if (OPENS.has(nr) && returned >= 0) files.add(returned)
    if (!READS.has(nr) || returned <= 0 || files.has(enteredFd)) continue
    const seconds = Number(exit[2])
    if (state.at === 'idle' || (state.at !== 'request' && enteredFd === state.client)) {
      state = { at: 'request', client: enteredFd, since: seconds }
      syscalls = 1
    } else if (state.at === 'waiting') state = { at: 'answer', client: state.client, since: seconds }
  }
}

const dir = mkdtempSync(join(tmpdir(), 'mcpx-critical-path-'))
const binary = flags.binary ?? (await buildBinary(dir))
const { targets, stop } = await daemonAndRelayTargets(binary, dir, {}).catch((error: unknown) => {
  rmSync(dir, { recursive: true, force: true })
  throw error
})
const measured = new Map<string, Stretches>(
  targets.map((t) => [t.name, { request: [], answer: [], syscalls: 0, cycles: 0, ticks: new Map(), untracedCalls: 0 }]),
)
try {
  for (const target of targets) for (let i = 0; i < warmup; i++) await target.call()
  const perRound = Math.max(1, Math.ceil(calls / rounds))
  for (let round = 0; round < rounds; round++) {
    for (const target of round % 2 === 0 ? targets : [...targets].reverse()) {
      const into = measured.get(target.name)!
      const before = threadTicks(target.pid)
      for (let i = 0; i < perRound; i++) await target.call()
      for (const [thread, ticks] of threadTicks(target.pid))
        into.ticks.set(thread, (into.ticks.get(thread) ?? 0) + ticks - (before.get(thread) ?? 0))
      into.untracedCalls += perRound
      const data = join(dir, `trace-${target.pid}-${round}.data`)
      await recordWhile(target.pid, ['-e', 'raw_syscalls:sys_enter,raw_syscalls:sys_exit'], data, async () => {
        for (let i = 0; i < perRound; i++) await target.call()
      })
      const script = Bun.spawnSync(['perf', 'script', '-i', data, '-F', 'tid,time,event,trace'], { stdout: 'pipe', stderr: 'pipe' })
      if (script.exitCode !== 0) throw new Error(`perf script failed: ${script.stderr.toString()}`)
      stretchesOf(script.stdout.toString(), target.pid, into)
    }
  }
} finally {
  await stop()
  rmSync(dir, { recursive: true, force: true })
}

const rows = targets.map((target) => {
  const m = measured.get(target.name)!
  return { name: target.name, m, request: m.request, answer: m.answer }
})
const p50 = median
const quartiles = (values: number[]) => `${fmt(p50(values), 1)} (${fmt(quantile(values, 0.25), 1)}–${fmt(quantile(values, 0.75), 1)})`
console.log(
  `## A call's critical path in each gateway process (perf syscall tracepoints, ${calls} calls after ${warmup}, ${rounds} rounds, ${new Date().toISOString()})\n`,
)
console.log(
  '| µs, p50 (middle half) | request side: host read → upstream write | answer side: upstream read → host write | system calls per call | complete calls |',
)
console.log('|---|---|---|---|---|')
for (const r of rows)
  console.log(
    `| ${r.name} | ${quartiles(r.request)} | ${quartiles(r.answer)} | ${fmt(r.m.syscalls / Math.max(1, r.m.cycles), 1)} | ${r.m.cycles} |`,
  )
const threads = [...new Set(rows.flatMap((r) => [...r.m.ticks.keys()]))].filter((t) => rows.some((r) => (r.m.ticks.get(t) ?? 0) > 0))
const cpu = (r: (typeof rows)[number], thread?: string) => {
  const ticks = thread === undefined ? [...r.m.ticks.values()].reduce((a, b) => a + b, 0) : (r.m.ticks.get(thread) ?? 0)
  return fmt((ticks * TICK_US) / Math.max(1, r.m.untracedCalls), 1)
}
console.log(
  `\nCPU per call by thread, µs, over the untraced calls (${rows[0]?.m.untracedCalls ?? 0} per target; threads with none left out):\n`,
)
console.log(`| thread | ${rows.map((r) => r.name).join(' | ')} |\n|---|${rows.map(() => '---|').join('')}`)
console.log(`| all | ${rows.map((r) => cpu(r)).join(' | ')} |`)
for (const thread of threads.sort((a, b) => (a === 'main' ? -1 : b === 'main' ? 1 : a.localeCompare(b))))
  console.log(`| ${thread} | ${rows.map((r) => cpu(r, thread)).join(' | ')} |`)
const [daemon, floor] = rows
if (daemon !== undefined && floor !== undefined) {
  const over = (a: number[], b: number[]) => `${fmt(p50(a) - p50(b), 1)} µs (${fmt(p50(a) / p50(b), 2)}×)`
  console.log(
    `\nThe daemon over the floor at p50: request side ${over(daemon.request, floor.request)}, answer side ${over(daemon.answer, floor.answer)}.`,
  )
}
