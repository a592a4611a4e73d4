/**
 * Order statistics for the benchmark: every figure is a quantile of raw samples (nearest rank), and
 * every comparison a ratio of figures taken in the same run (the machine is shared and noisy).
 */

/** Nearest-rank quantile of unsorted samples (q in 0..1). */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return Number.NaN
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
}

export const median = (samples: readonly number[]): number => quantile(samples, 0.5)

export function ratio(a: number, b: number): number {
  return b > 0 ? a / b : Number.NaN
}

/** Fixed-precision number for tables. */
export function fmt(value: number, digits = 2): string {
  if (!Number.isFinite(value)) return 'n/a'
  return value.toFixed(digits)
}

/** Rotate `items` by `by` positions: each round starts with a different target. */
export function rotate<T>(items: readonly T[], by: number): T[] {
  const k = by % items.length
  return [...items.slice(k), ...items.slice(0, k)]
}
