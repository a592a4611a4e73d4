/**
 * `mcpx daemon start|stop|status|run`, plus one subcommand per /v1 operation derived from the
 * operation table (`mcpx daemon servers`, `... catalog --name demo`, `... call --server s --tool t`).
 * `run` is the foreground daemon; `start` spawns a detached `run` and waits until it listens.
 */
import { type ArgsDef, type CommandDef, defineCommand } from 'citty'
import { findConfigFile, homeLayout } from '../../lib/config/index.ts'
import { type ConnectRetry, DaemonClient, type DaemonInfo, OPERATIONS, type Operation, announceReady, startGatewayDaemon } from '../../lib/daemon/index.ts'
import { McpxError } from '../../lib/errors/index.ts'
import { commonArgs } from '../args.ts'
import { type CliContext, loadConfiguredContext, loadContext } from '../context.ts'
import { VERSION } from '../version.ts'
import { printJson } from '../render.ts'

type CommonFlags = { json?: boolean; verbose?: boolean; quiet?: boolean; config?: string }

/** The client every daemon-facing command uses; it starts the daemon on demand when `autostart`. */
export function daemonClient(ctx: CliContext, args: CommonFlags, autostart: boolean): DaemonClient {
  const configArgs = args.config ? ['--config', args.config] : []
  return new DaemonClient({
    layout: homeLayout(ctx.paths.home),
    expectConfig: findConfigFile(ctx.paths),
    healthTimeoutMs: ctx.settings.daemonStartTimeoutMs,
    connectRetry: connectRetry(ctx.settings),
    stopTimeoutMs: ctx.settings.daemonStopTimeoutMs,
    ...(autostart && { start: { argv: [...ctx.self, 'daemon', 'run', ...configArgs], timeoutMs: ctx.settings.daemonStartTimeoutMs, logMaxBytes: ctx.settings.daemonLogMaxBytes } }),
  })
}

/** Connects a busy daemon refused are retried within the request deadline (lib/daemon/connect.ts). */
export function connectRetry(settings: CliContext['settings']): ConnectRetry {
  return {
    deadlineMs: settings.requestTimeoutMs > 0 ? settings.requestTimeoutMs : settings.daemonStartTimeoutMs,
    backoffMs: settings.daemonConnectBackoffMs,
    backoffMaxMs: settings.daemonConnectBackoffMaxMs,
  }
}

export function describeDaemon(info: DaemonInfo): string {
  return [
    `daemon   running (pid ${info.pid}, mcpx ${info.version}, up ${Math.round(info.uptimeMs / 1000)}s)`,
    `socket   ${info.socket}`,
    `tcp      ${info.tcp.url} (bearer token in ${info.home}/token)`,
    `config   ${info.config ?? 'built-in default'}`,
  ].join('\n')
}

const run = defineCommand({
  meta: { name: 'run', description: 'Run the daemon in the foreground until stopped, signalled or idle' },
  args: { ...commonArgs, 'ready-fd': { type: 'string', description: 'Write one JSON line on this fd once listening (used by `start`)' } },
  async run({ args }) {
    const readyFd = args['ready-fd'] === undefined ? undefined : Number(args['ready-fd'])
    let daemon
    try {
      const ctx = loadConfiguredContext(args)
      daemon = await startGatewayDaemon({ settings: ctx.settings, config: ctx.config, layout: homeLayout(ctx.paths.home), version: VERSION, handleSignals: true, parentEnv: ctx.env, reloadConfig: () => loadConfiguredContext(args).config })
    } catch (error) {
      if (readyFd !== undefined) announceReady(readyFd, { error })
      throw error
    }
    if (readyFd !== undefined) announceReady(readyFd, { info: daemon.info() })
    await daemon.closed
    // Everything is answered and closed: a lingering handle must not keep the process alive
    // (`daemon stop` waits for it to be gone).
    process.exit(0)
  },
})

const start = defineCommand({
  meta: { name: 'start', description: 'Start the daemon in the background (no-op when running) and wait until it listens' },
  args: commonArgs,
  async run({ args }) {
    const ctx = loadContext(args)
    const client = daemonClient(ctx, args, true)
    const before = await client.health()
    const info = before ?? (await client.ensureRunning())
    if (ctx.json) printJson(info)
    else process.stdout.write(`${before ? 'already running\n' : ''}${describeDaemon(info)}\n`)
  },
})

const stop = defineCommand({
  meta: { name: 'stop', description: 'Stop the daemon and every upstream it runs' },
  args: commonArgs,
  async run({ args }) {
    const ctx = loadContext(args)
    const stopped = await daemonClient(ctx, args, false).stop()
    if (ctx.json) printJson({ stopped })
    else process.stdout.write(stopped ? 'stopped\n' : 'not running\n')
  },
})

const status = defineCommand({
  meta: { name: 'status', description: 'Show whether the daemon runs and where it listens (exit 3 when it does not)' },
  args: commonArgs,
  async run({ args }) {
    const ctx = loadContext(args)
    const client = daemonClient(ctx, args, false)
    const info = await client.health()
    if (info === null) throw new McpxError('CONNECT', 'the mcpx daemon is not running', { daemon: 'unreachable', home: ctx.paths.home })
    if (ctx.json) printJson(info)
    else process.stdout.write(`${describeDaemon(info)}\n`)
  },
})

/** One citty command per /v1 operation: flags from the parameter spec, JSON result on stdout. */
function operationCommand(operation: Operation): CommandDef<any> {
  const params: ArgsDef = {}
  for (const [name, spec] of Object.entries(operation.params)) {
    params[name] = {
      type: spec.type === 'boolean' ? 'boolean' : 'string',
      description: spec.type === 'object' ? `${spec.description} (JSON)` : spec.description,
      ...(spec.required && { required: true }),
    }
  }
  return defineCommand({
    meta: { name: operation.name, description: `${operation.description} (${operation.method} ${operation.path})` },
    args: { ...commonArgs, ...params },
    async run({ args }) {
      const ctx = loadContext(args)
      const client = daemonClient(ctx, args, true)
      const values: Record<string, unknown> = {}
      for (const [name, spec] of Object.entries(operation.params)) {
        const raw = args[name]
        if (raw === undefined) continue
        values[name] = spec.type === 'object' ? parseJsonFlag(name, String(raw)) : spec.type === 'integer' ? Number(raw) : raw
      }
      if (operation.stream) {
        await client.ensureRunning()
        for await (const event of client.events({ ...(values.lastEventId !== undefined && { lastEventId: values.lastEventId as number }) })) {
          process.stdout.write(`${JSON.stringify(event)}\n`)
        }
        return
      }
      printJson(await client.request(operation.name, values))
    },
  })
}

function parseJsonFlag(name: string, raw: string): unknown {
  try {
    return JSON.parse(raw)
  } catch {
    throw new McpxError('USAGE', `--${name} must be JSON, got ${JSON.stringify(raw)}`)
  }
}

const derived = Object.fromEntries(OPERATIONS.filter((operation) => operation.name !== 'shutdown').map((operation) => [operation.name, operationCommand(operation)]))

export default defineCommand({
  meta: { name: 'daemon', description: 'Manage the mcpx daemon (start, stop, status, run) and call its /v1 API' },
  subCommands: { start, stop, status, run, ...derived },
})
