/**
 * Part 1: tools/call latency over persistent clients. Every target is
 * warmed, then timed in blocks of `block` sequential calls, interleaved (A B C …) with the order
 * rotated each round, so machine noise lands on every target alike. Per target: p50/p99 over all
 * samples, and the "paired" ratio = median over rounds of (block p50 / the reference's block p50).
 */
import { median, quantile, rotate } from './stats.ts'

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

/** a.block / b.block for each round (same round, so the same machine state), in round order. */
function roundRatios(a: TargetResult, b: TargetResult): number[] {
  return a.blockP50Us.map((value, i) => value / b.blockP50Us[i]!)
}

/** Median over rounds of a.block / b.block. */
export function pairedRatio(a: TargetResult, b: TargetResult): number {
  return median(roundRatios(a, b))
}

/**
 * The middle half of those per-round ratios (first and third quartile): how far single rounds
 * scatter around pairedRatio, so a target a few per cent away from it reads as inside or outside
 * the run's own noise.
 */
export function pairedQuartiles(a: TargetResult, b: TargetResult): readonly [number, number] {
  const ratios = roundRatios(a, b)
  return [quantile(ratios, 0.25), quantile(ratios, 0.75)]
}
