/**
 * The search room's process-wide caches: the only module-level mutable state of the room (pinned
 * by test/lib/module-state.test.ts).
 */

/**
 * word → search term ('' = dropped), for tokenize.ts: a word stems the same in every index of the
 * process, and tool vocabularies are small, so most words are seen before. Cleared when full.
 */
export const termCache = new Map<string, string>()
