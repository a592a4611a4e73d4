/**
 * `mcpx status`: the daemon of this config (running or not, where it listens, its actual TCP port)
 * and every configured server with its state; `--all` every daemon running under this mcpx home;
 * `--verbose` also the variables the config references and where each value came from. Not
 * running is a state, not an error: exit 0. A config file the daemon could not load is: one line
 * on stderr and exit 2, while the daemon keeps serving its previous version.
 */
import { defineCommand } from 'citty'
import { type DaemonInfo, type ServerStatus, configProblemLine, configuredStatus } from '../../lib/daemon/index.ts'
import { McpxError } from '../../lib/errors/index.ts'
import { commonArgs } from '../args.ts'
import { loadConfiguredContext } from '../configured-context.ts'
import { allDaemons, daemonClient, describeDaemon, describeEnvironment, isOtherBuild } from './daemon.ts'
import { printJson, serverTable } from '../render.ts'

export default defineCommand({
  meta: { name: 'status', description: 'Show the daemon and the configured servers with their state (--all: every running daemon)' },
  args: { ...commonArgs, all: { type: 'boolean', description: 'Every daemon running under this mcpx home (one per config location)' } },
  async run({ args }) {
    const ctx = loadConfiguredContext(args, {}, { tolerant: true })
    if (args.all) {
      const daemons = await allDaemons(ctx)
      if (ctx.json) return printJson(daemons)
      const lines = daemons.map(
        (info) =>
          `pid ${String(info.pid).padEnd(8)} ${info.tcp.url.padEnd(24)} ${info.config ?? `built-in default (${info.location})`}${info.configProblem ? '  (config not loaded)' : ''}`,
      )
      process.stdout.write(daemons.length === 0 ? `no daemon running (home ${ctx.paths.home})\n` : `${lines.join('\n')}\n`)
      return
    }
    const client = daemonClient(ctx, args, false, { reportBuild: false })
    const daemon: DaemonInfo | null = await client.health()
    const servers: ServerStatus[] = daemon
      ? await client.request<ServerStatus[]>('servers')
      : Object.values(ctx.config.servers).map(configuredStatus)
    const problem = daemon ? configProblemLine(daemon) : ctx.configError ? `${ctx.configError.message}; no daemon running` : null
    if (ctx.json)
      printJson({
        daemon,
        config: daemon ? daemon.config : ctx.config.source,
        servers,
        ...(daemon && { otherBuild: isOtherBuild(daemon) }),
        ...(problem !== null && { configProblem: problem }),
      })
    else {
      const head = daemon
        ? describeDaemon(daemon)
        : `daemon   not running (home ${ctx.paths.home})\nconfig   ${ctx.config.source ?? 'built-in default'}`
      const environment = args.verbose && daemon ? describeEnvironment(daemon) : ''
      const table = serverTable(servers, { verbose: args.verbose === true, indent: '  ' })
      process.stdout.write(`${head}\n${environment}servers${servers.length === 0 ? '  (none)' : ''}\n${table}`)
    }
    if (problem !== null) throw new McpxError('CONFIG', problem, { configProblem: true })
  },
})
