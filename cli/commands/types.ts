/** `mcpx types [server[.tool]] [--query q]`: TypeScript declarations of upstream tools as code mode sees them. */
import { defineCommand } from 'citty'
import { commonArgs } from '../args.ts'
import { loadConfiguredContext } from '../configured-context.ts'
import { printJson } from '../render.ts'
import { daemonClient } from './daemon.ts'
import type { Catalog, DaemonClient } from '../../lib/daemon/index.ts'
import { McpxError } from '../../lib/errors/index.ts'
import { splitQualified, suggest } from '../../lib/gateway/index.ts'

/** An unknown server or tool is NOT_FOUND (exit 2), not an empty declaration. */
async function mustExist(client: DaemonClient, target: string): Promise<void> {
  const { server, tool } = target.includes('.') ? splitQualified(target) : { server: target, tool: undefined }
  const catalog = await client.request<Catalog>('catalog', { name: server })
  if (tool === undefined || catalog.tools.some((t) => t.name === tool)) return
  const hint = suggest(
    tool,
    catalog.tools.map((t) => String(t.name)),
  )
  throw new McpxError(
    'NOT_FOUND',
    `server "${server}" has no tool "${tool}"${hint.length ? ` (did you mean ${hint.map((h) => `${server}.${h}`).join(', ')}?)` : ''}`,
    { server, tool, suggestions: hint },
  )
}

export default defineCommand({
  meta: { name: 'types', description: 'TypeScript declarations of upstream tools: mcpx types [server[.tool]]' },
  args: {
    ...commonArgs,
    target: { type: 'positional', description: 'server or server.tool (default: every server)', required: false },
    query: { type: 'string', description: 'Declare the tools a search for this finds' },
  },
  async run({ args }) {
    const ctx = loadConfiguredContext(args, {}, { tolerant: true })
    const target = args.target
    const params = {
      ...(target !== undefined && (target.includes('.') ? { tool: target } : { server: target })),
      ...(args.query !== undefined && { query: args.query }),
    }
    const client = daemonClient(ctx, args, true)
    if (target !== undefined) await mustExist(client, target)
    const { declarations } = await client.request<{ declarations: string }>('types', params)
    if (ctx.json) return printJson({ declarations })
    process.stdout.write(declarations.endsWith('\n') ? declarations : `${declarations}\n`)
  },
})
