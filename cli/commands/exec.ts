/**
 * `mcpx exec <file | ->`: run agent code in the same sandbox `mcpx_exec` uses, through the daemon.
 * The script's console.log lines go to stderr as they are written, its return value to stdout (JSON); a script that
 * fails exits 1 with the reason (syntax, runtime, deadline, memory, limit…).
 */
import { readFileSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { defineCommand } from 'citty'
import type { DaemonClient } from '../../lib/daemon/index.ts'
import { McpxError } from '../../lib/errors/index.ts'
import { commonArgs } from '../args.ts'
import { loadConfiguredContext } from '../configured-context.ts'
import { drainFeed } from '../host.ts'
import { printJson } from '../render.ts'
import { daemonClient } from './daemon.ts'

export default defineCommand({
  meta: { name: 'exec', description: 'Run a script that calls upstream tools (JavaScript or TypeScript): mcpx exec <file|->' },
  args: { ...commonArgs, file: { type: 'positional', description: 'Script file, or - for stdin', required: true } },
  async run({ args }) {
    const ctx = loadConfiguredContext(args, {}, { tolerant: true })
    const code = args.file === '-' ? await new Response(Bun.stdin.stream()).text() : readScript(args.file)
    const client = daemonClient(ctx, args, true)
    // The feed is followed before the exec starts, so the daemon must be up first.
    if (!ctx.json) await client.request('health')
    const streamed = ctx.json ? undefined : streamLogs(client, ctx.settings.cliEventDrainMs)
    let run: { value: unknown; logs: string[]; stats: unknown }
    try {
      run = await client.request<{ value: unknown; logs: string[]; stats: unknown }>('exec', {
        code,
        ...(streamed && { progressId: streamed.id }),
      })
    } finally {
      await streamed?.stop()
    }
    if (ctx.json) return printJson(run)
    // Lines the feed did not deliver (it broke, or lagged) come from the result.
    for (const line of run.logs.slice(streamed?.count() ?? 0)) process.stderr.write(`${line}\n`)
    process.stdout.write(`${typeof run.value === 'string' ? run.value : JSON.stringify(run.value, null, 2)}\n`)
  },
})

/** The script's console lines on stderr as they are written (the daemon's `exec.log` events). */
function streamLogs(client: DaemonClient, drainMs: number): { id: string; count(): number; stop(): Promise<void> } {
  const id = randomUUID()
  const abort = new AbortController()
  let count = 0
  const reading = (async () => {
    for await (const event of client.events({ lastEventId: 0, signal: abort.signal })) {
      const data = event.data as { progressId?: string; line?: string }
      if (data.progressId !== id) continue
      if (event.type === 'call') return
      if (event.type === 'exec.log') {
        process.stderr.write(`${data.line ?? ''}\n`)
        count++
      }
    }
  })().catch(() => {})
  return {
    id,
    count: () => count,
    async stop() {
      await drainFeed(reading, drainMs)
      abort.abort()
    },
  }
}

function readScript(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    throw new McpxError('USAGE', `cannot read script ${path}: ${(error as Error).message}`, { path })
  }
}
