/**
 * The daemon's state files in its run directory: the TCP port it chose (kept for the next start)
 * and daemon.json (where a running daemon listens), each 0600 and written atomically.
 */
import { chmodSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import type { HomeLayout } from '../config/index.ts'
import { PRIVATE_FILE_MODE } from '../config/index.ts'
import type { DaemonInfo } from './operation-contract.ts'

/** The port this daemon chose at its last start, or null. */
export function keptPort(layout: HomeLayout): number | null {
  try {
    const port = Number.parseInt(readFileSync(layout.port, 'utf8').trim(), 10)
    return Number.isInteger(port) && port > 0 && port < 65_536 ? port : null
  } catch {
    return null
  }
}

/** A 0600 state file, written atomically (temp file + rename), whatever the umask. */
export function writePrivate(path: string, text: string): void {
  const temp = `${path}.${process.pid}.tmp`
  writeFileSync(temp, text, { mode: PRIVATE_FILE_MODE })
  chmodSync(temp, PRIVATE_FILE_MODE)
  renameSync(temp, path)
}

/** daemon.json: where a running daemon listens, for clients that need TCP and for `status --all`. */
export function writeState(layout: HomeLayout, info: DaemonInfo): void {
  writePrivate(
    layout.state,
    `${JSON.stringify({ pid: info.pid, socket: info.socket, tcp: info.tcp, startedAt: info.startedAt, version: info.version, location: info.location, id: info.id, build: info.build })}\n`,
  )
}

/** daemon.json as a client reads it to reach the daemon over TCP, or null when there is none to read. */
export function readState(layout: HomeLayout): { tcp: { url: string } } | null {
  try {
    return JSON.parse(readFileSync(layout.state, 'utf8'))
  } catch {
    return null
  }
}
