/**
 * `mcpx status`: the daemon (running or not, where it listens, its actual TCP port) and every
 * configured server with its state. Not running is a state, not an error: exit 0.
 */
import { defineCommand } from 'citty'
import { homeLayout } from '../../lib/config/index.ts'
import { DaemonClient, type DaemonInfo, type ServerStatus, configuredStatus } from '../../lib/daemon/index.ts'
import { commonArgs } from '../args.ts'
import { loadConfiguredContext } from '../context.ts'
import { describeDaemon } from './daemon.ts'
import { printJson } from '../render.ts'

export default defineCommand({
  meta: { name: 'status', description: 'Show the daemon and the configured servers with their state' },
  args: commonArgs,
  async run({ args }) {
    const ctx = loadConfiguredContext(args)
    const client = new DaemonClient({ layout: homeLayout(ctx.paths.home), healthTimeoutMs: ctx.settings.daemonStartTimeoutMs })
    const daemon: DaemonInfo | null = await client.health()
    const servers: ServerStatus[] = daemon ? await client.request<ServerStatus[]>('servers') : Object.values(ctx.config.servers).map(configuredStatus)
    if (ctx.json) {
      printJson({ daemon, config: daemon ? daemon.config : ctx.config.source, servers })
      return
    }
    const head = daemon ? describeDaemon(daemon) : `daemon   not running (home ${ctx.paths.home})\nconfig   ${ctx.config.source ?? 'built-in default'}`
    const width = Math.max(6, ...servers.map((server) => server.name.length))
    const rows = servers.map((server) => `  ${server.name.padEnd(width)}  ${server.state.padEnd(10)}  ${server.transport.padEnd(5)}  ${server.endpoint}`)
    process.stdout.write(`${head}\nservers${servers.length === 0 ? '  (none)' : ''}\n${rows.join('\n')}${rows.length ? '\n' : ''}`)
  },
})
