/**
 * `mcpx daemon start|stop|restart|status|run`, plus one subcommand per /v1 operation derived from
 * the operation table (`mcpx daemon servers`, `... catalog --name demo`, `... call --server s --tool t`).
 * There is one daemon per config location (lib/config/home.ts); every subcommand addresses the one
 * of this command's config, `stop --all` every running one. `run` is the foreground daemon; `start`
 * spawns a detached `run` and waits until it listens.
 */
import { readFileSync } from 'node:fs'
import { type ArgsDef, type CommandDef, defineCommand } from 'citty'
import {
  type HomeLayout,
  type McpxConfig,
  configLocation,
  defaultConfig,
  findConfigFile,
  homeLayout,
  loadConfig,
  pickVariables,
  readEnvSnapshot,
  referencedVariables,
  resolveConfiguredSettings,
  runDirIds,
  stateFileOf,
} from '../../lib/config/index.ts'
import {
  ConfigSource,
  type Daemon,
  type DaemonInfo,
  OPERATIONS,
  type Operation,
  announceReady,
  isAlive,
  otherBuildLine,
  startGatewayDaemon,
  thisBuild,
} from '../../lib/daemon/index.ts'
import { McpxError } from '../../lib/errors/index.ts'
import { useFileLog } from '../../lib/log/index.ts'
import { commonArgs } from '../args.ts'
import { type CliContext, layoutOf, loadContext, refreshEnvSnapshot, useDaemonProxy } from '../context.ts'
import { VERSION } from '../version.ts'
import { printJson } from '../render.ts'

// The client factory lives in cli/daemon-client.ts, small enough for a call's start-up path.
export { connectRetry, daemonClient } from '../daemon-client.ts'
import { daemonClient } from '../daemon-client.ts'

export function describeDaemon(info: DaemonInfo): string {
  return [
    `daemon   running (pid ${info.pid}, mcpx ${info.version}, up ${Math.round(info.uptimeMs / 1000)}s)`,
    `socket   ${info.socket}`,
    `tcp      ${info.tcp.url} (bearer token in ${tokenFileOf(info)}; MCP at ${info.tcp.url}/mcp)`,
    `config   ${info.config ?? `built-in default (until ${info.location} exists)`}`,
    ...(isOtherBuild(info) ? [`build    ${otherBuildLine(info.build?.program)}`] : []),
  ].join('\n')
}

/** Whether the daemon was started by another mcpx binary than this one (or one too old to say). */
export function isOtherBuild(info: DaemonInfo): boolean {
  return info.build?.id !== thisBuild().id
}

function tokenFileOf(info: DaemonInfo): string {
  return homeLayout(info.home, info.location).token
}

/** Variable names (never values) and where each came from, for `status --verbose`. */
export function describeEnvironment(info: DaemonInfo): string {
  const env = info.environment
  if (env === undefined) return ''
  const names = Object.entries(env.variables)
  const rows = names.map(([name, from]) => `  \${${name}}  ${from}`)
  return `environment  ${env.source}\n${names.length === 0 ? '  (the config references no variables)\n' : `${rows.join('\n')}\n`}`
}

const run = defineCommand({
  meta: { name: 'run', description: 'Run the daemon in the foreground until stopped, signalled or idle' },
  args: { ...commonArgs, 'ready-fd': { type: 'string', description: 'Write one JSON line on this fd once listening (used by `start`)' } },
  async run({ args }) {
    const readyFd = args['ready-fd'] === undefined ? undefined : Number(args['ready-fd'])
    let daemon: Daemon | undefined
    let jitPolicy = 1
    try {
      const ctx = loadContext(args)
      const layout = layoutOf(ctx)
      // Started in the background, stderr is the log file: timestamped lines, rotated while running.
      if (readyFd !== undefined)
        useFileLog({ path: layout.daemonLog, maxBytes: ctx.settings.daemonLogMaxBytes, checkBytes: ctx.settings.daemonLogCheckBytes })
      const environment = daemonEnvironment(ctx, layout)
      const demoCommand = [...ctx.self, 'demo-server']
      const explicit = ctx.paths.explicitConfig !== undefined
      let source: ConfigSource | undefined
      source = new ConfigSource({
        watched: (): string[] => {
          const current: McpxConfig | undefined = source?.config
          return [
            ...(explicit ? [layout.config] : ctx.paths.configCandidates),
            layout.envSnapshot,
            ...(current?.envFile ? [current.envFile] : []),
          ]
        },
        load: () => {
          const values = environment.values()
          useDaemonProxy(values)
          return loadConfig({ paths: ctx.paths, env: values, envSource: environment.source(), demoCommand, check: true })
        },
        empty: { ...defaultConfig(demoCommand), servers: {}, source: findConfigFile(ctx.paths) },
        emit: (type, data) => daemon?.events.publish(type, data),
        debounceMs: ctx.settings.configReloadDebounceMs,
        pollMs: ctx.settings.configPollMs,
      })
      const loaded = source
      const settings = resolveConfiguredSettings(ctx.env, loaded.config)
      jitPolicy = settings.daemonJitPolicy
      daemon = await startGatewayDaemon({
        settings,
        config: loaded.config,
        configSource: loaded,
        layout,
        version: VERSION,
        handleSignals: true,
        parentEnv: () => pickVariables(environment.values(), []),
        environment: () => ({ source: environment.source(), variables: loaded.config.variables ?? {} }),
      })
    } catch (error) {
      if (readyFd !== undefined) announceReady(readyFd, { error })
      throw error
    }
    // The start-up scale the binary was built with (scripts/build.ts) is for run-once code; from
    // here on the daemon serves calls for a long time.
    Bun.unsafe.setJITPolicy(Math.max(1, jitPolicy))
    if (readyFd !== undefined) announceReady(readyFd, { info: daemon.info() })
    await daemon.closed
    // Everything is answered and closed: a lingering handle must not keep the process alive
    // (`daemon stop` waits for it to be gone).
    process.exit(0)
  },
})

/**
 * The environment this daemon resolves `${VAR}` in and hands its upstreams the baseline of
 * (lib/config/environment.ts): the snapshot of the last shell command, else its own environment
 * (only the baseline and the variables the config references). Re-read at every config load.
 */
function daemonEnvironment(ctx: CliContext, layout: HomeLayout): { values: () => Record<string, string>; source: () => string } {
  const own = () => {
    const file = findConfigFile(ctx.paths)
    let names: string[] = []
    try {
      if (file !== null) names = referencedVariables(readFileSync(file, 'utf8'))
    } catch {
      // unreadable: the load reports it
    }
    return pickVariables(ctx.env, names)
  }
  return {
    values: () => ({ ...(readEnvSnapshot(layout.envSnapshot)?.variables ?? own()) }),
    source: () =>
      readEnvSnapshot(layout.envSnapshot)
        ? `the environment snapshot ${layout.envSnapshot} (the last shell command)`
        : "the daemon's own environment (no snapshot yet)",
  }
}

const allFlag = { all: { type: 'boolean', description: 'Every daemon running under this mcpx home (one per config location)' } } as const

const start = defineCommand({
  meta: { name: 'start', description: 'Start the daemon of this config in the background (no-op when running) and wait until it listens' },
  args: commonArgs,
  async run({ args }) {
    const ctx = loadContext(args)
    const client = daemonClient(ctx, args, true, { reportBuild: false })
    const before = await client.health()
    const info = before ?? (await client.ensureRunning())
    if (ctx.json) printJson(info)
    else process.stdout.write(`${before ? 'already running\n' : ''}${describeDaemon(info)}\n`)
  },
})

/** Layouts of every daemon that left a state file under this home. */
function runningLayouts(ctx: CliContext): HomeLayout[] {
  const layouts: HomeLayout[] = []
  for (const id of runDirIds(ctx.paths.home)) {
    try {
      const state = JSON.parse(readFileSync(stateFileOf(ctx.paths.home, id), 'utf8')) as { location?: string; pid?: number }
      if (typeof state.location === 'string' && typeof state.pid === 'number' && isAlive(state.pid))
        layouts.push(homeLayout(ctx.paths.home, state.location))
    } catch {
      // No state file: nothing runs there.
    }
  }
  return layouts
}

/** /v1/health of every daemon running under this home. */
export async function allDaemons(ctx: CliContext): Promise<DaemonInfo[]> {
  const infos = await Promise.all(
    runningLayouts(ctx).map((layout) =>
      daemonClient(ctx, {}, false, { layout, reportBuild: false })
        .health()
        .catch(() => null),
    ),
  )
  return infos.filter((info): info is DaemonInfo => info !== null)
}

const stop = defineCommand({
  meta: { name: 'stop', description: 'Stop the daemon of this config (or every one with --all) and every upstream it runs' },
  args: { ...commonArgs, ...allFlag },
  async run({ args }) {
    const ctx = loadContext(args)
    if (args.all) {
      const layouts = runningLayouts(ctx)
      const stopped = await Promise.all(layouts.map((layout) => daemonClient(ctx, args, false, { layout, reportBuild: false }).stop()))
      const configs = layouts.filter((_, i) => stopped[i]).map((layout) => layout.config)
      if (ctx.json) printJson({ stopped: configs })
      else process.stdout.write(configs.length === 0 ? 'none running\n' : `${configs.map((config) => `stopped  ${config}`).join('\n')}\n`)
      return
    }
    const stopped = await daemonClient(ctx, args, false, { reportBuild: false }).stop()
    if (ctx.json) printJson({ stopped })
    else process.stdout.write(stopped ? 'stopped\n' : 'not running\n')
  },
})

const restart = defineCommand({
  meta: {
    name: 'restart',
    description: 'Stop the daemon of this config, then start it again (same port when free; environment snapshot refreshed)',
  },
  args: commonArgs,
  async run({ args }) {
    const ctx = loadContext(args)
    const client = daemonClient(ctx, args, true, { reportBuild: false })
    await client.stop()
    // A restart takes this shell's view of the variables as the whole snapshot.
    refreshEnvSnapshot(ctx, { replace: true })
    const info = await daemonClient(ctx, args, true, { reportBuild: false }).ensureRunning()
    if (ctx.json) printJson(info)
    else process.stdout.write(`${describeDaemon(info)}\n`)
  },
})

const status = defineCommand({
  meta: { name: 'status', description: 'Show whether the daemon of this config runs and where it listens (exit 3 when it does not)' },
  args: commonArgs,
  async run({ args }) {
    const ctx = loadContext(args)
    const client = daemonClient(ctx, args, false, { reportBuild: false })
    const info = await client.health()
    if (info === null)
      throw new McpxError('CONNECT', `the mcpx daemon for ${configLocation(ctx.paths)} is not running`, {
        daemon: 'unreachable',
        home: ctx.paths.home,
      })
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
        for await (const event of client.events({
          ...(values.lastEventId !== undefined && { lastEventId: values.lastEventId as number }),
        })) {
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

const derived = Object.fromEntries(
  OPERATIONS.filter((operation) => operation.name !== 'shutdown').map((operation) => [operation.name, operationCommand(operation)]),
)

export default defineCommand({
  meta: { name: 'daemon', description: 'Manage the mcpx daemon of a config (start, stop, restart, status, run) and call its /v1 API' },
  subCommands: { start, stop, restart, status, run, ...derived },
})
