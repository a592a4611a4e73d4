/**
 * One daemon per config location: an O_EXCL lock file in the daemon's run directory holding the
 * owner's pid and its start time. A lock is stale (a crash or kill -9) and taken over when its pid
 * is gone, is a zombie (killed, not yet reaped by its parent: proc(5) state Z or X), or now
 * belongs to another program (the start time recorded differs from the pid's: the pid was reused).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { McpxError } from '../errors/index.ts'
import { procIsMounted } from './caches.ts'

export interface Lock {
  release(): void
}

export function acquireLock(path: string, pid = process.pid): Lock {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, `${pid} ${processStartTime(pid) ?? ''}\n`, { flag: 'wx', mode: 0o600 })
      return { release: () => releaseIfOwned(path, pid) }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    const owner = readOwner(path)
    if (owner !== null && owner.pid !== pid && isAlive(owner)) {
      throw new McpxError('USAGE', `the mcpx daemon is already running (pid ${owner.pid}, lock ${path})`, { pid: owner.pid, lock: path })
    }
    // Stale: the owner is gone (or the file is unreadable garbage); remove it and retry once.
    rmSync(path, { force: true })
  }
  throw new McpxError('INTERNAL', `could not take the daemon lock ${path}: another process keeps re-creating it`)
}

interface Owner {
  readonly pid: number
  /** proc(5) starttime of the owner when it took the lock; null when unknown (no /proc). */
  readonly startTime: string | null
}

/** The owner recorded in a lock file, or null. */
function readOwner(path: string): Owner | null {
  try {
    const [pidText, startTime] = readFileSync(path, 'utf8').trim().split(/\s+/)
    const pid = Number.parseInt(pidText ?? '', 10)
    return Number.isInteger(pid) && pid > 0 ? { pid, startTime: startTime || null } : null
  } catch {
    return null
  }
}

/** Whether `pid` names a live (not zombie) process; exported for the `status --all` listing. */
export function isAlive(owner: Owner | number): boolean {
  const { pid, startTime } = typeof owner === 'number' ? { pid: owner, startTime: null } : owner
  const stat = procStat(pid)
  if (stat !== undefined) {
    if (stat === null) return false
    if (stat.state === 'Z' || stat.state === 'X') return false
    return startTime === null || stat.startTime === startTime
  }
  // No /proc (macOS): signal 0 says whether the pid exists.
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

/** The start time of `pid` from /proc, or null when unknown. */
function processStartTime(pid: number): string | null {
  return procStat(pid)?.startTime ?? null
}

/**
 * State and start time from /proc/<pid>/stat; null when the process does not exist, undefined
 * when there is no /proc. proc(5): field 2 is "(comm)" (which may hold spaces and parentheses, so
 * fields are counted after the last ")"), field 3 the state, field 22 the start time.
 */
function procStat(pid: number): { state: string; startTime: string } | null | undefined {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ESRCH') return hasProc() ? null : undefined
    return undefined
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
  return { state: fields[0] ?? '', startTime: fields[19] ?? '' }
}

function hasProc(): boolean {
  return procIsMounted(() => {
    try {
      readFileSync('/proc/self/stat')
      return true
    } catch {
      return false
    }
  })
}

function releaseIfOwned(path: string, pid: number): void {
  if (readOwner(path)?.pid === pid) rmSync(path, { force: true })
}

/** The live process holding the lock at `path`, or null when none does (no file, or a stale one). */
export function liveOwner(path: string): number | null {
  const owner = readOwner(path)
  return owner !== null && isAlive(owner) ? owner.pid : null
}
