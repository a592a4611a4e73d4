/**
 * One daemon per user: an O_EXCL lock file in the mcpx home's run directory holding the owner's
 * pid. A lock whose pid no longer exists is stale (a crash or kill -9) and is taken over.
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

/** A killed daemon whose parent has not reaped it yet still answers kill(pid, 0); proc(5) shows it as `Z`. */
function isZombie(pid: number): boolean {
  try {
    return /\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}

function releaseIfOwned(path: string, pid: number): void {
  if (readOwner(path) === pid) rmSync(path, { force: true })
}
