/**
 * Output on the start-up paths (`--version`, `--help`, a call's result) without Node's
 * process.stdout/process.stderr: building those stream objects costs about as much as a whole
 * compiled hello world (scripts/bench part 2). A reader that went away (EPIPE: `| head -1`) ends
 * the command quietly with exit 0, as cli/dispatch.ts does for process.stdout.
 */
/**
 * Commands whose stdout is written only by writeStdout. cli/dispatch.ts gives every other command an
 * EPIPE handler on process.stdout, and attaching that handler creates the stream (about 3.5 ms of a
 * warm `mcpx call`). A side table keyed by the command definition, so it needs no field citty lacks.
 */
const bunWriterOnly = new WeakSet<object>()

/** Declare that `command` never touches process.stdout (its output goes through writeStdout). */
export function writesStdoutWithBun<T extends object>(command: T): T {
  bunWriterOnly.add(command)
  return command
}

export function usesProcessStdout(command: object): boolean {
  return !bunWriterOnly.has(command)
}

/** Write all of `text` to fd 1 through Bun's own writer. */
export async function writeStdout(text: string): Promise<void> {
  try {
    await Bun.write(Bun.stdout, text)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') process.exit(0)
    throw error
  }
}
