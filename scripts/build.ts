/**
 * Build the single executable: `bun build --compile cli/main.ts` → dist/mcpx.
 * Usage: bun scripts/build.ts [--outfile path] [--no-bytecode]
 * `--no-bytecode`, for profiling only: functions loaded from shipped bytecode reach JavaScriptCore's
 * JIT dump without their names (`<name not materialized>`), so a profile of such a binary cannot say
 * whose code ran (scripts/bench/native-profile.ts `--named`).
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { parseArgs } from 'node:util'

// No start-up JIT policy (`--compile-jit-policy`): measured with the bench's paired blocks, a binary started at
// scale 100 left the daemon's first thousand calls 8-10 % slower through /mcp and `mcpx serve` 13 % slower, even
// after the daemon set scale 1, while the warm `mcpx call` gained nothing measurable.
// --bytecode: the binary ships JavaScriptCore bytecode, so start-up skips parsing (a warm `mcpx call`
// spends most of its time starting; scripts/bench.ts measures it). Bytecode needs the ESM output format.
// --splitting: each command module (and what only it imports) is its own chunk in the binary, loaded
// only when that command runs; with package.json "sideEffects": false the rooms' index re-exports a
// command does not use are dropped, so `--version` and `call` do not load the gateway or code mode.
/** How the bundle is split and minified; test/cli/startup-modules.test.ts bundles with these too, to read the chunks. */
export const BUNDLE_FLAGS = ['--splitting', '--format=esm', '--minify-syntax'] as const
const flags = ['--compile', ...BUNDLE_FLAGS, '--bytecode', '--sourcemap=inline']
const BYTECODE = '--bytecode'

if (import.meta.main) {
  const { values } = parseArgs({
    options: { outfile: { type: 'string', default: 'dist/mcpx' }, 'no-bytecode': { type: 'boolean', default: false } },
  })
  const chosen = values['no-bytecode'] ? flags.filter((flag) => flag !== BYTECODE) : flags
  const root = new URL('..', import.meta.url).pathname
  const outfile = resolve(root, values.outfile!)
  // bun writes a .js.map beside the binary for each split chunk, under a new hash every build (the
  // maps are inline in the binary too): built in a directory of its own next to the outfile, only
  // the binary is moved into place, and the outfile's directory does not fill up build after build.
  mkdirSync(dirname(outfile), { recursive: true })
  const scratch = mkdtempSync(join(dirname(outfile), '.build-'))
  try {
    const proc = Bun.spawn([process.execPath, 'build', ...chosen, 'cli/main.ts', '--outfile', join(scratch, basename(outfile))], {
      cwd: root,
      stdout: 'inherit',
      stderr: 'inherit',
    })
    const code = await proc.exited
    if (code !== 0) {
      console.error(`build: bun build --compile exited ${code}`)
      process.exit(code)
    }
    renameSync(join(scratch, basename(outfile)), outfile)
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
  console.error(`build: wrote ${values.outfile}`)
}
