/**
 * Output on the start-up paths (`--version`, `--help`, a call's result) without Node's
 * process.stdout/process.stderr: building those stream objects costs about as much as a whole
 * compiled hello world (scripts/bench part 2). A reader that went away (EPIPE: `| head -1`) ends
 * the command quietly with exit 0, as cli/dispatch.ts does for process.stdout.
 */
/** Write all of `text` to fd 1 through Bun's own writer. */
export async function writeStdout(text: string): Promise<void> {
  try {
    await Bun.write(Bun.stdout, text)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') process.exit(0)
    throw error
  }
}
