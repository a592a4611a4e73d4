/**
 * The transport room's process-wide state: the only module-level mutable state of the room (pinned
 * by test/lib/module-state.test.ts).
 */

/**
 * Process groups still alive (process-group.ts), killed from one `exit` hook: process-wide because
 * `exit` is an event of the process, not of any one client, and every client's children must die
 * with mcpx whichever client spawned them.
 */
const liveGroups = new Set<number>()
let exitHookInstalled = false

export function rememberGroup(pgid: number, killAtExit: (pgid: number) => void): void {
  liveGroups.add(pgid)
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.on('exit', () => {
    for (const group of liveGroups) killAtExit(group)
  })
}

export function forgetGroup(pgid: number): void {
  liveGroups.delete(pgid)
}
