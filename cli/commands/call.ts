/**
 * `mcpx call <server.tool> [key=value | key=@file | '{json}' | -]...`: one tool call through the
 * daemon (started on demand). Arguments are coerced by the tool's inputSchema and checked before the
 * round trip; the result goes to stdout (human, or `--json` as the spec shapes it); a tool result
 * with isError exits 1 (README "Exit codes").
 */
import { randomUUID } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { defineCommand } from 'citty'
import { McpxError } from '../../lib/errors/index.ts'
import { type Revision, shapeResult } from '../../lib/wire/index.ts'
import type { Catalog, DaemonClient } from '../../lib/daemon/index.ts'
import { checkArguments, parseCallArguments, parseJsonObject, splitQualified, suggest } from '../../lib/gateway/index.ts'
import { commonArgs } from '../args.ts'
import { loadConfiguredContext } from '../context.ts'
import { EXIT, setExitCode } from '../exit.ts'
import { printJson, renderToolResult } from '../render.ts'
import { daemonClient } from './daemon.ts'
import { recordedUpstream } from './record.ts'

export default defineCommand({
  meta: { name: 'call', description: 'Call one upstream tool: mcpx call <server.tool> [key=value ...]' },
  args: {
    ...commonArgs,
    target: { type: 'positional', description: 'server.tool (the first dot splits; server/tool also works)', required: true },
    args: { type: 'string', description: 'Arguments as one JSON object', valueHint: 'json' },
    timeout: { type: 'string', description: 'Deadline for this call in milliseconds', valueHint: 'ms' },
    progress: { type: 'boolean', description: 'Show the upstream\'s progress on stderr (default: when stderr is a terminal)' },
    record: {
      type: 'string',
      valueHint: 'file',
      description: 'Record the call for `mcpx replay`: it then runs directly, not through the daemon, on one fresh connection to the server, recorded whole (handshake, catalog lists, the call, close)',
    },
  },
  async run({ args }) {
    const ctx = loadConfiguredContext(args)
    const { server, tool } = splitQualified(args.target.replace('/', '.'))
    const tokens = args._.slice(1)
    const base = await baseArguments(args.args, tokens)
    if (args.record !== undefined) {
      // A pooled daemon connection cannot be recorded whole (record.ts recordedUpstream).
      const upstream = recordedUpstream(ctx, server, args.record)
      try {
        const definition = findTool(await upstream.catalog(), server, tool)
        const callArguments = parseCallArguments(tokens.filter((t) => t !== '-'), definition.inputSchema, { readFile: readArgumentFile, base })
        checkArguments(callArguments, definition.inputSchema)
        const timeoutMs = args.timeout === undefined ? undefined : parseTimeout(args.timeout)
        const result = await upstream.call(tool, callArguments, timeoutMs === undefined ? {} : { timeoutMs })
        // As the spec shapes it for the revision this connection speaks (no resultType for legacy ones).
        const revision = upstream.status().revision
        report(revision === undefined ? result : shapeResult(revision as Revision, 'tools/call', result), ctx.json, server, tool)
      } finally {
        await upstream.close()
      }
      return
    }
    const client = daemonClient(ctx, args, true)
    const catalog = await client.request<Catalog>('catalog', { name: server })
    const definition = findTool(catalog, server, tool)
    const callArguments = parseCallArguments(tokens.filter((t) => t !== '-'), definition.inputSchema, { readFile: readArgumentFile, base })
    checkArguments(callArguments, definition.inputSchema)
    const timeoutMs = args.timeout === undefined ? undefined : parseTimeout(args.timeout)
    const progress = (args.progress ?? process.stderr.isTTY) ? followProgress(client, `${server}.${tool}`) : undefined
    const result = await client
      .request<Record<string, unknown>>('call', { server, tool, arguments: callArguments, ...(timeoutMs !== undefined && { timeoutMs }), ...(progress && { progressId: progress.id }) })
      .finally(() => progress?.stop())
    report(result, ctx.json, server, tool)
  },
})

function findTool(catalog: Pick<Catalog, 'tools'>, server: string, tool: string): Record<string, unknown> {
  const definition = (catalog.tools as Record<string, unknown>[]).find((t) => t.name === tool)
  if (definition) return definition
  const hint = suggest(tool, catalog.tools.map((t) => String((t as { name: unknown }).name)))
  throw new McpxError('NOT_FOUND', `server "${server}" has no tool "${tool}"${hint.length ? ` (did you mean ${hint.map((h) => `${server}.${h}`).join(', ')}?)` : ''}`, {
    server,
    tool,
    suggestions: hint,
  })
}

/** The result on stdout (human, or --json as the spec shapes it); isError exits 1. */
function report(result: Record<string, unknown>, json: boolean, server: string, tool: string): void {
  if (json) printJson(result)
  else {
    const text = renderToolResult(result)
    process.stdout.write(text.endsWith('\n') || text === '' ? text : `${text}\n`)
  }
  if (result.isError === true) {
    if (!json && !process.stderr.isTTY) process.stderr.write(`${JSON.stringify({ error: { code: 'TOOL', message: `${server}.${tool} returned isError` } })}\n`)
    setExitCode(EXIT.TOOL)
  }
}

/**
 * Print the upstream's progress for this call on stderr: the daemon publishes it on its event feed
 * tagged with our id. The feed is read from its start so no early update is missed.
 */
function followProgress(client: DaemonClient, label: string): { id: string; stop(): Promise<void> } {
  const id = randomUUID()
  const abort = new AbortController()
  const tty = process.stderr.isTTY
  let shown = false
  // Ends when the daemon's `call` event for this id arrives (published before the answer), so every
  // progress update is printed before the result; or when the feed breaks.
  const reading = (async () => {
    for await (const event of client.events({ lastEventId: 0, signal: abort.signal })) {
      const data = event.data as { progressId?: string; progress?: number; total?: number; message?: string }
      if (data.progressId !== id) continue
      if (event.type === 'call') return
      const line = `${label}: ${data.progress}${data.total !== undefined ? `/${data.total}` : ''}${data.message ? ` ${data.message}` : ''}`
      process.stderr.write(tty ? `\r\x1b[K${line}` : `${line}\n`)
      shown = true
    }
  })().catch(() => {})
  return {
    id,
    async stop() {
      await reading
      abort.abort()
      if (tty && shown) process.stderr.write('\r\x1b[K')
    },
  }
}

/** `--args JSON`, or JSON on stdin (`-`, or piped with no other arguments). */
async function baseArguments(json: string | undefined, tokens: string[]): Promise<Record<string, unknown>> {
  if (json !== undefined) return parseJsonObject(json, '--args')
  const wantsStdin = tokens.includes('-') || (tokens.length === 0 && stdinIsPiped())
  if (!wantsStdin) return {}
  const text = (await new Response(Bun.stdin.stream()).text()).trim()
  return text === '' ? {} : parseJsonObject(text, 'JSON on stdin')
}

/** Only a pipe or a file counts: never block on a terminal or on /dev/null. */
function stdinIsPiped(): boolean {
  try {
    const stat = statSync('/dev/stdin')
    return stat.isFIFO() || stat.isFile()
  } catch {
    return false
  }
}

function readArgumentFile(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    throw new McpxError('USAGE', `cannot read argument file ${path}: ${(error as Error).message}`, { path })
  }
}

function parseTimeout(raw: string): number {
  const ms = Number(raw)
  if (!Number.isInteger(ms) || ms < 0) throw new McpxError('USAGE', `--timeout must be a whole number of milliseconds, got "${raw}"`)
  return ms
}
