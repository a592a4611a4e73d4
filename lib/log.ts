/**
 * The one logger. consola's BasicReporter writes info/log to stdout, which would corrupt `serve`
 * over stdio (stdout belongs to the protocol), so both streams are bound to stderr.
 */
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
