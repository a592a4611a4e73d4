/**
 * `mcpx call <server.tool> [key=value | key=@file | '{json}' | -]...`: one tool call through the
 * daemon (started on demand). Arguments are coerced by the tool's inputSchema and checked before the
 * round trip; the result goes to stdout (human, or `--json` as the spec shapes it); a tool result
 * with isError exits 1 (README "Exit codes").
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { defineCommand } from 'citty'
import { McpxError } from '../../lib/errors/index.ts'
import { type Catalog, inputSchemaHash } from '../../lib/daemon/index.ts'
import { splitQualified, suggest, unknownToolError } from '../../lib/gateway/index.ts'
import { parseCallArguments, parseJsonObject, precheckArguments, undeclaredArguments } from '../tool-arguments.ts'
import { commonArgs } from '../args.ts'
import type { McpxConfig } from '../../lib/config/index.ts'
import { loadSettingsContext } from '../context.ts'
import { EXIT, setExitCode } from '../exit.ts'
import { hostArgs } from '../host.ts'
import { repeatable, variadic } from '../parse.ts'
import { writeStdout, writesStdoutWithBun } from '../output.ts'
import { binaryContent, decodeBase64, renderToolResult } from '../render.ts'
import { stderrIsTty } from '../tty.ts'
import { hostOptions, isUrl, joinedTarget, openServer } from '../target.ts'

const call = defineCommand({
  meta: {
    name: 'call',
    description:
      'Call one tool: mcpx call <server.tool> [key=value ...], or an ad-hoc server: mcpx call <URL> <tool> ... / mcpx call --stdio "CMD" <tool> ...',
  },
  args: {
    ...commonArgs,
    target: variadic({
      type: 'positional',
      description:
        'server.tool (the first dot splits; server/tool and `server tool` also work), or a URL followed by the tool name, or the tool name with --stdio',
      required: true,
    }),
    args: { type: 'string', description: 'Arguments as one JSON object', valueHint: 'json' },
    timeout: { type: 'string', description: 'Deadline for this call in milliseconds', valueHint: 'ms' },
    progress: {
      type: 'boolean',
      description: "Show the upstream's progress and log messages on stderr (default: when stderr is a terminal)",
    },
    task: { type: 'boolean', description: 'Run a task-optional tool as a task (mcpx follows it to its end; its status shows as progress)' },
    stdio: {
      type: 'string',
      description: 'Ad-hoc stdio server: this command line is started for the call (no config needed)',
      valueHint: 'command',
    },
    root: repeatable({ ...hostArgs.root }),
    answers: hostArgs.answers,
    open: hostArgs.open,
    out: {
      type: 'string',
      valueHint: 'file',
      description: "Write the result's (first) image, audio or binary resource, decoded, to this file",
    },
    record: {
      type: 'string',
      valueHint: 'file',
      description:
        'Record the call for `mcpx replay`: it then runs directly, not through the daemon, on one fresh connection to the server, recorded whole (handshake, catalog lists, the call, close)',
    },
  },
  async run({ args }) {
    // The config file's settings only: its servers are read (configured(), below) when the catalog
    // path or --record needs them, never on a warm call (README "Start-up and memory").
    const ctx = loadSettingsContext(args)
    const configured = () => import('../configured-context.ts').then((m) => m.withConfig(ctx, {}, { tolerant: true }))
    const positionals = args._ as string[]
    const { server, tool, tokens } = splitTarget(positionals, args.stdio)
    const timeoutMs = args.timeout === undefined ? undefined : parseTimeout(args.timeout)
    const stdin = onceStdin()
    const note = stderrNote(args.quiet)
    if (args.answers === '-' && tokens.includes('-'))
      throw new McpxError('USAGE', 'stdin can carry the arguments (-) or the answers (--answers -), not both')
    if (args.record !== undefined) {
      const full = await configured()
      if (full.configError) throw full.configError
      if (args.stdio !== undefined || isUrl(server))
        throw new McpxError('USAGE', '--record records a configured server; use `mcpx record FILE -- CMD` or `--url URL` for others')
      // A pooled daemon connection cannot be recorded whole (record.ts recordedUpstream).
      // The CLI is the host of this connection as of an ad-hoc one (direct-session.ts cliAsker).
      const host = await hostOptions(full, args, server, stdin.text)
      const [recording, direct] = await Promise.all([import('./record.ts'), import('../direct-session.ts')])
      const asker = direct.cliAsker(host)
      const upstream = recording.recordedUpstream(full, server, args.record, host)
      try {
        const definition = findTool(await upstream.broker.run(asker, () => upstream.catalog()), server, tool, full.config)
        const callArguments = await buildArguments(args.args, tokens, definition, stdin, note, `${server}.${tool}`)
        const result = await upstream.call(tool, callArguments, {
          asker,
          ...(timeoutMs !== undefined && { timeoutMs }),
          ...(args.task && { runAsTask: true }),
        })
        await report(direct.shapedFor(upstream, 'tools/call', result), { json: full.json, server, tool, out: args.out })
      } finally {
        await upstream.close()
      }
      return
    }
    const session = await openServer(ctx, args, args.stdio !== undefined ? undefined : server, stdin.text)
    try {
      const started = performance.now()
      const options = {
        ...(timeoutMs !== undefined && { timeoutMs }),
        ...(args.progress !== undefined && { showProgress: args.progress }),
        ...(args.task && { task: true }),
      }
      const attempt = async (definition: Record<string, unknown>, cached: boolean) => {
        const label = session.adHoc ? tool : `${session.label}.${tool}`
        const callArguments = await buildArguments(args.args, tokens, definition, stdin, note, label)
        if (args.verbose)
          process.stderr.write(
            `mcpx: calling ${session.label} ${tool} ${session.adHoc ? '(ad-hoc, direct)' : '(through the daemon)'} with ${JSON.stringify(callArguments)}${cached ? ' (built against the cached schema)' : ''}\n`,
          )
        return session
          .call(tool, callArguments, {
            ...options,
            ...(cached && { inputSchemaHash: inputSchemaHash(definition.inputSchema) }),
          })
          .catch((error: unknown) => Promise.reject(namedTimeout(error, label, timeoutMs)))
      }
      // A warm call: the schema cached from an earlier catalog, and the call is the one round trip.
      // Any doubt about that copy (the daemon says it changed, or the arguments do not fit it) asks for the catalog.
      const cached = session.cachedTool?.(tool)
      let result =
        cached === undefined
          ? undefined
          : await attempt(cached, true).catch((error: unknown) =>
              error instanceof McpxError && (error.data?.staleSchema === true || error.code === 'USAGE')
                ? undefined
                : Promise.reject(error),
            )
      if (result === undefined) {
        const catalog = await session.catalog()
        // An ad-hoc server has no config entry to name as the reason a tool is missing.
        result = await attempt(findTool(catalog, session.label, tool, session.adHoc ? undefined : (await configured()).config), false)
      }
      if (args.verbose)
        process.stderr.write(
          `mcpx: ${session.label} ${tool} answered in ${Math.round(performance.now() - started)} ms${result.isError === true ? ' (isError)' : ''}\n`,
        )
      await report(result, { json: ctx.json, server: session.label, tool, out: args.out })
    } finally {
      await session.close()
    }
  },
})

// Its result, --json or not, goes through writeStdout: process.stdout is never created (cli/output.ts).
export default writesStdoutWithBun(call)

/** `server.tool rest…` (or `server tool rest…`), `URL tool rest…`, or (with --stdio) `tool rest…`. */
function splitTarget(positionals: string[], stdio: string | undefined): { server: string; tool: string; tokens: string[] } {
  const [first, ...rest] = positionals
  if (first === undefined) throw new McpxError('USAGE', 'call: missing TARGET (see `mcpx call --help`)')
  if (stdio !== undefined) return { server: 'stdio', tool: first, tokens: rest }
  if (isUrl(first)) {
    const [tool, ...tokens] = rest
    if (tool === undefined || tool.includes('=')) {
      // `URL.tool` (the server.tool habit) reads as one URL: suggest the split, as the URL's last segment suggests it.
      const dotted = /^(.*\/[^/.]+)\.([^/.]+)$/.exec(first)
      const example = dotted
        ? `mcpx call ${dotted[1]} ${dotted[2]}${tool !== undefined ? ` ${[tool, ...tokens].join(' ')}` : ''}`
        : `mcpx call ${first} <tool> [key=value ...]`
      throw new McpxError('USAGE', `call ${first}: name the tool after the URL (${example})`, { url: first })
    }
    return { server: first, tool, tokens }
  }
  const [target, ...tokens] = joinedTarget(positionals)
  const { server, tool } = splitQualified(target!.includes('.') ? target! : target!.replace('/', '.'))
  return { server, tool, tokens }
}

/** `tool`'s definition in the catalog; else NOT_FOUND, saying when `config` (none for ad-hoc servers) blocks it. */
function findTool(
  catalog: Pick<Catalog, 'tools'>,
  server: string,
  tool: string,
  configFile: McpxConfig | undefined,
): Record<string, unknown> {
  const definition = (catalog.tools as Record<string, unknown>[]).find((t) => t.name === tool)
  if (definition) return definition
  const adHoc = configFile === undefined
  const config = configFile?.servers[server]
  if (config && (config.blockedTools?.includes(tool) || (config.allowedTools !== undefined && !config.allowedTools.includes(tool)))) {
    const list = config.blockedTools?.includes(tool) ? 'blockedTools' : 'allowedTools'
    throw new McpxError('NOT_FOUND', `tool "${tool}" of server "${server}" is blocked by the config (${list})`, {
      server,
      tool,
      blocked: true,
    })
  }
  throw unknownToolError(
    server,
    tool,
    catalog.tools.map((t) => String((t as { name: unknown }).name)),
    adHoc,
  )
}

async function buildArguments(
  json: string | undefined,
  tokens: string[],
  definition: Record<string, unknown>,
  stdin: Stdin,
  note: Note,
  label: string,
): Promise<Record<string, unknown>> {
  const base = await baseArguments(json, tokens, definition, stdin)
  const callArguments = parseCallArguments(
    tokens.filter((t) => t !== '-'),
    definition.inputSchema,
    { readFile: readArgumentFile, base },
  )
  const undeclared = undeclaredArguments(callArguments, definition.inputSchema)
  if (undeclared.length === 0) {
    precheckArguments(callArguments, definition.inputSchema)
    return callArguments
  }
  const declared = Object.keys((definition.inputSchema as { properties: object }).properties)
  const hints = undeclared.flatMap((key) => suggest(key, declared))
  const quoted = (keys: string[]) => keys.map((key) => `"${key}"`).join(', ')
  const stray = `${label} takes no argument ${quoted(undeclared)}${hints.length ? ` (did you mean ${quoted(hints)}?)` : ''}`
  // A misspelt required argument is both missing and undeclared: the refusal names both.
  precheckArguments(callArguments, definition.inputSchema, stray)
  note(`${stray}; sent as given (its arguments: ${declared.join(', ')})`)
  return callArguments
}

/**
 * One line on stderr, unless --quiet; said once (a warm call retried against the fresh catalog builds
 * its arguments again).
 */
/**
 * The deadline of the call itself names the tool and how to give it longer (the session's message
 * names only the JSON-RPC method: "tools/call got no answer within 60000 ms").
 */
function namedTimeout(error: unknown, label: string, flag: number | undefined): unknown {
  if (!(error instanceof McpxError && error.code === 'TIMEOUT' && error.data?.method === 'tools/call')) return error
  const longer = flag === undefined ? 'setting requestTimeoutMs, MCPX_TIMEOUT_MS, or --timeout MS' : '--timeout MS'
  return new McpxError('TIMEOUT', `${label} got no answer within ${error.data.timeoutMs} ms (give it longer with ${longer})`, error.data, {
    cause: error,
  })
}

type Note = (text: string) => void
function stderrNote(quiet: boolean | undefined): Note {
  const said = new Set<string>()
  return (text) => {
    if (quiet || said.has(text)) return
    said.add(text)
    process.stderr.write(`mcpx: ${text}\n`)
  }
}

/**
 * The result on stdout (human, or --json as the spec shapes it); isError exits 1 with an error line.
 * `out`: the result's first binary block, decoded, goes to that file first; a result with none is
 * printed and then refused (NOT_FOUND), since a script asking for the file must not go on without it.
 */
async function report(
  result: Record<string, unknown>,
  how: { json: boolean; server: string; tool: string; out: string | undefined },
): Promise<void> {
  const { json, server, tool, out } = how
  const binary = out === undefined ? undefined : binaryContent(result)
  if (out !== undefined && binary !== undefined) {
    const bytes = decodeBase64(binary.base64, `${binary.mimeType} content`)
    try {
      writeFileSync(out, bytes)
    } catch (error) {
      throw new McpxError('USAGE', `cannot write ${out}: ${(error as Error).message}`, { path: out })
    }
    process.stderr.write(`mcpx: wrote ${bytes.length} bytes (${binary.mimeType}) to ${out}\n`)
  }
  // Bun's writer, not process.stdout (cli/output.ts).
  if (json) await writeStdout(`${JSON.stringify(result, null, 2)}\n`)
  else {
    const text = renderToolResult(result, binary === undefined ? {} : { out })
    await writeStdout(text.endsWith('\n') || text === '' ? text : `${text}\n`)
  }
  if (result.isError === true) {
    const message = `${server}.${tool} returned isError`
    process.stderr.write(`mcpx: ${message}\n`)
    if (json || !stderrIsTty()) process.stderr.write(`${JSON.stringify({ error: { code: 'TOOL', message } })}\n`)
    setExitCode(EXIT.TOOL)
  } else if (out !== undefined && binary === undefined)
    throw new McpxError('NOT_FOUND', `${server}.${tool} returned no image, audio or binary resource to write to ${out}`, { path: out })
}

interface Stdin {
  readonly text: () => Promise<string>
}

/** stdin read at most once, and only when asked. */
function onceStdin(): Stdin {
  let read: Promise<string> | undefined
  return { text: () => (read ??= new Response(Bun.stdin.stream()).text()) }
}

/**
 * `--args JSON`, or JSON on stdin: with `-`, or with no arguments at all for a tool that has
 * required parameters while stdin is a pipe or file. A tool without required parameters never
 * waits on an open stdin (a CI runner or parent process may leave it open).
 */
async function baseArguments(
  json: string | undefined,
  tokens: string[],
  definition: Record<string, unknown>,
  stdin: Stdin,
): Promise<Record<string, unknown>> {
  if (json !== undefined) return parseJsonObject(json, '--args')
  const schema = (definition.inputSchema ?? {}) as { required?: unknown }
  const needsSome = Array.isArray(schema.required) && schema.required.length > 0
  const wantsStdin = tokens.includes('-') || (tokens.length === 0 && needsSome && stdinIsPiped())
  if (!wantsStdin) return {}
  const text = (await stdin.text()).trim()
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
