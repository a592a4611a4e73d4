/**
 * Part 2: whole-process wall time of one CLI call (spawn → exit), A/B pairs run alternately
 * (A B A B …) after warm-ups, so machine load hits both sides alike. The ratio is the median of the
 * per-pair ratios, with its min and max; each run's stdout must contain the expected text.
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
}

export async function wallMs(command: Command): Promise<number> {
  const start = performance.now()
  const proc = Bun.spawn([...command.argv], { env: command.env, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  const elapsed = performance.now() - start
  if (code !== 0 || (command.expect !== undefined && !out.includes(command.expect))) {
    throw new Error(`${command.name}: exit ${code}, stdout ${JSON.stringify(out.slice(0, 200))}, stderr ${JSON.stringify(err.slice(0, 400))}`)
  }
  return elapsed
}

export async function measurePair(a: Command, b: Command, runs: number, warmups = 2): Promise<PairResult> {
  for (let i = 0; i < warmups; i++) {
    await wallMs(a)
    await wallMs(b)
  }
  const aTimes: number[] = []
  const bTimes: number[] = []
  const ratios: number[] = []
  for (let i = 0; i < runs; i++) {
    // Alternate which side goes first so neither always follows the other's cache effects.
    const first = i % 2 === 0 ? a : b
    const second = first === a ? b : a
    const t1 = await wallMs(first)
    const t2 = await wallMs(second)
    const [ta, tb] = first === a ? [t1, t2] : [t2, t1]
    aTimes.push(ta)
    bTimes.push(tb)
    ratios.push(ta / tb)
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
  }
}
