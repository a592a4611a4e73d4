/** `mcpx types [server[.tool]] [--query q]`: TypeScript declarations of upstream tools as code mode sees them. */
import { defineCommand } from 'citty'
import { commonArgs } from '../args.ts'
import { loadConfiguredContext } from '../context.ts'
import { printJson } from '../render.ts'
import { daemonClient } from './daemon.ts'

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
    const { declarations } = await daemonClient(ctx, args, true).request<{ declarations: string }>('types', params)
    if (ctx.json) return printJson({ declarations })
    process.stdout.write(declarations.endsWith('\n') ? declarations : `${declarations}\n`)
  },
})
