/**
 * The gateway's own direct tools: `mcpx_call` (one call to any upstream tool, questions brokered
 * back to the caller) and `mcpx_catalog` (servers, state and tool counts, compactly). Their
 * descriptions are written for models: what to pass and what comes back.
 */
import type { AccessView } from '../../access/index.ts'
import type { ToolDef } from '../../server/index.ts'
import { appOf, appResourceUri, isAppResourceUri } from '../apps.ts'
import { splitQualified } from '../naming.ts'
import type { UpstreamPool } from '../upstream-pool.ts'
import { brokeredCall } from './brokered-call.ts'
import type { ParkingLot } from './parking.ts'
import { relayResult } from './upstream-result.ts'

export function callTool(pool: UpstreamPool, parking: ParkingLot, view?: AccessView): ToolDef {
  return {
    name: 'mcpx_call',
    title: 'Call an upstream tool',
    description:
      'Call one upstream tool and return its result unchanged. `tool` is "<server>.<tool>" (names: mcpx_search, ' +
      'mcpx_catalog). Example: {"tool": "github.search_issues", "arguments": {"query": "bug"}}.',
    inputSchema: {
      type: 'object',
      properties: {
        tool: { type: 'string', description: 'Qualified tool name: <server>.<tool>' },
        arguments: { type: 'object', description: 'Arguments for that tool (its inputSchema)', additionalProperties: true },
      },
      required: ['tool'],
      additionalProperties: false,
    },
    annotations: { openWorldHint: true },
    handler: async (args, ctx) => {
      const { server, tool } = splitQualified(String(args.tool))
      const toolArgs = (args.arguments ?? {}) as Record<string, unknown>
      const result = await brokeredCall(ctx, parking, (asker, signal, extra) =>
        pool.call(server, tool, toolArgs, { ...extra, asker, signal, ...(view && { view }) }),
      )
      return relayResult(result)
    },
  }
}

/** With `view`, only the servers and tools that principal may use (policy.ts). */
export function catalogTool(pool: UpstreamPool, view?: AccessView): ToolDef {
  return {
    name: 'mcpx_catalog',
    title: 'List upstream servers and tools',
    description: "The upstream MCP servers with their state and tool count; with `server`, that server's tools.",
    inputSchema: {
      type: 'object',
      properties: { server: { type: 'string', description: 'Only this server: list its tools' } },
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
    handler: async (args) => {
      const allowed = (server: string, tool: string) => !view || view.item(server, tool).allowed
      if (typeof args.server === 'string') {
        const catalog = await pool.catalog(args.server)
        const server = args.server
        const tools = catalog.tools
          .filter((t) => allowed(server, String(t.name)))
          .map((t) => {
            // MCP Apps: a tool whose results a UI renders names it (the ui:// URI the surfaces serve).
            const app = appOf(t)
            const entry = { name: `${server}.${String(t.name)}`, description: firstLine(t.description) }
            return app !== undefined && isAppResourceUri(app) ? { ...entry, app: appResourceUri(server, app) } : entry
          })
        const text = tools.map((t) => `${t.name}${'app' in t ? ' [app]' : ''}${t.description ? ` — ${t.description}` : ''}`).join('\n')
        return {
          content: [{ type: 'text', text: text || `${args.server} has no tools` }],
          structuredContent: { server: args.server, tools },
        }
      }
      const { catalogs, failures } = await pool.catalogs()
      const counts = new Map(catalogs.map((c) => [c.server, c.tools.filter((t) => allowed(c.server, String(t.name))).length]))
      // A principal sees the servers it may use something of, nothing else (not even their names).
      const visible = pool.servers().filter((s) => !view || (counts.get(s.name) ?? 0) > 0 || view.server(s.name))
      const servers = visible.map((s) => ({
        name: s.name,
        state: s.state,
        ...(s.reason !== undefined && { reason: s.reason }),
        ...(counts.has(s.name) && { tools: counts.get(s.name) }),
        ...(s.era && { era: s.era }),
        ...(failures.find((f) => f.server === s.name) && { error: failures.find((f) => f.server === s.name)!.error.message }),
      }))
      const text = servers
        .map(
          (s) =>
            `${s.name}: ${s.state}${s.reason !== undefined ? `: ${s.reason}` : ''}${s.tools !== undefined ? `, ${s.tools} tools` : ''}${s.error ? ` (${s.error})` : ''}`,
        )
        .join('\n')
      return { content: [{ type: 'text', text: text || 'no servers configured' }], structuredContent: { servers } }
    },
  }
}

function firstLine(value: unknown): string {
  return typeof value === 'string' ? value.split('\n')[0]!.trim() : ''
}
