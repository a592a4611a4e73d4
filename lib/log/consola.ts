/**
 * The consola instance behind the one logger (index.ts), with both of its streams bound to stderr.
 * Its own module so that consola loads only when something logs (index.ts says why).
 */
import { type ConsolaInstance, createConsola } from 'consola'

/** `level`: 0 silent … 3 info … 5 trace; the CLI sets it from --verbose/--quiet (setLogLevel). */
export function stderrConsola(level: number): ConsolaInstance {
  return createConsola({
    stdout: process.stderr,
    stderr: process.stderr,
    level,
    formatOptions: { date: false, colors: false, compact: true },
  })
}
