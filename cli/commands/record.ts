/**
 * `mcpx record FILE -- <command> [args…]` / `mcpx record FILE --url <url>`: stand between a host
 * and an MCP server, relay every message unchanged and write the traffic to FILE (the replay
 * format, secrets redacted). The host talks to mcpx on stdio, as it would to the server.
 */
import { defineCommand } from 'citty'
import { McpxError } from '../../lib/errors/index.ts'
import { Recorder, fileSink, recordProxy, recordTransport, redactionRules } from '../../lib/replay/index.ts'
import { createHttpTransport, createStdioServerTransport, createStdioTransport, type Transport } from '../../lib/transport/index.ts'
import { commonArgs } from '../args.ts'
import { loadContext } from '../context.ts'
import { VERSION } from '../version.ts'

export default defineCommand({
  meta: { name: 'record', description: 'Relay a host to an MCP server on stdio and record the traffic to FILE (JSONL, secrets redacted)' },
  args: {
    file: { type: 'positional', required: true, description: 'Recording to write (replaced if it exists)', valueHint: 'file' },
    url: { type: 'string', description: 'Record a Streamable HTTP server at this URL instead of a command', valueHint: 'url' },
    header: { type: 'string', description: 'Extra HTTP header `Name: value` for --url (recorded redacted if secret-like)', valueHint: 'header' },
    'redact-header': { type: 'string', description: 'More header names to redact, comma-separated', valueHint: 'names' },
    'redact-field': { type: 'string', description: 'More message fields to redact, comma-separated (key, or dotted path with *)', valueHint: 'fields' },
    verbose: commonArgs.verbose,
    quiet: commonArgs.quiet,
  },
  async run({ args, rawArgs }) {
    const ctx = loadContext(args)
    const dashes = rawArgs.indexOf('--')
    const command = dashes >= 0 ? rawArgs.slice(dashes + 1) : []
    if ((command.length === 0) === (args.url === undefined)) throw new McpxError('USAGE', 'mcpx record FILE needs exactly one of `--url <url>` or `-- <command> [args]`')
    const upstream: Transport = args.url !== undefined
      ? createHttpTransport({ url: args.url, headers: parseHeader(args.header) }, ctx.settings)
      : createStdioTransport({ command: command[0]!, args: command.slice(1), parentEnv: ctx.env }, ctx.settings)
    const recorder = new Recorder({
      sink: fileSink(args.file),
      mcpxVersion: VERSION,
      role: 'client',
      transport: upstream.kind,
      peer: args.url !== undefined ? { url: args.url } : { command },
      rules: redactionRules({ headers: list(args['redact-header']), fields: list(args['redact-field']) }),
    })
    const downstream = createStdioServerTransport({ maxFrameBytes: ctx.settings.maxFrameBytes })
    const reason = await recordProxy({ downstream, upstream: recordTransport(upstream, recorder, 'client') })
    recorder.close(reason?.message)
    if (reason !== undefined) throw reason
  },
})

function list(value: string | undefined): string[] {
  return value === undefined ? [] : value.split(',').map((s) => s.trim()).filter(Boolean)
}

function parseHeader(header: string | undefined): Record<string, string> | undefined {
  if (header === undefined) return undefined
  const colon = header.indexOf(':')
  if (colon <= 0) throw new McpxError('USAGE', `--header must look like "Name: value", got ${JSON.stringify(header)}`)
  return { [header.slice(0, colon).trim()]: header.slice(colon + 1).trim() }
}
