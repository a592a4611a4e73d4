/**
 * `mcpx probe <url>` / `mcpx probe -- <command> [args…]` (or `--stdio "command args"`, as `call` and
 * `tools` name one): what a server speaks — era
 * (modern/legacy/dual), revisions, the transport that worked, identity, capabilities, whether auth
 * is required and where its metadata lives — with per-step timings. Exit 0 when an era worked;
 * otherwise the diagnosis decides: 3 (CONNECT: nothing listening, not MCP, command exits at once),
 * 4 (AUTH, with the protected-resource metadata location), 5 (PEER/ERA).
 */
import { defineCommand } from 'citty'
import type { Target } from '../../lib/client/index.ts'
import { McpxError } from '../../lib/errors/index.ts'
import { type ProbeResult, probeFailure, runProbe } from '../../lib/probe/index.ts'
import { bodyLine } from '../../lib/transport/index.ts'
import { commonArgs } from '../args.ts'
import { loadContext } from '../context.ts'
import { runsCommandAfterDashes } from '../parse.ts'
import { splitCommand } from '../target.ts'

export default defineCommand({
  meta: {
    name: 'probe',
    description:
      'Report what an MCP server speaks: era (modern/legacy/dual), revisions, transport, identity, capabilities, auth, timings. ' +
      'Exit 0 = an era answered; 3 = nothing listening, not MCP, or the command exits at once; 4 = authorization required; 5 = no era/revision in common',
  },
  args: runsCommandAfterDashes({
    target: {
      type: 'positional',
      required: false,
      description: 'Server URL (http/https), or `-- <command> [args]` for stdio',
      valueHint: 'url',
    },
    stdio: { type: 'string', description: 'A stdio server: this command line (the same as `-- <command> [args]`)', valueHint: 'command' },
    header: { type: 'string', description: 'Extra HTTP header `Name: value` (one)', valueHint: 'header' },
    json: commonArgs.json,
    verbose: commonArgs.verbose,
    quiet: commonArgs.quiet,
  }),
  async run({ args, rawArgs }) {
    const ctx = loadContext(args)
    const dashes = rawArgs.indexOf('--')
    const target = parseTarget(args.target, stdioCommand(args.stdio, dashes < 0 ? [] : rawArgs.slice(dashes + 1)), args.header)
    const result = await runProbe(target, { settings: ctx.settings, parentEnv: ctx.env })
    process.stdout.write(ctx.json ? `${JSON.stringify(toJson(result))}\n` : human(result))
    const failure = probeFailure(result)
    if (failure) throw failure
  },
})

/** The stdio command line, from `--stdio "CMD"` or from the words after `--` (one of them). */
function stdioCommand(stdio: string | undefined, rest: readonly string[]): string[] | undefined {
  if (stdio !== undefined && rest.length > 0)
    throw new McpxError('USAGE', 'mcpx probe takes the command either as --stdio "CMD" or after `--`, not both')
  if (stdio !== undefined) return splitCommand(stdio)
  return rest.length > 0 ? [...rest] : undefined
}

function parseTarget(positional: string | undefined, stdio: string[] | undefined, header: string | undefined): Target {
  if (stdio !== undefined) {
    if (positional !== undefined)
      throw new McpxError('USAGE', `mcpx probe takes one target: the URL ${JSON.stringify(positional)} or the command, not both`)
    const [command, ...commandArgs] = stdio
    return { command: command!, args: commandArgs }
  }
  if (!positional) throw new McpxError('USAGE', 'mcpx probe needs a server URL, `--stdio "CMD"` or `-- <command> [args]`')
  let url: URL
  try {
    url = new URL(positional)
  } catch {
    throw new McpxError('USAGE', `${positional} is not a URL; use \`mcpx probe -- ${positional}\` to probe a command over stdio`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new McpxError('USAGE', `mcpx probe speaks http(s) URLs, not ${url.protocol}`)
  const headers: Record<string, string> = {}
  if (header) {
    const colon = header.indexOf(':')
    if (colon <= 0) throw new McpxError('USAGE', `--header must look like "Name: value", got ${JSON.stringify(header)}`)
    headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim()
  }
  return { url: url.href, headers }
}

function toJson(result: ProbeResult) {
  return {
    target: result.target,
    era: result.era,
    transport: result.transport,
    transports: result.transports,
    protocolVersions: result.protocolVersions,
    server: result.server,
    capabilities: result.capabilities,
    auth: result.auth,
    problems: result.problems,
    timings: result.timings,
    ...(result.failure ? { error: { code: result.failure.code, message: result.failure.diagnosis } } : {}),
  }
}

function human(result: ProbeResult): string {
  const lines = [`probe ${result.target}`]
  const row = (label: string, value: string) => lines.push(`  ${label.padEnd(13)}${value}`)
  const eraText = result.era === 'dual' ? 'dual (modern and legacy)' : result.era === 'none' ? 'none (no MCP era answered)' : result.era
  row('era', eraText)
  row(
    'transport',
    result.transport
      ? [result.transport, ...result.transports.filter((t) => t !== result.transport).map((t) => `also ${t}`)].join(', ')
      : '-',
  )
  row('versions', result.protocolVersions.join(', ') || '-')
  row('server', result.server ? `${result.server.name} ${result.server.version}`.trim() : '-')
  row('capabilities', Object.keys(result.capabilities).join(', ') || '-')
  row(
    'auth',
    result.auth.required ? `required${result.auth.resourceMetadata ? ` (metadata: ${result.auth.resourceMetadata})` : ''}` : 'not required',
  )
  if (result.era !== 'none') {
    // What mcpx repairs for its own hosts, told to the server's author: other hosts, or their model APIs, refuse it.
    row(
      'problems',
      result.problems.length === 0
        ? 'none found'
        : `${result.problems.length} that hosts (their SDKs, or their model APIs) refuse; as a gateway, mcpx repairs each as it says:`,
    )
    for (const problem of result.problems) lines.push(`    ${problem}`)
  }
  lines.push('  timings')
  for (const step of result.timings)
    lines.push(
      `    ${step.ok ? 'ok  ' : 'fail'} ${String(step.ms).padStart(6)} ms  ${step.step}${step.ok || !step.detail ? '' : ` — ${stepDetail(step.detail)}`}`,
    )
  return `${lines.join('\n')}\n`
}

/** A failed step's reason on one line: an HTTP error page is summarised, never dumped. */
function stepDetail(detail: string): string {
  return bodyLine(detail, DETAIL_CHARS)
}

/** One terminal line's worth of a step's failure (the JSON output keeps the whole text). */
const DETAIL_CHARS = 160
