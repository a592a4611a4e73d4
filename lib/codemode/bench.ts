/**
 * Measurement helpers for scripts/bench.ts: warm exec start latency and tool-call throughput of a
 * sandbox pool, with an in-process echo bridge so only the sandbox path is timed.
 */
import type { ExecBridge, SandboxPool } from './sandbox-pool.ts'

export interface LatencySummary {
  readonly runs: number
  readonly medianMs: number
  readonly p95Ms: number
  readonly minMs: number
}

/** A bridge with one server `bench` and one tool `echo` that returns its arguments. */
export function echoBridge(): ExecBridge {
  return { namespaces: { bench: ['echo'] }, call: async (_name, args) => args, search: async () => [] }
}

export function summarize(samples: number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN
  return { runs: sorted.length, medianMs: at(0.5), p95Ms: at(0.95), minMs: sorted[0] ?? Number.NaN }
}

/** Round trip of `return 1` on a warm pool (after `warmup` unmeasured runs). */
export async function measureExecStart(pool: SandboxPool, runs = 50, warmup = 10): Promise<LatencySummary> {
  const bridge = echoBridge()
  await pool.warm()
  for (let i = 0; i < warmup; i++) await pool.exec('return 1', bridge)
  const samples: number[] = []
  for (let i = 0; i < runs; i++) {
    const start = performance.now()
    await pool.exec('return 1', bridge)
    samples.push(performance.now() - start)
  }
  return summarize(samples)
}

/** One script making `calls` sequential awaits, then one making them all at once (Promise.all). */
export async function measureToolCalls(
  pool: SandboxPool,
  calls = 1000,
): Promise<{ sequentialMs: number; parallelMs: number; calls: number }> {
  const bridge = echoBridge()
  await pool.warm()
  let start = performance.now()
  await pool.exec(`for (let i = 0; i < ${calls}; i++) await bench.echo({ i }); return ${calls}`, bridge)
  const sequentialMs = performance.now() - start
  start = performance.now()
  await pool.exec(`return (await Promise.all(Array.from({ length: ${calls} }, (_, i) => bench.echo({ i })))).length`, bridge)
  return { sequentialMs, parallelMs: performance.now() - start, calls }
}
