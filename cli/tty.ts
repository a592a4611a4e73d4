/**
 * Whether fd 1 / fd 2 are terminals, as process.stdout.isTTY / process.stderr.isTTY say, without
 * creating those Node stream objects on the start-up paths (cli/output.ts says why). node:tty
 * itself is loaded (require) only when the question is asked: loading it costs ~1.8 ms.
 */
import { fstatSync } from 'node:fs'

const isatty = (fd: number): boolean => (require('node:tty') as typeof import('node:tty')).isatty(fd)

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

/**
 * Whether fd 2 could be a terminal: a character device (a terminal, or /dev/null), from one fstat,
 * without loading node:tty. For asking the daemon up front for what is shown only on a terminal
 * (an upstream's log lines); stderrIsTty decides, exactly, once there is something to show.
 */
export function stderrMayBeTty(): boolean {
  try {
    return fstatSync(2).isCharacterDevice()
  } catch {
    return false
  }
}
