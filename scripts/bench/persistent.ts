/**
 * Part 1: tools/call latency over persistent clients. Every target is
 * warmed, then timed in blocks of `block` sequential calls, interleaved (A B C …) with the order
 * rotated each round, so machine noise lands on every target alike. Per target: p50/p99 over all
 * samples, and the "paired" ratio = median over rounds of (block p50 / the reference's block p50).
 */
import { median, quantile, ratio, rotate } from './stats.ts'

export interface CallTarget {
  readonly name: string
  readonly describe: string
  call(): Promise<void>
}

export interface TargetResult {
  readonly name: string
  readonly describe: string
  readonly calls: number
  readonly p50Us: number
  readonly p99Us: number
  /** Block p50 of each round, in µs, in round order. */
  readonly blockP50Us: number[]
}

export interface PersistentOptions {
  readonly calls: number
  readonly block: number
  readonly warmup: number
}

export async function measurePersistent(targets: readonly CallTarget[], options: PersistentOptions): Promise<TargetResult[]> {
  for (const target of targets) for (let i = 0; i < options.warmup; i++) await target.call()
  const samples = new Map<string, number[]>(targets.map((t) => [t.name, []]))
  const blocks = new Map<string, number[]>(targets.map((t) => [t.name, []]))
  const rounds = Math.max(1, Math.ceil(options.calls / options.block))
  for (let round = 0; round < rounds; round++) {
    for (const target of rotate(targets, round)) {
      const block: number[] = []
      for (let i = 0; i < options.block; i++) {
        const start = performance.now()
        await target.call()
        block.push((performance.now() - start) * 1000)
      }
      samples.get(target.name)!.push(...block)
      blocks.get(target.name)!.push(median(block))
    }
  }
  return targets.map((t) => {
    const all = samples.get(t.name)!
    return {
      name: t.name,
      describe: t.describe,
      calls: all.length,
      p50Us: quantile(all, 0.5),
      p99Us: quantile(all, 0.99),
      blockP50Us: blocks.get(t.name)!,
    }
  })
}

/** Two targets of one run compared: p50 and p99 ratios, and the paired ratio with its rounds' spread. */
export interface RatioRow {
  readonly a: string
  readonly b: string
  readonly p50: number
  /** Median over rounds of a.block / b.block (same round, so the same machine state). */
  readonly paired: number
  /**
   * First and third quartile of those per-round ratios: how far single rounds scatter around
   * `paired`, so a target a few per cent away from it reads as inside or outside the run's own noise.
   */
  readonly pairedQuartiles: readonly [number, number]
  readonly p99: number
}

export function ratioRow(a: TargetResult, b: TargetResult): RatioRow {
  const rounds = a.blockP50Us.map((value, i) => value / b.blockP50Us[i]!)
  return {
    a: a.name,
    b: b.name,
    p50: ratio(a.p50Us, b.p50Us),
    paired: median(rounds),
    pairedQuartiles: [quantile(rounds, 0.25), quantile(rounds, 0.75)],
    p99: ratio(a.p99Us, b.p99Us),
  }
}
