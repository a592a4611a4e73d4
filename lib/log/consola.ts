/**
 * The consola instance behind the one logger (index.ts), with both of its streams bound to stderr.
 * Its own module so that consola loads only when something logs (index.ts says why).
 *
 * consola's basic build: one `[level] message` line everywhere. Its default build picks the fancy
 * reporter (a badge and blank lines around each warning) except under CI and tests, so users would
 * read what no test does.
 */
import { type ConsolaInstance, createConsola } from 'consola/basic'

/** `level`: 0 silent … 3 info … 5 trace; the CLI sets it from --verbose/--quiet (setLogLevel). */
export function stderrConsola(level: number): ConsolaInstance {
  return createConsola({
    stdout: process.stderr,
    stderr: process.stderr,
    level,
    formatOptions: { date: false, colors: false, compact: true },
  })
}
