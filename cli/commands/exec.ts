/**
 * `mcpx exec <file | ->`: run agent code in the same sandbox `mcpx_exec` uses, through the daemon.
 * The script's console.log lines go to stderr, its return value to stdout (JSON); a script that
 * fails exits 1 with the reason (syntax, runtime, deadline, memory, limit…).
 */
import { readFileSync } from 'node:fs'
import { defineCommand } from 'citty'
import { McpxError } from '../../lib/errors/index.ts'
import { commonArgs } from '../args.ts'
import { loadConfiguredContext } from '../context.ts'
import { printJson } from '../render.ts'
import { daemonClient } from './daemon.ts'

export default defineCommand({
  meta: { name: 'exec', description: 'Run a script that calls upstream tools (JavaScript or TypeScript): mcpx exec <file|->' },
  args: { ...commonArgs, file: { type: 'positional', description: 'Script file, or - for stdin', required: true } },
  async run({ args }) {
    const ctx = loadConfiguredContext(args, {}, { tolerant: true })
    const code = args.file === '-' ? await new Response(Bun.stdin.stream()).text() : readScript(args.file)
    const run = await daemonClient(ctx, args, true).request<{ value: unknown; logs: string[]; stats: unknown }>('exec', { code })
    if (ctx.json) return printJson(run)
    for (const line of run.logs) process.stderr.write(`${line}\n`)
    process.stdout.write(`${typeof run.value === 'string' ? run.value : JSON.stringify(run.value, null, 2)}\n`)
  },
})

function readScript(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    throw new McpxError('USAGE', `cannot read script ${path}: ${(error as Error).message}`, { path })
  }
}
