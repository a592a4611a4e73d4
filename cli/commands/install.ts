/**
 * `mcpx install <host>`: add the one mcpx entry (`mcpx serve` as the running binary — `mcpx` when
 * PATH finds that very file — plus MCPX_HOME/MCPX_CONFIG in `env` when set, in the host's own
 * shape) to that host's user config, after backing the file up. `--dry-run` prints the entry.
 */
import { defineCommand } from 'citty'
import { HOST_IDS, type HostId, installHost, isHostId } from '../../lib/config/index.ts'
import { McpxError } from '../../lib/errors/index.ts'
import { commonArgs } from '../args.ts'
import { loadContext } from '../context.ts'
import { mcpxLaunch } from '../self.ts'
import { printJson } from '../render.ts'

export default defineCommand({
  meta: { name: 'install', description: `Register mcpx (\`mcpx serve\`) in a host's MCP config (${HOST_IDS.join(', ')})` },
  args: {
    ...commonArgs,
    host: { type: 'positional', required: true, description: `One of ${HOST_IDS.join(', ')}` },
    'dry-run': { type: 'boolean', description: 'Show what would change; write nothing' },
  },
  run({ args }) {
    const ctx = loadContext(args)
    if (!isHostId(args.host)) throw new McpxError('USAGE', `unknown host "${args.host}" (one of ${HOST_IDS.join(', ')})`)
    const result = installHost(
      args.host as HostId,
      { home: ctx.paths.userHome, cwd: process.cwd(), platform: process.platform, configHome: ctx.paths.configHome, mcpx: mcpxLaunch(ctx) },
      { dryRun: Boolean(args['dry-run']) },
    )
    if (ctx.json) {
      printJson({ ...result, dryRun: Boolean(args['dry-run']) })
      return
    }
    const verb = { created: 'created', added: 'added mcpx to', updated: 'updated the mcpx entry in', unchanged: 'mcpx is already in' }[
      result.action
    ]
    const lines = [`${args['dry-run'] && result.action !== 'unchanged' ? `dry run: would have ${verb}` : verb} ${result.file}`]
    lines.push(`entry "mcpx": ${JSON.stringify(result.entry)}`)
    if (result.backup) lines.push(`previous file saved as ${result.backup}`)
    if (result.droppedComments) lines.push('note: comments in the old file were not kept (they are in the backup)')
    process.stdout.write(`${lines.join('\n')}\n`)
  },
})
