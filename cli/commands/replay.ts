/**
 * `mcpx replay FILE`: use a recording. `--print` (default) shows a readable timeline; `--serve`
 * makes the recording the server (`--stdio`, default, or `--port N` for Streamable HTTP on
 * 127.0.0.1, URL printed on stdout); `--against <url>` or `--against -- <command> [args]` replays
 * the recorded client side to a live server and diffs the answers (exit 6 on divergence).
 */
import { defineCommand } from 'citty'
import { McpxError } from '../../lib/errors/index.ts'
import {
  formatAgainstReport,
  formatTimeline,
  readRecording,
  replayAgainst,
  serveRecordingHttp,
  serveRecordingStdio,
} from '../../lib/replay/index.ts'
import { createHttpTransport, createStdioTransport, type Transport } from '../../lib/transport/index.ts'
import { commonArgs } from '../args.ts'
import { loadContext } from '../context.ts'
import { EXIT, setExitCode } from '../exit.ts'
import { orCommandAfterDashes } from '../parse.ts'

export default defineCommand({
  meta: { name: 'replay', description: 'Print a recording, serve it as the recorded server, or replay it against a live server and diff' },
  args: {
    file: { type: 'positional', required: true, description: 'Recording (from mcpx record)', valueHint: 'file' },
    print: { type: 'boolean', description: 'Readable timeline (the default)' },
    serve: { type: 'boolean', description: 'Become the recorded server' },
    stdio: { type: 'boolean', description: 'With --serve: on stdin/stdout (the default)' },
    port: { type: 'string', description: 'With --serve: Streamable HTTP on 127.0.0.1:PORT/mcp (0 = any free port)', valueHint: 'port' },
    against: orCommandAfterDashes({
      type: 'string',
      description: 'Replay the client side to this URL, or `--against -- <command> [args]`',
      valueHint: 'url',
    }),
    volatile: {
      type: 'string',
      description: 'More volatile fields, comma-separated JSON Pointers (`[method:]/result/x`)',
      valueHint: 'pointers',
    },
    json: commonArgs.json,
    verbose: commonArgs.verbose,
    quiet: commonArgs.quiet,
  },
  async run({ args, rawArgs }) {
    const ctx = loadContext(args)
    const recording = readRecording(args.file)
    const volatile =
      args.volatile === undefined
        ? []
        : args.volatile
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
    const against = againstTarget(args.against, rawArgs)
    const modes = [args.serve === true, against !== undefined, args.print === true].filter(Boolean).length
    if (modes > 1) throw new McpxError('USAGE', 'choose one of --print, --serve or --against')

    if (args.serve) {
      if (args.port !== undefined && args.stdio) throw new McpxError('USAGE', '--serve takes --stdio or --port, not both')
      if (args.port === undefined) {
        await serveRecordingStdio(recording, ctx.settings, { volatile }).closed
        return
      }
      const port = Number(args.port)
      if (!Number.isInteger(port) || port < 0 || port > 65_535)
        throw new McpxError('USAGE', `--port must be a TCP port, got ${JSON.stringify(args.port)}`)
      const server = listenOrExplain(() => serveRecordingHttp(recording, ctx.settings, { volatile, port }), port)
      process.stdout.write(`${server.url}\n`)
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve)
        process.once('SIGTERM', resolve)
      })
      await server.close()
      return
    }

    if (against !== undefined) {
      const transport: Transport =
        'url' in against
          ? createHttpTransport({ url: against.url }, ctx.settings)
          : createStdioTransport({ command: against.command[0]!, args: against.command.slice(1), parentEnv: ctx.env }, ctx.settings)
      const report = await replayAgainst(recording, transport, { settings: ctx.settings, volatile })
      const label = 'url' in against ? against.url : against.command.join(' ')
      process.stdout.write(ctx.json ? `${JSON.stringify(report)}\n` : formatAgainstReport(report, label))
      if (report.divergences.length > 0) setExitCode(EXIT.DIVERGED)
      return
    }

    process.stdout.write(
      ctx.json ? `${JSON.stringify({ header: recording.header, entries: recording.entries })}\n` : formatTimeline(recording),
    )
  },
})

function againstTarget(value: string | undefined, rawArgs: string[]): { url: string } | { command: string[] } | undefined {
  const dashes = rawArgs.indexOf('--')
  const flag = rawArgs.findIndex((a) => a === '--against' || a.startsWith('--against='))
  if (flag === -1) return undefined
  if (dashes >= 0 && (dashes === flag + 1 || value === undefined || value === '' || value === '--')) {
    const command = rawArgs.slice(dashes + 1)
    if (command.length === 0) throw new McpxError('USAGE', '--against -- needs a command to run')
    return { command }
  }
  if (value === undefined || value === '') throw new McpxError('USAGE', '--against needs a URL or `-- <command> [args]`')
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new McpxError('USAGE', `--against ${JSON.stringify(value)} is not a URL; use \`--against -- <command>\` for a stdio server`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new McpxError('USAGE', `--against speaks http(s) URLs, not ${url.protocol}`)
  return { url: url.href }
}

/** A busy or forbidden port is the user's to change, not a bug in mcpx. */
function listenOrExplain<T>(listen: () => T, port: number): T {
  try {
    return listen()
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EADDRINUSE' || code === 'EACCES' || /in use|EADDRINUSE/i.test(String((error as Error).message))) {
      throw new McpxError(
        'CONNECT',
        `cannot listen on 127.0.0.1:${port}: ${code === 'EACCES' ? 'permission denied' : 'the port is in use'} (choose another --port, or 0 for any free one)`,
        { address: '127.0.0.1', port },
      )
    }
    throw error
  }
}
