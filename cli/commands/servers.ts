/** `mcpx servers`: every configured upstream with its state, from the daemon (started on demand). */
import { defineCommand } from 'citty'
import type { ServerStatus } from '../../lib/daemon/index.ts'
import { commonArgs } from '../args.ts'
import { loadConfiguredContext } from '../configured-context.ts'
import { firstLine, printJson, stateText } from '../render.ts'
import { daemonClient } from './daemon.ts'

export default defineCommand({
  meta: { name: 'servers', description: 'List the configured upstream servers and their state' },
  args: commonArgs,
  async run({ args }) {
    const ctx = loadConfiguredContext(args, {}, { tolerant: true })
    const servers = await daemonClient(ctx, args, true).request<ServerStatus[]>('servers')
    if (ctx.json) return printJson(servers)
    const width = Math.max(4, ...servers.map((s) => s.name.length))
    const states = servers.map((s) => (args.verbose ? stateText(s) : firstLine(stateText(s))))
    // Columns line up under the longest single-line state (a multi-line --verbose one cannot).
    const stateWidth = Math.max(10, ...states.filter((state) => !state.includes('\n')).map((state) => state.length))
    servers.forEach((s, i) => {
      const era = s.revision ? `${s.era} ${s.revision}` : ''
      process.stdout.write(
        `${s.name.padEnd(width)}  ${states[i]!.padEnd(stateWidth)}  ${s.transport.padEnd(5)}  ${era.padEnd(17)}  ${s.endpoint}${s.error && s.reason === undefined ? `  (${args.verbose ? s.error.message : firstLine(s.error.message)})` : ''}\n`,
      )
    })
  },
})
