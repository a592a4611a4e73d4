/**
 * `mcpx import [host]`: copy server definitions from MCP hosts (Claude Code, Claude Desktop,
 * Cursor, VS Code, Windsurf, Gemini CLI, Codex, opencode) into the mcpx config. Names already in
 * the config are kept; each skipped entry is listed with its reason (entries that run mcpx itself
 * never come in), renamed ones and ones with unset variables are reported, and project-scoped
 * entries are only listed unless the target is a config given with --config (its own daemon).
 * `--dry-run` writes nothing.
 */
import { existsSync, readFileSync } from 'node:fs'
import { defineCommand } from 'citty'
import { HOST_IDS, type HostId, findConfigFile, isHostId, parseJsonc, planImport, writeImport } from '../../lib/config/index.ts'
import { McpxError } from '../../lib/errors/index.ts'
import { commonArgs } from '../args.ts'
import { loadContext } from '../context.ts'
import { runsMcpx } from '../self.ts'
import { printJson } from '../render.ts'

export default defineCommand({
  meta: { name: 'import', description: `Import MCP servers from host configs (${HOST_IDS.join(', ')}; default: all)` },
  args: {
    ...commonArgs,
    host: { type: 'positional', required: false, description: `One of ${HOST_IDS.join(', ')}` },
    'dry-run': { type: 'boolean', description: 'List what would be imported and skipped; write nothing' },
  },
  run({ args }) {
    const ctx = loadContext(args)
    if (args.host !== undefined && !isHostId(args.host))
      throw new McpxError('USAGE', `unknown host "${args.host}" (one of ${HOST_IDS.join(', ')})`)
    const hosts: readonly HostId[] = args.host === undefined ? HOST_IDS : [args.host as HostId]
    const file = findConfigFile(ctx.paths) ?? ctx.paths.defaultConfig
    const explicit = ctx.paths.explicitConfig !== undefined
    const plan = planImport(
      hosts,
      { home: ctx.paths.userHome, cwd: process.cwd(), platform: process.platform, configHome: ctx.paths.configHome },
      existingNames(file),
      {
        runsMcpx: runsMcpx(ctx),
        includeProject: explicit,
        variables: ctx.env,
      },
    )
    const dryRun = Boolean(args['dry-run'])
    const backup = !dryRun && plan.imported.length > 0 ? writeImport(file, plan.imported) : null
    if (ctx.json) {
      printJson({
        config: file,
        dryRun,
        written: !dryRun && plan.imported.length > 0,
        backup,
        read: plan.read,
        imported: plan.imported,
        skipped: plan.skipped,
        projectOnly: plan.projectOnly,
      })
      return
    }
    const lines = [`${dryRun ? 'would import into' : 'import into'} ${file}`]
    if (plan.read.length === 0) lines.push(`  no host config found for ${hosts.join(', ')}`)
    for (const server of plan.imported) {
      lines.push(`  + ${server.name}  (${server.host}, ${server.file}): ${describe(server.entry)}`)
      if (server.renamedFrom !== undefined)
        lines.push(`      renamed from "${server.renamedFrom}" (server names hold only letters, digits, "-" and "_")`)
      if (server.unsetVariables)
        lines.push(
          `      warning: ${server.unsetVariables.map((v) => `\${${v}}`).join(', ')} not set now; the server is unavailable until the daemon sees ${server.unsetVariables.length === 1 ? 'it' : 'them'} (envFile, or set and \`mcpx daemon restart\`)`,
        )
    }
    for (const server of plan.skipped) lines.push(`  - ${server.name}  (${server.host}, ${server.file}): ${server.reason}`)
    for (const server of plan.projectOnly) {
      lines.push(
        `  · ${server.name}  (${server.host}, ${server.file}): project-scoped, not copied into the user config; \`mcpx import ${server.host} --config <project config>\` imports it there (its own daemon)`,
      )
    }
    const count = `${plan.imported.length} server${plan.imported.length === 1 ? '' : 's'}`
    lines.push(
      dryRun
        ? `dry run: ${count} would be imported, nothing written`
        : `imported ${count}${backup ? ` (previous config saved as ${backup})` : ''}`,
    )
    process.stdout.write(`${lines.join('\n')}\n`)
  },
})

function existingNames(file: string): string[] {
  if (!existsSync(file)) return []
  const doc = parseJsonc(readFileSync(file, 'utf8'), file) as { mcpServers?: Record<string, unknown> } | null
  return Object.keys(doc?.mcpServers ?? {})
}

function describe(entry: Record<string, unknown>): string {
  if (typeof entry.url === 'string') return entry.url
  return [entry.command, ...((entry.args as string[] | undefined) ?? [])].join(' ')
}
