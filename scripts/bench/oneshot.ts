/**
 * Part 2: whole-process wall time of one CLI call (spawn → exit), A/B pairs run alternately
 * (A B A B …) after warm-ups, so machine load hits both sides alike. The ratio is the median of the
 * per-pair ratios, with its min and max; each run's stdout must contain the expected text. Each
 * process's own CPU time (user + system, from its rusage) is reported beside the wall time: on a
 * loaded machine wall time is mostly run-queue waiting, CPU time is not.
 */
import { median } from './stats.ts'

export interface Command {
  readonly name: string
  readonly argv: readonly string[]
  readonly env: Record<string, string>
  /** stdout must contain this (proves the call really happened). */
  readonly expect?: string
}

export interface PairResult {
  readonly a: string
  readonly b: string
  readonly runs: number
  readonly aWallMs: number
  readonly bWallMs: number
  readonly ratio: number
  readonly ratioMin: number
  readonly ratioMax: number
  /** Median CPU time (user + system) of one process of each side, and their ratio. */
  readonly aCpuMs: number
  readonly bCpuMs: number
  readonly cpuRatio: number
}

export interface RunTimes {
  readonly wallMs: number
  readonly cpuMs: number
}

export async function runTimes(command: Command): Promise<RunTimes> {
  const start = performance.now()
  const proc = Bun.spawn([...command.argv], { env: command.env, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  const elapsed = performance.now() - start
  if (code !== 0 || (command.expect !== undefined && !out.includes(command.expect))) {
    throw new Error(
      `${command.name}: exit ${code}, stdout ${JSON.stringify(out.slice(0, 200))}, stderr ${JSON.stringify(err.slice(0, 400))}`,
    )
  }
  const usage = proc.resourceUsage()
  const cpuMs = usage === undefined ? Number.NaN : Number(usage.cpuTime.user + usage.cpuTime.system) / 1000
  return { wallMs: elapsed, cpuMs }
}

export async function measurePair(a: Command, b: Command, runs: number, warmups = 2): Promise<PairResult> {
  for (let i = 0; i < warmups; i++) {
    await runTimes(a)
    await runTimes(b)
  }
  const aTimes: number[] = []
  const bTimes: number[] = []
  const aCpu: number[] = []
  const bCpu: number[] = []
  const ratios: number[] = []
  for (let i = 0; i < runs; i++) {
    // Alternate which side goes first so neither always follows the other's cache effects.
    const first = i % 2 === 0 ? a : b
    const second = first === a ? b : a
    const t1 = await runTimes(first)
    const t2 = await runTimes(second)
    const [ta, tb] = first === a ? [t1, t2] : [t2, t1]
    aTimes.push(ta.wallMs)
    bTimes.push(tb.wallMs)
    aCpu.push(ta.cpuMs)
    bCpu.push(tb.cpuMs)
    ratios.push(ta.wallMs / tb.wallMs)
  }
  return {
    a: a.name,
    b: b.name,
    runs,
    aWallMs: median(aTimes),
    bWallMs: median(bTimes),
    ratio: median(ratios),
    ratioMin: Math.min(...ratios),
    ratioMax: Math.max(...ratios),
    aCpuMs: median(aCpu),
    bCpuMs: median(bCpu),
    cpuRatio: median(aCpu) / median(bCpu),
  }
}
