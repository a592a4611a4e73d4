/**
 * The daemon room's process-wide caches: the only module-level mutable state of the room (pinned
 * by test/lib/module-state.test.ts).
 */
import type { BuildIdentity } from './build.ts'

/** Whether /proc is mounted (lock.ts): a fact of the machine, the same for every lock this process reads. */
let procMounted: boolean | undefined

export function procIsMounted(probe: () => boolean): boolean {
  return (procMounted ??= probe())
}

/**
 * This process's build identity (build.ts): taken once, when first asked, so a daemon keeps the identity of the
 * binary it started from even after the file is replaced on disk (that difference is what the CLI reports).
 */
let buildIdentity: BuildIdentity | undefined

export function processBuild(identify: () => BuildIdentity): BuildIdentity {
  return (buildIdentity ??= identify())
}
