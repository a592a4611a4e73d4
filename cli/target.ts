/**
 * How a CLI command reaches one server: a configured name goes through the daemon (started on
 * demand); an ad-hoc target — a URL (`https://host/mcp`) or `--stdio "command args"` — is
 * connected directly through the same client (era probe, OAuth from stored credentials) without
 * touching the config or the daemon. Either way the CLI is the host: roots, elicitation and
 * sampling are answered as cli/host.ts says.
 */
import type { ServerConfig } from '../lib/config/index.ts'
import type { Catalog, DaemonClient } from '../lib/daemon/index.ts'
import { McpxError } from '../lib/errors/index.ts'
import type { CliContext } from './context.ts'
import { type HostOptions, callFollower, followCall, hostParams, readAnswers, rootUris } from './host.ts'
import { cacheTools, cachedTool } from './schema-cache.ts'
import { withNotice } from './progress.ts'
import { stderrMayBeTty } from './tty.ts'
import { daemonClient } from './daemon-client.ts'

type JsonObject = Record<string, unknown>

export interface ServerSession {
  /** The server's name (configured) or its URL/command (ad-hoc). */
  readonly label: string
  readonly adHoc: boolean
  catalog(): Promise<Catalog>
  /** A definition an earlier command cached from this server's catalog (daemon sessions; cli/schema-cache.ts). */
  cachedTool?(tool: string): JsonObject | undefined
  /**
   * `task`: run a task-optional tool as a task (`mcpx call --task`). `inputSchemaHash`: the
   * arguments were built against a cached schema; a daemon whose schema differs refuses the call
   * before it runs (McpxError NOT_FOUND with data.staleSchema).
   */
  call(
    tool: string,
    args: JsonObject,
    options: { timeoutMs?: number; showProgress?: boolean; task?: boolean; inputSchemaHash?: string },
  ): Promise<JsonObject>
  request(method: string, params: JsonObject, options?: { timeoutMs?: number }): Promise<JsonObject>
  close(): Promise<void>
}

export interface TargetFlags {
  json?: boolean
  verbose?: boolean
  quiet?: boolean
  config?: string
  root?: string | string[]
  answers?: string
  open?: boolean
  stdio?: string
  url?: string
}

export function isUrl(text: string): boolean {
  return /^https?:\/\//i.test(text)
}

const NAME_LIKE = /^\w[\w.-]*$/

/**
 * `server name rest…` read as `server.name rest…`: the lists print names without their server
 * (`mcpx prompt list ev`), so the two words are what a user types next. A second word that is an
 * argument (`key=value`, `-`, `{json}`) leaves the first as given, to be refused as no `server.name`.
 */
export function joinedTarget(words: readonly string[]): string[] {
  const [first, second, ...rest] = words
  if (first === undefined || second === undefined || /[./]/.test(first) || !NAME_LIKE.test(second)) return [...words]
  return [`${first}.${second}`, ...rest]
}

/** Split "npx -y pkg" into argv (double/single quotes group words; no shell expansion). */
export function splitCommand(text: string): string[] {
  const words: string[] = []
  const pattern = /"([^"]*)"|'([^']*)'|(\S+)/g
  for (const match of text.matchAll(pattern)) words.push(match[1] ?? match[2] ?? match[3]!)
  if (words.length === 0)
    throw new McpxError('USAGE', '--stdio needs a command, e.g. --stdio "npx -y @modelcontextprotocol/server-everything"')
  return words
}

export async function hostOptions(
  ctx: CliContext,
  args: TargetFlags,
  label: string,
  stdinText: () => Promise<string>,
): Promise<HostOptions> {
  const answers = await readAnswers(args.answers, stdinText)
  return {
    roots: rootUris(process.cwd(), args.root),
    ...(answers !== undefined && { answers }),
    ...(args.open !== undefined && { open: args.open }),
    samplingCommand: ctx.settings.samplingCommand,
    label,
  }
}

/** `server` is a configured name or a URL; `args.stdio` (a command line) overrides it. */
export async function openServer(
  ctx: CliContext,
  args: TargetFlags,
  server: string | undefined,
  stdinText: () => Promise<string>,
): Promise<ServerSession> {
  const adHoc = adHocConfig(args, server)
  const label = adHoc ? adHocLabel(adHoc) : server
  if (label === undefined) throw new McpxError('USAGE', 'name a server (configured), a URL, or --stdio "command"')
  const host = await hostOptions(ctx, args, label, stdinText)
  // Loaded only for ad-hoc targets: the gateway's Upstream and OAuth are not on a daemon call's path.
  if (adHoc) return (await import('./direct-session.ts')).directSession(ctx, adHoc, host)
  return daemonSession(ctx, daemonClient(ctx, args, true), label, host)
}

function adHocConfig(args: TargetFlags, server: string | undefined): ServerConfig | undefined {
  const base = { disabled: false, codemode: true } as const
  if (args.stdio !== undefined) {
    const [command, ...rest] = splitCommand(args.stdio)
    return { ...base, name: 'stdio', target: { kind: 'stdio', command: command!, args: rest, env: {} } }
  }
  const url = args.url ?? (server !== undefined && isUrl(server) ? server : undefined)
  if (url === undefined) return undefined
  try {
    new URL(url)
  } catch {
    throw new McpxError('USAGE', `${JSON.stringify(url)} is not a URL`)
  }
  return { ...base, name: new URL(url).host, target: { kind: 'http', url, headers: {}, transport: 'auto' } }
}

function adHocLabel(config: ServerConfig): string {
  const target = config.target
  return target.kind === 'stdio' ? [target.command, ...target.args].join(' ') : target.url
}

function daemonSession(ctx: CliContext, client: DaemonClient, server: string, host: HostOptions): ServerSession {
  const delay = ctx.settings.cliSlowNoticeMs
  const layout = client.options.layout
  return {
    label: server,
    adHoc: false,
    async catalog() {
      const catalog = await withNotice(`connecting to ${server}`, delay, () =>
        client.request<Catalog>('catalog', { name: server, roots: host.roots }),
      )
      cacheTools(layout, server, catalog.tools as JsonObject[])
      return catalog
    },
    cachedTool: (tool) => cachedTool(layout, server, tool),
    // One streamed round trip (lib/daemon/call-stream.ts): the call's progress and questions come on its own answer.
    async call(tool, args, options) {
      const follower = callFollower(client, {
        ...(options.showProgress !== undefined && { showProgress: options.showProgress }),
        host,
        settings: ctx.settings,
        label: `${server}.${tool}`,
      })
      const params = {
        server,
        tool,
        arguments: args,
        ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
        ...(options.task && { task: true }),
        ...(options.inputSchemaHash !== undefined && { inputSchemaHash: options.inputSchemaHash }),
        progressId: follower.id,
        // The upstream's log lines come on the call's answer only when they may be shown (cli/host.ts decides).
        ...((options.showProgress ?? stderrMayBeTty()) && { logLevel: 'info' }),
        host: hostParams(host),
      }
      return client
        .callStream<JsonObject>(params, (line) =>
          line.type === 'call.progress' || line.type === 'call.input' || line.type === 'call.log'
            ? follower.handle(line.type, line.data)
            : undefined,
        )
        .finally(() => follower.stop())
    },
    async request(method, params, options = {}) {
      const follow = followCall(client, { showProgress: false, host, settings: ctx.settings, label: `${server} ${method}` })
      return client
        .request<JsonObject>('request', {
          server,
          method,
          params,
          ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
          progressId: follow.id,
          host: hostParams(host),
        })
        .finally(() => follow.stop())
    },
    close: async () => {},
  }
}
