/**
 * Child processes in their own process group, so a whole upstream tree (a server and anything it
 * spawned) is signalled together and none is orphaned. Escalation follows 2025-11-25
 * basic/lifecycle.mdx "Shutdown" (stdio): close stdin, wait, SIGTERM, wait, SIGKILL. Groups still alive when
 * mcpx itself exits are killed from one exit hook.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { forgetGroup, rememberGroup } from './caches.ts'

/** Polling cadence while waiting for the rest of a group to disappear (no wait() exists for it). */
const GROUP_POLL_MS = 25

/** Remember a group so it is killed if mcpx exits before closing it (the registry is caches.ts's). */
export function trackGroup(pgid: number): void {
  rememberGroup(pgid, (group) => signalGroup(group, 'SIGKILL'))
}

export function untrackGroup(pgid: number): void {
  forgetGroup(pgid)
}

/** Send a signal to every process in the group; false when the group no longer exists. */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal)
    return true
  } catch {
    return false
  }
}

/**
 * True while the group has a live member. A killed member whose new parent (often PID 1) has not
 * reaped it yet is a zombie that still answers kill(0); on Linux /proc tells them apart.
 */
function isGroupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false
  let pids: string[]
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name))
  } catch {
    return true
  }
  return pids.some((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      // Fields after the parenthesised command: state ppid pgrp …
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      return Number(pgrp) === pgid && state !== 'Z' && state !== 'X'
    } catch {
      return false
    }
  })
}

/** Resolve true once the group is gone, false when `timeoutMs` passed first. */
async function waitGroupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (isGroupAlive(pgid)) {
    if (Date.now() >= deadline) return false
    await Bun.sleep(GROUP_POLL_MS)
  }
  return true
}

/**
 * Terminate a group: SIGTERM, wait up to `graceMs`, then SIGKILL and wait for it to vanish.
 * Zombies of already-exited members count as gone once their parent reaps them, so the final
 * wait is bounded too.
 */
export async function terminateGroup(pgid: number, graceMs: number): Promise<void> {
  if (signalGroup(pgid, 'SIGTERM') && !(await waitGroupGone(pgid, graceMs))) {
    signalGroup(pgid, 'SIGKILL')
    await waitGroupGone(pgid, graceMs)
  }
  untrackGroup(pgid)
}
