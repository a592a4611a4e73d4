/**
 * One daemon per user: an O_EXCL lock file in the mcpx home's run directory holding the owner's
 * pid. A lock whose pid no longer exists (or is a zombie: killed, not yet reaped) is stale (a crash
 * or kill -9) and is taken over. The same lock, on another file, makes one client the starter.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { McpxError } from '../errors/index.ts'

export interface Lock {
  release(): void
}

export function acquireLock(path: string, pid = process.pid): Lock {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, `${pid}\n`, { flag: 'wx', mode: 0o600 })
      return { release: () => releaseIfOwned(path, pid) }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    const owner = readOwner(path)
    if (owner !== null && owner !== pid && isAlive(owner)) {
      throw new McpxError('USAGE', `the mcpx daemon is already running (pid ${owner}, lock ${path})`, { pid: owner, lock: path })
    }
    // Stale: the owner is gone (or the file is unreadable garbage); remove it and retry once.
    rmSync(path, { force: true })
  }
  throw new McpxError('INTERNAL', `could not take the daemon lock ${path}: another process keeps re-creating it`)
}

/** The live process holding the lock at `path`, or null when none does (no file, or a stale one). */
export function liveOwner(path: string): number | null {
  const owner = readOwner(path)
  return owner !== null && isAlive(owner) ? owner : null
}

/** The pid recorded in a lock file, or null. */
function readOwner(path: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10)
    return Number.isInteger(pid) && pid > 0 ? pid : null
  } catch {
    return null
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
  return !isZombie(pid)
}

/** proc(5): the state field of /proc/PID/stat follows the parenthesised command name; Z = zombie. */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.charAt(stat.lastIndexOf(')') + 2) === 'Z'
  } catch {
    // No procfs (macOS): kill(pid, 0) is all there is.
    return false
  }
}

function releaseIfOwned(path: string, pid: number): void {
  if (readOwner(path) === pid) rmSync(path, { force: true })
}
