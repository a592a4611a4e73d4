/**
 * The wire room's process-wide caches: the only module-level mutable state of the room (pinned by
 * test/lib/module-state.test.ts).
 */
import type { Revision } from './constants.ts'
import type { MethodIndex } from './matrix/methods.ts'

/**
 * Per revision, the method index built from the matrix (matrix/methods.ts): [core only, core +
 * extensions]. Process-wide because the matrix is constant data, the same for every connection.
 */
export const methodIndexes = new Map<Revision, [MethodIndex?, MethodIndex?]>()
