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

/** Run `calls` sequential calls and split their CPU between the client and the server tree. */
export async function cpuPerCall(name: string, serverRoot: number, call: () => Promise<void>, calls: number): Promise<CpuPerCall> {
  const server0 = treeCpuUs(serverRoot)
  const client0 = process.cpuUsage()
  for (let i = 0; i < calls; i++) await call()
  const client = process.cpuUsage(client0)
  const server = treeCpuUs(serverRoot) - server0
  return { name, calls, clientUs: (client.user + client.system) / calls, serverUs: server / calls }
}
