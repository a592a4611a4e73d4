/**
 * Build the single executable: `bun build --compile cli/main.ts` → dist/mcpx.
 * Usage: bun scripts/build.ts [--outfile path]
 */
import { parseArgs } from 'node:util'

const { values } = parseArgs({ options: { outfile: { type: 'string', default: 'dist/mcpx' } } })
const root = new URL('..', import.meta.url).pathname

/**
 * The JIT tier-up scale the binary starts with (`--compile-jit-policy`): a CLI run executes its
 * code about once, so compiling it is wasted work; the daemon sets its own policy once it listens
 * (setting daemonJitPolicy, lib/daemon/gateway.ts). A build-time value, hence not a setting.
 */
const STARTUP_JIT_POLICY = 100

// --bytecode: the binary ships JavaScriptCore bytecode, so start-up skips parsing (a warm `mcpx call`
// spends most of its time starting; scripts/bench.ts measures it). Bytecode needs the ESM output format.
// --splitting: each command module (and what only it imports) is its own chunk in the binary, loaded
// only when that command runs; with package.json "sideEffects": false the rooms' index re-exports a
// command does not use are dropped, so `--version` and `call` do not load the gateway or code mode.
const flags = [
  '--compile',
  '--splitting',
  '--bytecode',
  '--format=esm',
  '--minify-syntax',
  '--sourcemap=inline',
  `--compile-jit-policy=${STARTUP_JIT_POLICY}`,
]
const proc = Bun.spawn([process.execPath, 'build', ...flags, 'cli/main.ts', '--outfile', values.outfile!], {
  cwd: root,
  stdout: 'inherit',
  stderr: 'inherit',
})
const code = await proc.exited
if (code !== 0) {
  console.error(`build: bun build --compile exited ${code}`)
  process.exit(code)
}
console.error(`build: wrote ${values.outfile}`)
