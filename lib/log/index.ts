/**
 * log room: the one logger. consola's BasicReporter writes info/log to stdout, which would corrupt
 * `serve` over stdio (stdout belongs to the protocol), so both streams are bound to stderr
 * (consola.ts builds it).
 */
import { copyFileSync, fstatSync, statSync, truncateSync, writeSync } from 'node:fs'

/** What mcpx logs through: the level methods it uses, and the level (0 silent … 3 info … 5 trace). */
export interface Logger {
  error(...args: unknown[]): void
  warn(...args: unknown[]): void
  info(...args: unknown[]): void
  debug(...args: unknown[]): void
  level: number
}

/** consola on a terminal (built on first use), or the daemon's file log (useFileLog). */
let instance: Logger | undefined
let pendingLevel = 3

/**
 * consola, created on first use: building it (and the process.stderr stream it writes to) costs
 * a few ms that `mcpx --version` or a warm `mcpx call` would otherwise pay without logging a line
 * (scripts/bench part 2). consola itself is loaded then too: require() of an ES module is a chunk
 * of its own that loads at the call (bun build --splitting), where a require() of consola's
 * CommonJS build would put its 50 KB into every chunk that imports this door.
 */
function current(): Logger {
  instance ??= (require('./consola.ts') as typeof import('./consola.ts')).stderrConsola(pendingLevel)
  return instance
}

/** Each call goes to the logger of the moment (consola, or the file log once useFileLog ran). */
export const log: Logger = {
  error: (...args) => current().error(...args),
  warn: (...args) => current().warn(...args),
  info: (...args) => current().info(...args),
  debug: (...args) => current().debug(...args),
  get level() {
    return current().level
  },
  set level(value) {
    current().level = value
  },
}

/** 0 silent … 3 info … 5 trace (consola levels). */
export function setLogLevel(level: number): void {
  if (instance === undefined) pendingLevel = level
  else instance.level = level
}

export interface FileLogOptions {
  /** The log file stderr is appended to (the daemon's, opened O_APPEND by its starter). */
  readonly path: string
  /** Past this size the file is copied to `<path>.1` and truncated in place. */
  readonly maxBytes: number
  /** Check the size after this many bytes were written. */
  readonly checkBytes: number
}

/**
 * The daemon's log: one line per entry, an ISO timestamp and the level first, and rotation by size
 * while running. Rotation copies the file to `.1` and truncates it in place, so the descriptor
 * the daemon (and crash output) writes through stays valid: the file was opened O_APPEND, writes
 * after the truncation land at its new end.
 */
export function useFileLog(options: FileLogOptions): void {
  let written = 0
  // Written straight to fd 2 (the log file, O_APPEND): consola and Node's process.stderr stream are
  // not loaded for it, which an idle daemon would otherwise hold (README "Start-up and memory").
  const line =
    (type: string, rank: number) =>
    (...args: unknown[]): void => {
      if (rank > file.level) return
      const { formatWithOptions } = require('node:util') as typeof import('node:util')
      const text = `${new Date().toISOString()} ${type.padEnd(5)} ${formatWithOptions({ colors: false, breakLength: Number.POSITIVE_INFINITY }, ...args).replace(/\n/g, '\n  ')}\n`
      writeSync(2, text)
      written += Buffer.byteLength(text)
      if (written < options.checkBytes) return
      written = 0
      rotateInPlace(options.path, options.maxBytes)
    }
  // consola's levels: error 0, warn 1, info 3, debug 4.
  const file: Logger = {
    level: instance?.level ?? pendingLevel,
    error: line('error', 0),
    warn: line('warn', 1),
    info: line('info', 3),
    debug: line('debug', 4),
  }
  instance = file
}

function rotateInPlace(path: string, maxBytes: number): void {
  try {
    // Only the file our stderr is (not a terminal, not some other file at that path).
    const ours = fstatSync(2)
    const there = statSync(path)
    if (ours.ino !== there.ino || ours.dev !== there.dev || there.size <= maxBytes) return
    copyFileSync(path, `${path}.1`)
    truncateSync(path, 0)
  } catch {
    // A log that cannot rotate keeps growing; losing lines would be worse.
  }
}
