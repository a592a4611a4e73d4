/**
 * CPU time per call, the load-independent half of "where the time goes": on a shared 2-core VM a
 * call's latency is mostly run-queue waiting, but the CPU each process burns per call is not. Reads
 * utime+stime of a process tree from /proc (Linux; clock ticks, so use enough calls).
 */
import { readFileSync, readdirSync } from 'node:fs'

const TICK_US = 1_000_000 / 100 // USER_HZ is 100 on Linux

interface ProcStat {
  readonly pid: number
  readonly ppid: number
  readonly ticks: number
}

function readStat(pid: number): ProcStat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the parenthesised command name (which may contain spaces).
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
    return { pid, ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) }
  } catch {
    return null
  }
}

/** CPU (µs) of process `pid` alone (its children not counted). */
export function ownCpuUs(pid: number): number {
  const stat = readStat(pid)
  if (stat === null) throw new Error(`process ${pid} is gone`)
  return stat.ticks * TICK_US
}

/** Total CPU (µs) of `root` and all its descendants alive now. */
export function treeCpuUs(root: number): number {
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readStat(Number(name)))
    .filter((s): s is ProcStat => s !== null)
  const children = new Map<number, ProcStat[]>()
  for (const s of all) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s])
  let total = 0
  const stack = [root]
  while (stack.length) {
    const pid = stack.pop()!
    const stat = all.find((s) => s.pid === pid)
    if (stat) total += stat.ticks * TICK_US
    for (const child of children.get(pid) ?? []) stack.push(child.pid)
  }
  return total
}

export interface CpuPerCall {
  readonly name: string
  readonly calls: number
  /** This (client) process, µs per call. */
  readonly clientUs: number
  /** The server side's process tree (gateway + upstream, or the upstream alone), µs per call. */
  readonly serverUs: number
}

/**
 * `calls` sequential calls per target in interleaved, rotated blocks (as in part 1, so a GC or a
 * neighbour's burst lands on every target alike), CPU split between this client and each server tree.
 */
export async function cpuPerCall(
  targets: readonly { name: string; serverRoot: number; call: () => Promise<void> }[],
  calls: number,
  block: number,
): Promise<CpuPerCall[]> {
  const client = new Map(targets.map((t) => [t.name, 0]))
  const server = new Map(targets.map((t) => [t.name, 0]))
  const rounds = Math.max(1, Math.ceil(calls / block))
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < targets.length; k++) {
      const target = targets[(k + round) % targets.length]!
      const server0 = treeCpuUs(target.serverRoot)
      const client0 = process.cpuUsage()
      for (let i = 0; i < block; i++) await target.call()
      const used = process.cpuUsage(client0)
      server.set(target.name, server.get(target.name)! + treeCpuUs(target.serverRoot) - server0)
      client.set(target.name, client.get(target.name)! + used.user + used.system)
    }
  }
  const n = rounds * block
  return targets.map((t) => ({ name: t.name, calls: n, clientUs: client.get(t.name)! / n, serverUs: server.get(t.name)! / n }))
}

export interface OwnCpuPerCall {
  readonly name: string
  readonly calls: number
  /** The server's own process (the gateway or the relay, not its upstream), µs per call. */
  readonly ownUs: number
}

/**
 * CPU of each target's own server process per call, over enough calls that 10 ms ticks do not
 * matter (10,000 calls of ~50 µs each are ~50 ticks: ±2 % from the tick edges). Interleaved,
 * rotated blocks, as everywhere in this bench.
 */
export async function ownCpuPerCall(
  targets: readonly { name: string; pid: number; call: () => Promise<void> }[],
  calls: number,
  block: number,
): Promise<OwnCpuPerCall[]> {
  const used = new Map(targets.map((t) => [t.name, 0]))
  const rounds = Math.max(1, Math.ceil(calls / block))
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < targets.length; k++) {
      const target = targets[(k + round) % targets.length]!
      const before = ownCpuUs(target.pid)
      for (let i = 0; i < block; i++) await target.call()
      used.set(target.name, used.get(target.name)! + ownCpuUs(target.pid) - before)
    }
  }
  const n = rounds * block
  return targets.map((t) => ({ name: t.name, calls: n, ownUs: used.get(t.name)! / n }))
}
