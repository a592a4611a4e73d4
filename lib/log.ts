/**
 * The one logger. consola's BasicReporter writes info/log to stdout, which would corrupt `serve`
 * over stdio (stdout belongs to the protocol), so both streams are bound to stderr.
 */
import { copyFileSync, fstatSync, statSync, truncateSync } from 'node:fs'
import { formatWithOptions } from 'node:util'
import { createConsola, type ConsolaInstance } from 'consola'

export const log: ConsolaInstance = createConsola({
  stdout: process.stderr,
  stderr: process.stderr,
  // Level comes from the CLI (--verbose/--quiet) via setLogLevel; 3 = info.
  level: 3,
  formatOptions: { date: false, colors: false, compact: true },
})

/** 0 silent … 3 info … 5 trace (consola levels). */
export function setLogLevel(level: number): void {
  log.level = level
}

export type Logger = ConsolaInstance

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
  log.setReporters([
    {
      log(entry) {
        const text = `${entry.date.toISOString()} ${entry.type.padEnd(5)} ${formatWithOptions({ colors: false, breakLength: Number.POSITIVE_INFINITY }, ...entry.args).replace(/\n/g, '\n  ')}\n`
        process.stderr.write(text)
        written += Buffer.byteLength(text)
        if (written < options.checkBytes) return
        written = 0
        rotateInPlace(options.path, options.maxBytes)
      },
    },
  ])
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
