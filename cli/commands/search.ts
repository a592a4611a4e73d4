/** `mcpx search <query>`: ranked search over every upstream's tools, through the daemon. */
import { defineCommand } from 'citty'
import { McpxError } from '../../lib/errors/index.ts'
import { commonArgs } from '../args.ts'
import { loadConfiguredContext } from '../configured-context.ts'
import { printJson } from '../render.ts'
import { variadic } from '../parse.ts'
import { daemonClient } from './daemon.ts'

interface Hit {
  qualifiedName: string
  title?: string
  description: string
  score: number
}

export default defineCommand({
  meta: { name: 'search', description: 'Find upstream tools by what they do: mcpx search <query>' },
  args: {
    ...commonArgs,
    query: variadic({ type: 'positional', description: 'What the tool should do', required: true }),
    server: { type: 'string', description: 'Only this server' },
    limit: { type: 'string', description: 'Most hits', valueHint: 'n' },
  },
  async run({ args }) {
    const ctx = loadConfiguredContext(args, {}, { tolerant: true })
    const query = [args.query, ...args._.slice(1)].join(' ')
    if (query.trim() === '') throw new McpxError('USAGE', 'search: QUERY is empty (say what the tool should do)', { argument: 'query' })
    const limit = args.limit === undefined ? undefined : Number(args.limit)
    if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1))
      throw new McpxError('USAGE', `--limit must be a whole number of hits, at least 1; got "${args.limit}"`, { flag: 'limit' })
    const client = daemonClient(ctx, args, true)
    // An unknown --server is NOT_FOUND (exit 2) with suggestions, not "no tool matches".
    if (args.server !== undefined) await client.request('server', { name: args.server })
    const hits = await client.request<Hit[]>('search', {
      query,
      ...(args.server !== undefined && { server: args.server }),
      ...(limit !== undefined && { limit }),
    })
    if (ctx.json) return printJson(hits)
    if (hits.length === 0) return void process.stderr.write(`no tool matches "${query}"\n`)
    const width = Math.max(...hits.map((h) => h.qualifiedName.length))
    for (const hit of hits) process.stdout.write(`${hit.qualifiedName.padEnd(width)}  ${hit.description}\n`)
  },
})
