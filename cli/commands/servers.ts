/** `mcpx servers`: every configured upstream with its state, from the daemon (started on demand). */
import { defineCommand } from 'citty'
import type { ServerStatus } from '../../lib/daemon/index.ts'
import { commonArgs } from '../args.ts'
import { loadConfiguredContext } from '../configured-context.ts'
import { printJson, serverTable } from '../render.ts'
import { daemonClient } from './daemon.ts'

export default defineCommand({
  meta: { name: 'servers', description: 'List the configured upstream servers and their state' },
  args: commonArgs,
  async run({ args }) {
    const ctx = loadConfiguredContext(args, {}, { tolerant: true })
    const servers = await daemonClient(ctx, args, true).request<ServerStatus[]>('servers')
    if (ctx.json) return printJson(servers)
    process.stdout.write(serverTable(servers, { verbose: args.verbose === true }))
  },
})
