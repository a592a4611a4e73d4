/**
 * Tool search: a pure, incremental BM25F index over upstream tools (name, title, server,
 * description, parameter names and descriptions) with server filter and limit. The only door.
 */
import type { Settings } from '../settings/index.ts'
import { ToolIndex } from './tool-index.ts'

/** The index: setServer / upsert / remove / removeServer / search(query, {server, limit}). */
export { type SearchHit, type SearchOptions, type ToolDoc, ToolIndex, type ToolIndexOptions } from './tool-index.ts'
/** The tokenizer the index uses (exported for tests and for callers that highlight matches). */
export { SYNONYMS, splitWords, stem, tokenize } from './tokenize.ts'
/** Deterministic synthetic corpus and the search benchmark for scripts/bench.ts. */
export { BENCH_QUERIES, syntheticTools } from './synthetic.ts'
export { type SearchBench, measureSearch } from './bench.ts'

/** A ToolIndex with its default and maximum limits from settings. */
export function createToolIndex(settings: Pick<Settings, 'searchDefaultLimit' | 'searchMaxLimit'>): ToolIndex {
  return new ToolIndex({ defaultLimit: settings.searchDefaultLimit, maxLimit: settings.searchMaxLimit })
}
