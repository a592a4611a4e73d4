/**
 * `mcpx record FILE -- <command> [args…]` (or `--stdio "command args"`) / `mcpx record FILE --url <url>`: stand between a host
 * and an MCP server, relay every message unchanged and write the traffic to FILE (the replay
 * format, secrets redacted). The host talks to mcpx on stdio, as it would to the server. A host
 * that probes on a separate process (the SDK 2.x stdio client sends server/discover to a
 * disposable sibling) runs this twice; the second run is the session, and `replay --serve`
 * answers that host's discover from it (lib/replay/serve.ts).
 */
import { defineCommand } from 'citty'
import { log } from '../../lib/log/index.ts'
import { McpxError } from '../../lib/errors/index.ts'
import type { Upstream } from '../../lib/gateway/index.ts'
import { Recorder, fileSink, recordProxy, recordTransport, recordingFetch, redactionRules } from '../../lib/replay/index.ts'
import { createHttpTransport, createStdioServerTransport, createStdioTransport, type Transport } from '../../lib/transport/index.ts'
import { commonArgs } from '../args.ts'
import { loadContext } from '../context.ts'
import { runsCommandAfterDashes } from '../parse.ts'
import { splitCommand } from '../target.ts'
import type { ConfiguredContext } from '../configured-context.ts'
import { cliUpstream } from '../direct-session.ts'
import type { HostOptions } from '../host.ts'
import { VERSION } from '../version.ts'

export default defineCommand({
  meta: { name: 'record', description: 'Relay a host to an MCP server on stdio and record the traffic to FILE (JSONL, secrets redacted)' },
  args: runsCommandAfterDashes({
    file: { type: 'positional', required: true, description: 'Recording to write (replaced if it exists)', valueHint: 'file' },
    stdio: { type: 'string', description: 'Record this command line (the same as `-- <command> [args]`)', valueHint: 'command' },
    url: { type: 'string', description: 'Record a Streamable HTTP server at this URL instead of a command', valueHint: 'url' },
    header: {
      type: 'string',
      description: 'Extra HTTP header `Name: value` for --url (recorded redacted if secret-like)',
      valueHint: 'header',
    },
    'redact-header': { type: 'string', description: 'More header names to redact, comma-separated', valueHint: 'names' },
    'redact-field': {
      type: 'string',
      description: 'More message fields to redact, comma-separated (key, or dotted path with *)',
      valueHint: 'fields',
    },
    verbose: commonArgs.verbose,
    quiet: commonArgs.quiet,
  }),
  async run({ args, rawArgs }) {
    const ctx = loadContext(args)
    const dashes = rawArgs.indexOf('--')
    const afterDashes = dashes >= 0 ? rawArgs.slice(dashes + 1) : []
    const targets = [args.url !== undefined, args.stdio !== undefined, afterDashes.length > 0].filter(Boolean).length
    if (targets !== 1)
      throw new McpxError('USAGE', 'mcpx record FILE needs exactly one of `--url <url>`, `--stdio "CMD"` or `-- <command> [args]`')
    const command = args.stdio !== undefined ? splitCommand(args.stdio) : afterDashes
    const recorder = new Recorder({
      sink: fileSink(args.file),
      mcpxVersion: VERSION,
      role: 'client',
      transport: args.url !== undefined ? 'streamable-http' : 'stdio',
      peer: args.url !== undefined ? { url: args.url } : { command },
      rules: redactionRules({ headers: list(args['redact-header']), fields: list(args['redact-field']) }),
    })
    // HTTP is recorded at the fetch level (status, headers, SSE ids and retry of what arrives);
    // stdio at the transport, where every line is one message.
    const upstream: Transport =
      args.url !== undefined
        ? createHttpTransport({ url: args.url, headers: parseHeader(args.header), fetch: recordingFetch(recorder) }, ctx.settings)
        : recordTransport(
            createStdioTransport({ command: command[0]!, args: command.slice(1), parentEnv: ctx.env }, ctx.settings),
            recorder,
            'client',
          )
    const downstream = createStdioServerTransport({ maxFrameBytes: ctx.settings.maxFrameBytes })
    const reason = await recordProxy({ downstream, upstream })
    recorder.close(reason?.message)
    if (reason !== undefined) throw reason
  },
})

function list(value: string | undefined): string[] {
  return value === undefined
    ? []
    : value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
}

function parseHeader(header: string | undefined): Record<string, string> | undefined {
  if (header === undefined) return undefined
  const colon = header.indexOf(':')
  if (colon <= 0) throw new McpxError('USAGE', `--header must look like "Name: value", got ${JSON.stringify(header)}`)
  return { [header.slice(0, colon).trim()]: header.slice(colon + 1).trim() }
}

/**
 * `mcpx call --record FILE`: the call runs directly, not through the daemon. The daemon's pooled
 * connection was opened (and handshaken) long before this call and is shared with other callers,
 * so a slice of it would be neither complete nor replayable. Here one fresh connection to the
 * configured server is recorded whole: handshake, tools/list, the call, close (the gateway's own
 * `record:` wiring, lib/gateway/upstream.ts). Connected as the daemon would: the CLI's environment
 * for stdio servers, the stored OAuth credentials (no interactive login) for HTTP ones.
 */
export function recordedUpstream(ctx: ConfiguredContext, server: string, file: string, host: HostOptions): Upstream {
  const config = ctx.config.servers[server]
  if (config === undefined) {
    const names = Object.keys(ctx.config.servers)
    throw new McpxError('NOT_FOUND', `no server "${server}" in the config${names.length > 0 ? ` (configured: ${names.join(', ')})` : ''}`, {
      server,
      servers: names,
    })
  }
  // A direct connection: its `${VAR}`s were resolved in this command's environment, not the daemon's.
  log.debug(
    `${server}: connecting directly; variables resolved in this command's environment (${Object.keys(ctx.config.variables ?? {}).join(', ') || 'none referenced'})`,
  )
  return cliUpstream(ctx, { ...config, record: file }, host)
}
