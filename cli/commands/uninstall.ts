/** `mcpx uninstall <host>`: remove the mcpx entry from a host's config, after backing the file up. */
import { defineCommand } from 'citty'
import { HOST_IDS, type HostId, isHostId, uninstallHost } from '../../lib/config/index.ts'
import { McpxError } from '../../lib/errors/index.ts'
import { commonArgs } from '../args.ts'
import { loadContext } from '../context.ts'
import { printJson } from '../render.ts'

export default defineCommand({
  meta: { name: 'uninstall', description: `Remove mcpx from a host's MCP config (${HOST_IDS.join(', ')})` },
  args: {
    ...commonArgs,
    host: { type: 'positional', required: true, description: `One of ${HOST_IDS.join(', ')}` },
    'dry-run': { type: 'boolean', description: 'Show what would be removed; write nothing' },
  },
  run({ args }) {
    const ctx = loadContext(args)
    if (!isHostId(args.host)) throw new McpxError('USAGE', `unknown host "${args.host}" (one of ${HOST_IDS.join(', ')})`)
    const dryRun = Boolean(args['dry-run'])
    const result = uninstallHost(
      args.host as HostId,
      { home: ctx.paths.userHome, cwd: process.cwd(), platform: process.platform, configHome: ctx.paths.configHome },
      { dryRun },
    )
    if (ctx.json) return printJson({ ...result, dryRun })
    const lines = [
      result.action === 'absent'
        ? `mcpx is not in ${result.file}`
        : `${dryRun ? 'dry run: would remove' : 'removed'} mcpx from ${result.file}`,
    ]
    if (result.backup) lines.push(`previous file saved as ${result.backup}`)
    if (result.droppedComments) lines.push('note: comments in the old file were not kept (they are in the backup)')
    process.stdout.write(`${lines.join('\n')}\n`)
  },
})
