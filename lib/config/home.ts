/**
 * The layout of the mcpx home (MCPX_HOME, else $XDG_STATE_HOME/mcpx): every file mcpx itself
 * writes lives under it. `run/` holds the daemon's socket, lock and state and is kept 0700 so the
 * socket's permissions are the Unix surface's access control.
 */
import { chmodSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'

export interface HomeLayout {
  readonly home: string
  /** 0700 directory for the daemon's socket, lock and state file. */
  readonly runDir: string
  readonly socket: string
  readonly lock: string
  /** JSON written by a listening daemon: pid, socket, TCP address and port. */
  readonly state: string
  /** Bearer token for the TCP listener (0600). */
  readonly token: string
  readonly logDir: string
  readonly daemonLog: string
  readonly cacheDir: string
  readonly credentialsDir: string
}

export function homeLayout(home: string): HomeLayout {
  const runDir = join(home, 'run')
  const logDir = join(home, 'logs')
  return {
    home,
    runDir,
    socket: join(runDir, 'daemon.sock'),
    lock: join(runDir, 'daemon.lock'),
    state: join(runDir, 'daemon.json'),
    token: join(home, 'token'),
    logDir,
    daemonLog: join(logDir, 'daemon.log'),
    cacheDir: join(home, 'cache'),
    credentialsDir: join(home, 'credentials'),
  }
}

const PRIVATE_DIR = 0o700

/** Create a directory (and parents) and force it to 0700 even if it already existed. */
export function ensurePrivateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: PRIVATE_DIR })
  chmodSync(path, PRIVATE_DIR)
}
