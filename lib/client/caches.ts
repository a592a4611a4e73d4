/**
 * The client room's process-wide caches: the only module-level mutable state of the room (pinned
 * by test/lib/module-state.test.ts).
 */
import type { Verdict } from './verdict-cache.ts'

/**
 * Era verdicts by configuration key (verdict-cache.ts), in memory: process-wide because the spec
 * asks for exactly that scope (2026-07-28 basic/versioning.mdx "Backward Compatibility with
 * Initialization-Based Versions": clients SHOULD cache the era per process/origin).
 */
export const eraVerdicts = new Map<string, Verdict>()
