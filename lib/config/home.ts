/**
 * The layout of the mcpx home (MCPX_HOME, else $XDG_STATE_HOME/mcpx): every file mcpx itself
 * writes lives under it. `run/` holds the daemon's sockets, locks and state and is kept 0700 so the
 * sockets' permissions are the Unix surface's access control.
 */
import { chmodSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'

export interface HomeLayout {
  readonly home: string
  /** 0700 directory for the daemon's socket, lock and state file. */
  readonly runDir: string
  /** The daemon's HTTP listener (/v1, /mcp). */
  readonly socket: string
  /** The daemon's raw byte-stream listener for `mcpx serve` (lib/daemon/channel.ts). */
  readonly channelSocket: string
  readonly lock: string
  /** Held by the one client that is starting the daemon, so concurrent clients wait instead of spawning. */
  readonly startLock: string
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
    channelSocket: join(runDir, 'channel.sock'),
    lock: join(runDir, 'daemon.lock'),
    startLock: join(runDir, 'start.lock'),
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
