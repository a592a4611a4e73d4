/**
 * The daemon room's process-wide caches: the only module-level mutable state of the room (pinned
 * by test/lib/module-state.test.ts).
 */

/** Whether /proc is mounted (lock.ts): a fact of the machine, the same for every lock this process reads. */
let procMounted: boolean | undefined

export function procIsMounted(probe: () => boolean): boolean {
  return (procMounted ??= probe())
}
