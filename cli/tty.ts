/**
 * Whether fd 1 / fd 2 are terminals, as process.stdout.isTTY / process.stderr.isTTY say, without
 * creating those Node stream objects on the start-up paths (cli/output.ts says why).
 */
import { isatty } from 'node:tty'

let stdoutTty: boolean | undefined
let stderrTty: boolean | undefined

export function stdoutIsTty(): boolean {
  stdoutTty ??= isatty(1)
  return stdoutTty
}

export function stderrIsTty(): boolean {
  stderrTty ??= isatty(2)
  return stderrTty
}
