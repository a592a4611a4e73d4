/**
 * Build the single executable: `bun build --compile cli/main.ts` → dist/mcpx.
 * Usage: bun scripts/build.ts [--outfile path]
 */
import { parseArgs } from 'node:util'

const { values } = parseArgs({ options: { outfile: { type: 'string', default: 'dist/mcpx' } } })
const root = new URL('..', import.meta.url).pathname

// --bytecode: the binary ships JavaScriptCore bytecode, so start-up skips parsing (a warm `mcpx call`
// spends most of its time starting; scripts/bench.ts measures it). Bytecode needs the ESM output format.
const proc = Bun.spawn([process.execPath, 'build', '--compile', '--bytecode', '--format=esm', '--minify-syntax', '--sourcemap=inline', 'cli/main.ts', '--outfile', values.outfile!], {
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
