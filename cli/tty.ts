/**
 * Whether fd 1 / fd 2 are terminals, as process.stdout.isTTY / process.stderr.isTTY say, without
 * creating those Node stream objects on the start-up paths (cli/output.ts says why). node:tty
 * itself is loaded (require) only when the question is asked: loading it costs ~1.8 ms.
 */
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
