/**
 * Measurement helper for scripts/bench.ts: build an index of `toolCount` synthetic tools and time
 * the benchmark queries.
 */
import { BENCH_QUERIES, syntheticTools } from './synthetic.ts'
import { ToolIndex } from './tool-index.ts'

export interface SearchBench {
  readonly tools: number
  readonly buildMs: number
  readonly queries: number
  readonly p50Ms: number
  readonly p95Ms: number
}

export function measureSearch(toolCount = 10_000, rounds = 20, queries: readonly string[] = BENCH_QUERIES): SearchBench {
  const index = new ToolIndex()
  const corpus = syntheticTools(toolCount)
  const start = performance.now()
  for (const { server, tool } of corpus) index.upsert(server, tool)
  const buildMs = performance.now() - start
  const samples: number[] = []
  for (let r = 0; r < rounds; r++) {
    for (const query of queries) {
      const t = performance.now()
      index.search(query)
      samples.push(performance.now() - t)
    }
  }
  samples.sort((a, b) => a - b)
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!
  return { tools: index.size, buildMs, queries: samples.length, p50Ms: at(0.5), p95Ms: at(0.95) }
}
