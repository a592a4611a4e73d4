/**
 * How to start a sandbox child: the same program as the caller. A `bun build --compile` binary runs
 * from Bun's embedded filesystem (`/$bunfs/…`, `B:/~BUN/…` on Windows) and is restarted as
 * `<binary> sandbox-child`; from source it is `bun <repo>/cli/main.ts sandbox-child`. A path
 * string only: lib/ never imports cli/.
 */
const SUBCOMMAND = 'sandbox-child'

/** True when this code runs inside a `bun build --compile` executable. */
export function isCompiledBinary(modulePath: string = import.meta.path): boolean {
  return modulePath.startsWith('/$bunfs/') || modulePath.includes('~BUN')
}

/** argv that starts a sandbox child of this program. */
export function sandboxChildCommand(): string[] {
  if (isCompiledBinary()) return [process.execPath, SUBCOMMAND]
  return [process.execPath, new URL('../../cli/main.ts', import.meta.url).pathname, SUBCOMMAND]
}

/** Wrap argv so the child runs under `ulimit -v` (POSIX sh; IPC survives the exec). */
export function withAddressSpaceLimit(command: string[], addressSpaceMb: number): string[] {
  if (addressSpaceMb <= 0 || process.platform === 'win32') return command
  const kib = Math.floor(addressSpaceMb * 1024)
  return ['/bin/sh', '-c', `ulimit -v ${kib} && exec "$0" "$@"`, ...command]
}
