/**
 * Which build of mcpx a process runs, so a CLI can tell that the daemon it reaches was started by
 * another binary (an upgrade or rebuild replaced the file; dev builds all say the same version).
 * The identity is the program file's device, inode, size and mtime, taken once per process: the
 * compiled binary itself, or for a run from source (`bun cli/main.ts`) the entry script plus the
 * Bun revision running it (edits to other source files are not seen). A `stat` is all it costs, so
 * the warm `mcpx call` compares it with the daemon's `Mcpx-Build` answer header at no extra request.
 */
import { statSync } from 'node:fs'
import { processBuild } from './caches.ts'

/** The /v1 answer header carrying the daemon's build id. */
export const BUILD_HEADER = 'Mcpx-Build'

export interface BuildIdentity {
  /** Opaque; equal ids mean the same program file, unchanged. */
  readonly id: string
  /** The program file the id describes (for messages). */
  readonly program: string
}

/** This process's build identity (memoised: the daemon's is the one it started with). */
export function thisBuild(): BuildIdentity {
  return processBuild(identify)
}

function identify(): BuildIdentity {
  // A compiled binary runs its entry from Bun's embedded file system (as cli/context.ts tells it).
  const compiled = Bun.main.startsWith('/$bunfs/') || Bun.main.includes('~BUN')
  const program = compiled ? process.execPath : Bun.main
  try {
    const stat = statSync(program)
    const file = `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}`
    return { id: compiled ? file : `${file}:bun-${Bun.revision}`, program }
  } catch {
    // The file is gone (deleted after start): the path is all that is left to compare.
    return { id: `${program}:gone`, program }
  }
}

/** The one hint every command gives when the daemon runs another build. */
export function otherBuildLine(daemonProgram?: string | null): string {
  const which = daemonProgram ? ` (${daemonProgram} as it was when the daemon started)` : ''
  return `the running mcpx daemon was started by a different mcpx build${which} than this one; run \`mcpx daemon restart\` to use this build`
}
