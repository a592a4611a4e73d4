/**
 * The access room's process-wide caches: the only module-level mutable state of the room (pinned
 * by test/lib/module-state.test.ts).
 */

/** Glob pattern → its RegExp (policy.ts globMatch): a pattern means the same in every policy; patterns come from config, so few. */
export const globRegExps = new Map<string, RegExp>()
