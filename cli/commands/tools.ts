/** `mcpx tools [server]`: compact tool signatures per upstream (required parameters first). */
import { defineCommand } from 'citty'
import type { Catalog, ServerStatus } from '../../lib/daemon/index.ts'
import { McpxError } from '../../lib/errors/index.ts'
import { commonArgs } from '../args.ts'
import { loadConfiguredContext } from '../context.ts'
import { printJson, renderToolSignature } from '../render.ts'
import { daemonClient } from './daemon.ts'

export default defineCommand({
  meta: { name: 'tools', description: 'List upstream tools: mcpx tools [server]' },
  args: { ...commonArgs, server: { type: 'positional', description: 'Only this server', required: false } },
  async run({ args }) {
    const ctx = loadConfiguredContext(args, {}, { tolerant: true })
    const client = daemonClient(ctx, args, true)
    const names = args.server ? [args.server] : (await client.request<ServerStatus[]>('servers')).filter((s) => s.state !== 'disabled').map((s) => s.name)
    const results = await Promise.allSettled(names.map((name) => client.request<Catalog>('catalog', { name })))
    if (args.server && results[0]?.status === 'rejected') throw results[0].reason
    if (ctx.json) {
      return printJson(
        results.map((r, i) => (r.status === 'fulfilled' ? { server: names[i], tools: r.value.tools } : { server: names[i], error: (r.reason as McpxError).toJSON?.() ?? String(r.reason) })),
      )
    }
    results.forEach((r, i) => {
      if (r.status === 'rejected') {
        process.stdout.write(`${names[i]}  (unavailable: ${(r.reason as Error).message})\n`)
        return
      }
      process.stdout.write(`${names[i]}\n`)
      for (const tool of r.value.tools as Record<string, unknown>[]) process.stdout.write(`  ${names[i]}.${renderToolSignature(tool)}\n`)
    })
  },
})
