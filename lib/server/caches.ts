/**
 * The server room's process-wide caches: the only module-level mutable state of the room (pinned
 * by test/lib/module-state.test.ts).
 */
import type { KeyRing } from './seal.ts'

/**
 * Key file path → its key ring (seal.ts keyRingFor), read once per process per path; '' is the
 * random per-process ring. Process-wide because a state token sealed by one engine of this process
 * must open in another that names the same file (and the random ring is per process by definition).
 */
export const keyRings = new Map<string, KeyRing>()
