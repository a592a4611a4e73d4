/**
 * Where all of the daemon's CPU per `/mcp?codemode=false` tools/call goes, native code and kernel
 * included, beside the relay floor's (relay-floor.ts). js-profile.ts sees only time with
 * JavaScript on the stack; this samples each whole process with `perf record -g` (cpu-clock, so
 * the samples' periods add up to the process's CPU time) while an SDK 1.x client makes `--calls`
 * sequential calls after `--warmup`. Both processes write JavaScriptCore's JIT dump
 * (BUN_JSC_useJITDump), which names the compiled JavaScript in the call chains; bun's own code is
 * stripped, so native frames are told apart only as bun, libc or kernel. Each sample is put on
 * one side, JavaScript on the stack or not, and by the frame it ran in. Samples with JavaScript on
 * the stack are also charged to the nearest named JavaScript function (inlined frames the JIT does
 * not name are charged to the function they were inlined into), with everything they called.
 * The JIT dump costs each process time of its own (its writes, and perf reading it): with `--regions`
 * the processes run without it and only the first table is printed, each sample put by the code it
 * was in (compiled JavaScript, bun, libc or the kernel): the split to compare totals by.
 * Needs `perf` (Debian: linux-perf) and permission to attach to the two processes.
 * `--named` builds the daemon without shipped bytecode, whose functions the JIT dump cannot name
 * (scripts/build.ts `--no-bytecode`): without it, much of the daemon's own code is charged to
 * "(no named function)". The code that runs per call is the same either way.
 * Usage: bun scripts/bench/native-profile.ts [--binary path | --named] [--calls 8000] [--warmup 10000]
 *        [--frequency 4999] [--top 20] [--regions]. Markdown on stdout.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { buildBinary, daemonAndRelayTargets } from './peers.ts'
import { integerFlag } from './flags.ts'
import { recordWhile, requirePerf } from './perf-record.ts'
import { fmt } from './stats.ts'

const { values: flags } = parseArgs({
  options: {
    binary: { type: 'string' },
    calls: { type: 'string', default: '8000' },
    warmup: { type: 'string', default: '10000' },
    frequency: { type: 'string', default: '4999' },
    top: { type: 'string', default: '20' },
    regions: { type: 'boolean', default: false },
    named: { type: 'boolean', default: false },
  },
})
const count = (name: 'calls' | 'warmup' | 'frequency' | 'top') => integerFlag(name, flags[name])
const calls = count('calls')
const warmup = count('warmup')
const frequency = count('frequency')
const top = count('top')
/** JIT dump record ids and layout: linux tools/perf/Documentation/jitdump-specification.txt. */
const JIT_CODE_LOAD = 0
const JIT_HEADER_SIZE_OFFSET = 8
const JIT_RECORD_HEADER_BYTES = 16
const JIT_CODE_LOAD_FIXED_BYTES = 40

requirePerf('native-profile')

interface JitSymbol {
  readonly start: bigint
  readonly end: bigint
  readonly name: string
}

/** The code-load records of one process's JIT dump, sorted by address (later loads at an address win). */
function readJitDump(file: string): JitSymbol[] {
  const bytes = readFileSync(file)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const symbols: JitSymbol[] = []
  for (let at = view.getUint32(JIT_HEADER_SIZE_OFFSET, true); at + JIT_RECORD_HEADER_BYTES <= bytes.length; ) {
    const id = view.getUint32(at, true)
    const size = view.getUint32(at + 4, true)
    if (size === 0 || at + size > bytes.length) break
    if (id === JIT_CODE_LOAD) {
      const body = at + JIT_RECORD_HEADER_BYTES
      const start = view.getBigUint64(body + 16, true)
      const codeSize = view.getBigUint64(body + 24, true)
      const nameStart = body + JIT_CODE_LOAD_FIXED_BYTES
      const name = bytes.toString('utf8', nameStart, bytes.indexOf(0, nameStart))
      symbols.push({ start, end: start + codeSize, name })
    }
    at += size
  }
  return symbols.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0))
}

function jitName(symbols: readonly JitSymbol[], ip: bigint): string | undefined {
  let low = 0
  let high = symbols.length - 1
  let found: JitSymbol | undefined
  while (low <= high) {
    const mid = (low + high) >> 1
    if (symbols[mid]!.start <= ip) {
      found = symbols[mid]
      low = mid + 1
    } else high = mid - 1
  }
  return found && ip < found.end ? found.name : undefined
}

type Region = 'JIT code' | 'bun' | 'libc' | 'kernel'

/**
 * The region of a sample's own frame by perf's name for its mapping. Without a JIT dump, compiled
 * JavaScript is the runtime's perf map (`/tmp/perf-<pid>.map`) or, without one, anonymous `[JIT]` memory.
 */
function regionOf(dso: string): Region {
  return dso.includes('[JIT]') || PERF_MAP.test(dso) ? 'JIT code' : nativeRegionOf(dso)
}
const PERF_MAP = /\/perf-\d+\.map$/

/** Code that is not compiled JavaScript, by its mapping. */
function nativeRegionOf(dso: string): Exclude<Region, 'JIT code'> {
  return dso.includes('kernel') ? 'kernel' : dso.includes('libc') ? 'libc' : 'bun'
}

/** `--regions`: each sample's period by the region of its own frame. */
function regionsOf(perfData: string): Split {
  const script = Bun.spawnSync(['perf', 'script', '-i', perfData, '-F', 'period,ip,dso'], { stdout: 'pipe', stderr: 'pipe' })
  if (script.exitCode !== 0) throw new Error(`perf script failed: ${script.stderr.toString()}`)
  const bySide = new Map<string, number>()
  let total = 0
  for (const line of script.stdout.toString().split('\n')) {
    const match = /^\s*(\d+)\s+[0-9a-f]+\s+\((.*)\)\s*$/.exec(line)
    if (match === null) continue
    const period = Number(match[1])
    total += period
    const region = regionOf(match[2]!)
    bySide.set(region, (bySide.get(region) ?? 0) + period)
  }
  return { total, bySide, byFunction: new Map() }
}

interface Split {
  readonly total: number
  readonly bySide: Map<string, number>
  readonly byFunction: Map<string, number>
}

/** A named JavaScript function (JSC-Baseline/DFG/FTL: name#hash), not a thunk, cache stub or unnamed inline. */
function functionOf(name: string): string | undefined {
  const match = /^JSC-(?:Baseline|DFG|FTL|BaselineJIT)[^:]*: ([^#<]+)#/.exec(name)
  return match?.[1]
}

function split(perfData: string, symbols: readonly JitSymbol[]): Split {
  const script = Bun.spawnSync(['perf', 'script', '-i', perfData, '-F', 'period,ip,dso'], { stdout: 'pipe', stderr: 'pipe' })
  if (script.exitCode !== 0) throw new Error(`perf script failed: ${script.stderr.toString()}`)
  const bySide = new Map<string, number>()
  const byFunction = new Map<string, number>()
  const add = (map: Map<string, number>, key: string, ns: number) => map.set(key, (map.get(key) ?? 0) + ns)
  let total = 0
  for (const sample of script.stdout.toString().split('\n\n')) {
    const lines = sample.trim().split('\n')
    const period = Number(lines[0]?.trim())
    if (!Number.isFinite(period) || lines.length < 2) continue
    total += period
    let leaf: Region | undefined
    let onStack = false
    let charged: string | undefined
    for (const line of lines.slice(1)) {
      const [address = '', dso = ''] = line.trim().split(/\s+/, 2)
      const jit = jitName(symbols, BigInt(`0x${address}`))
      const region: Region = jit !== undefined ? 'JIT code' : nativeRegionOf(dso)
      leaf ??= region
      if (jit === undefined) continue
      onStack = true
      charged = functionOf(jit)
      if (charged !== undefined) break
    }
    add(bySide, `${onStack ? 'JavaScript on the stack' : 'no JavaScript on the stack'}, in ${leaf}`, period)
    if (onStack) add(byFunction, charged ?? '(no named function)', period)
  }
  return { total, bySide, byFunction }
}

const dir = mkdtempSync(join(tmpdir(), 'mcpx-native-profile-'))
const jitDumps = join(dir, 'jit')
mkdirSync(jitDumps)
const profileEnv: Record<string, string> = flags.regions ? {} : { BUN_JSC_useJITDump: '1', BUN_JSC_jitDumpDirectory: jitDumps }
const binary = flags.binary ?? (await buildBinary(dir, flags.named ? ['--no-bytecode'] : []))
const recorded: Array<{ name: string; pid: number; data: string }> = []
const { targets, stop } = await daemonAndRelayTargets(binary, dir, profileEnv).catch((error: unknown) => {
  rmSync(dir, { recursive: true, force: true })
  throw error
})
try {
  for (const target of targets) for (let i = 0; i < warmup; i++) await target.call()
  for (const target of targets) {
    const data = join(dir, `perf-${target.pid}.data`)
    const chains = flags.regions ? [] : ['-g']
    await recordWhile(target.pid, ['-F', String(frequency), ...chains], data, async () => {
      for (let i = 0; i < calls; i++) await target.call()
    })
    recorded.push({ name: target.name, pid: target.pid, data })
  }
} finally {
  await stop()
}
try {
  const results = recorded.map((r) => {
    if (flags.regions) return { ...r, split: regionsOf(r.data) }
    // JSC names the file jit-<thread>-<pid>.dump.
    const dump = readdirSync(jitDumps).find((file) => file.endsWith(`-${r.pid}.dump`))
    if (dump === undefined) throw new Error(`process ${r.pid} wrote no JIT dump to ${jitDumps}`)
    return { ...r, split: split(r.data, readJitDump(join(jitDumps, dump))) }
  })
  const perCall = (ns: number) => fmt(ns / 1000 / calls, 1)
  const sides = [...new Set(results.flatMap((r) => [...r.split.bySide.keys()]))].sort()
  const how = flags.regions ? 'by the code each sample was in, no JIT dump' : 'by where it ran'
  console.log(`## CPU per call ${how} (perf, ${calls} calls after ${warmup}, ${frequency} Hz, ${new Date().toISOString()})\n`)
  console.log(`| µs per call | ${results.map((r) => r.name).join(' | ')} |\n|---|${results.map(() => '---|').join('')}`)
  console.log(`| all | ${results.map((r) => perCall(r.split.total)).join(' | ')} |`)
  for (const side of sides) console.log(`| ${side} | ${results.map((r) => perCall(r.split.bySide.get(side) ?? 0)).join(' | ')} |`)
  for (const r of flags.regions ? [] : results) {
    console.log(`\n### ${r.name}: JavaScript functions with what they called, top ${top}\n\n| function | µs per call |\n|---|---|`)
    const ranked = [...r.split.byFunction.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)
    for (const [name, ns] of ranked) console.log(`| ${name} | ${perCall(ns)} |`)
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
