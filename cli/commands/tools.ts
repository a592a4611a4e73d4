/**
 * `mcpx tools [server]`: compact tool signatures per upstream (required parameters first, types as
 * `mcpx types` writes them, task-only and app-only tools marked). `--url URL` or `--stdio "CMD"`
 * lists an ad-hoc server without a config.
 */
import { defineCommand } from 'citty'
import type { Catalog, ServerStatus } from '../../lib/daemon/index.ts'
import type { McpxError } from '../../lib/errors/index.ts'
import { splitQualified, unknownToolError } from '../../lib/gateway/index.ts'
import { commonArgs } from '../args.ts'
import { loadConfiguredContext } from '../configured-context.ts'
import { hostArgs, rootUris } from '../host.ts'
import { repeatable } from '../parse.ts'
import { withNotice } from '../progress.ts'
import { firstLine, printJson } from '../render.ts'
import { renderToolDetail, renderToolSignature } from '../signature.ts'
import { openServer } from '../target.ts'
import { daemonClient } from './daemon.ts'

export default defineCommand({
  meta: {
    name: 'tools',
    description:
      'List upstream tools: mcpx tools [server], one in full: mcpx tools server.tool, or an ad-hoc server: mcpx tools --url URL / --stdio "CMD"',
  },
  args: {
    ...commonArgs,
    server: {
      type: 'positional',
      description: 'Only this server (a configured name, or a URL), or server.tool for one tool in full',
      required: false,
    },
    url: { type: 'string', description: 'Ad-hoc HTTP server at this URL (no config needed)', valueHint: 'url' },
    stdio: { type: 'string', description: 'Ad-hoc stdio server: this command line (no config needed)', valueHint: 'command' },
    root: repeatable({ ...hostArgs.root }),
  },
  async run({ args }) {
    const ctx = loadConfiguredContext(args, {}, { tolerant: true })
    const noStdin = () => Promise.resolve('')
    if (args.url !== undefined || args.stdio !== undefined || (args.server !== undefined && /^https?:\/\//i.test(args.server))) {
      const session = await openServer(ctx, args, args.server, noStdin)
      try {
        const catalog = await session.catalog()
        if (ctx.json) return printJson([{ server: session.label, tools: catalog.tools }])
        process.stdout.write(`${session.label}\n`)
        for (const tool of catalog.tools) process.stdout.write(`  ${renderToolSignature(tool)}\n`)
      } finally {
        await session.close()
      }
      return
    }
    const client = daemonClient(ctx, args, true)
    // `server.tool`: that one tool in full.
    const one = args.server?.includes('.') ? splitQualified(args.server) : undefined
    if (one !== undefined) {
      const catalog = await client.request<Catalog>('catalog', { name: one.server, roots: rootUris(process.cwd(), args.root) })
      const tool = (catalog.tools as Record<string, unknown>[]).find((t) => t.name === one.tool)
      if (tool === undefined)
        throw unknownToolError(
          one.server,
          one.tool,
          catalog.tools.map((t) => String((t as { name: unknown }).name)),
        )
      if (ctx.json) return printJson([{ server: one.server, tools: [tool] }])
      process.stdout.write(`${renderToolDetail(one.server, tool).join('\n')}\n`)
      return
    }
    const names = args.server
      ? [args.server]
      : (await client.request<ServerStatus[]>('servers')).filter((s) => s.state !== 'disabled').map((s) => s.name)
    const roots = rootUris(process.cwd(), args.root)
    const results = await withNotice(
      `connecting to ${names.length === 1 ? names[0] : `${names.length} servers (${names.join(', ')})`}`,
      ctx.settings.cliSlowNoticeMs,
      () => Promise.allSettled(names.map((name) => client.request<Catalog>('catalog', { name, roots }))),
    )
    if (args.server && results[0]?.status === 'rejected') throw results[0].reason
    if (ctx.json) {
      return printJson(
        results.map((r, i) =>
          r.status === 'fulfilled'
            ? { server: names[i], tools: r.value.tools }
            : { server: names[i], error: (r.reason as McpxError).toJSON?.() ?? String(r.reason) },
        ),
      )
    }
    results.forEach((r, i) => {
      if (r.status === 'rejected') {
        const message = (r.reason as Error).message
        process.stdout.write(`${names[i]}  (unavailable: ${args.verbose ? message : firstLine(message)})\n`)
        return
      }
      process.stdout.write(`${names[i]}\n`)
      for (const tool of r.value.tools as Record<string, unknown>[]) process.stdout.write(`  ${names[i]}.${renderToolSignature(tool)}\n`)
    })
  },
})
