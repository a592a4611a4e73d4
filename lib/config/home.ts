/**
 * The layout of the mcpx home (MCPX_HOME, else $XDG_STATE_HOME/mcpx): every file mcpx itself
 * writes lives under it. `run/` holds the daemon's sockets, locks and state and is kept 0700 so the
 * sockets' permissions are the Unix surface's access control.
 * writes lives under it. A daemon is identified by the absolute path of its config location, and
 * everything it owns (socket, lock, state, token, kept port, environment snapshot, log) lives in
 * its own `run/<id>/` directory, kept 0700 so the socket's permissions are the Unix surface's
 * access control. `homeLayout` is the one place that names these files.
 */
import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'

export interface HomeLayout {
  readonly home: string
  /** Absolute path of the config location this daemon serves (the file need not exist). */
  readonly config: string
  /** Short stable id of `config`: the name of the run directory. */
  readonly id: string
  /** 0700 directory for this daemon's socket, lock, state, token, port and environment files. */
  readonly runDir: string
  /** The daemon's HTTP listener (/v1, /mcp). */
  readonly socket: string
  /** The daemon's raw byte-stream listener for `mcpx serve` (lib/daemon/channel.ts). */
  readonly channelSocket: string
  readonly lock: string
  /** Held by the one client that is starting the daemon, so concurrent clients wait instead of spawning. */
  readonly startLock: string
  /** JSON written by a listening daemon: pid, socket, TCP address and port, config. */
  readonly state: string
  /** Bearer token for the TCP listener (0600). */
  readonly token: string
  /** The TCP port this daemon chose last, reused on restart when free. */
  readonly port: string
  /** The environment snapshot (variable names and values, 0600) the daemon resolves `${VAR}` in. */
  readonly envSnapshot: string
  readonly logDir: string
  /** This daemon's log (rotated by size to `<log>.1`). */
  readonly daemonLog: string
  readonly cacheDir: string
  readonly credentialsDir: string
}

const ID_HEX_CHARS = 12

/** The id of a config location: the first hex digits of the SHA-256 of its absolute path. */
export function daemonId(config: string): string {
  // Bun's hasher, not node:crypto: that module alone costs ~1.4 ms to load on every command's start-up.
  return new Bun.CryptoHasher('sha256').update(resolve(config)).digest('hex').slice(0, ID_HEX_CHARS)
}

export function homeLayout(home: string, configLocation: string): HomeLayout {
  const config = resolve(configLocation)
  const id = daemonId(config)
  const runDir = join(home, 'run', id)
  const logDir = join(home, 'logs')
  return {
    home,
    config,
    id,
    runDir,
    socket: join(runDir, 'daemon.sock'),
    channelSocket: join(runDir, 'channel.sock'),
    lock: join(runDir, 'daemon.lock'),
    startLock: join(runDir, 'start.lock'),
    state: join(runDir, 'daemon.json'),
    token: join(runDir, 'token'),
    port: join(runDir, 'port'),
    envSnapshot: join(runDir, 'env.json'),
    logDir,
    daemonLog: join(logDir, `daemon-${id}.log`),
    cacheDir: join(home, 'cache'),
    credentialsDir: join(home, 'credentials'),
  }
}

/** The run directories present in a home (one per config location a daemon was started for). */
export function runDirIds(home: string): string[] {
  const root = join(home, 'run')
  try {
    return readdirSync(root).filter((name) => /^[0-9a-f]+$/.test(name) && statSync(join(root, name)).isDirectory())
  } catch {
    return []
  }
}

/** The state file of run directory `id` (for `status --all`, which knows ids, not configs). */
export function stateFileOf(home: string, id: string): string {
  return join(home, 'run', id, 'daemon.json')
}

export const PRIVATE_DIR_MODE = 0o700
export const PRIVATE_FILE_MODE = 0o600

/** Create a directory (and parents) and force it to 0700 even if it already existed or the umask is 0. */
export function ensurePrivateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: PRIVATE_DIR_MODE })
  chmodSync(path, PRIVATE_DIR_MODE)
}
