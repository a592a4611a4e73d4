/**
 * `mcpx doctor`: is this installation healthy? mcpx on PATH, the config valid, the daemon
 * reachable (started if need be), each enabled server connected (its tools listed) or the
 * reason it is not, and each host config holding an mcpx entry (`mcpx install`) able to start it.
 * Every problem is one line; the exit is non-zero when there is any.
 */
import { existsSync } from 'node:fs'
import { isAbsolute } from 'node:path'
import { defineCommand } from 'citty'
import { HOST_IDS, uninstallHost } from '../../lib/config/index.ts'
import { type Catalog, type ServerStatus, otherBuildLine } from '../../lib/daemon/index.ts'
import { McpxError, asMcpxError } from '../../lib/errors/index.ts'
import { commonArgs } from '../args.ts'
import { loadContext } from '../context.ts'
import { type ConfiguredContext, loadConfiguredContext } from '../configured-context.ts'
import { withNotice } from '../progress.ts'
import { firstLine, printJson } from '../render.ts'
import { daemonClient, isOtherBuild } from './daemon.ts'

interface Check {
  readonly check: string
  readonly ok: boolean
  readonly detail: string
}

export default defineCommand({
  meta: { name: 'doctor', description: 'Check the installation: mcpx on PATH, config, daemon, each server (exit non-zero on any problem)' },
  args: commonArgs,
  async run({ args }) {
    const checks: Check[] = []
    const onPath = Bun.which('mcpx')
    checks.push({
      check: 'mcpx on PATH',
      ok: onPath !== null,
      detail: onPath ?? 'not found (add the directory holding the mcpx binary to PATH)',
    })
    let ctx: ConfiguredContext | undefined
    try {
      ctx = loadConfiguredContext(args)
      checks.push({
        check: 'config',
        ok: true,
        detail: `${ctx.config.source ?? 'built-in default'} (${Object.keys(ctx.config.servers).length} servers)`,
      })
    } catch (error) {
      checks.push({ check: 'config', ok: false, detail: asMcpxError(error).message })
    }
    if (ctx !== undefined) {
      const client = daemonClient(ctx, args, true, { reportBuild: false })
      try {
        const servers = await client.request<ServerStatus[]>('servers')
        checks.push({ check: 'daemon', ok: true, detail: 'reachable' })
        // A daemon started by another mcpx binary (an upgrade or rebuild since) is a problem the user fixes by restarting it.
        const info = await client.health()
        checks.push(
          info !== null && isOtherBuild(info)
            ? { check: 'daemon build', ok: false, detail: otherBuildLine(info.build?.program) }
            : { check: 'daemon build', ok: true, detail: 'the same mcpx build as this one' },
        )
        const enabled = servers.filter((s) => s.state !== 'disabled')
        const results = await withNotice(`connecting to ${enabled.length} servers`, ctx.settings.cliSlowNoticeMs, () =>
          Promise.allSettled(enabled.map((s) => client.request<Catalog>('catalog', { name: s.name }))),
        )
        results.forEach((r, i) => {
          const name = enabled[i]!.name
          if (r.status === 'fulfilled') checks.push({ check: `server ${name}`, ok: true, detail: `ready, ${r.value.tools.length} tools` })
          else
            checks.push({
              check: `server ${name}`,
              ok: false,
              detail: args.verbose ? asMcpxError(r.reason).message : firstLine(asMcpxError(r.reason).message),
            })
        })
        for (const s of servers.filter((s) => s.state === 'disabled'))
          checks.push({ check: `server ${s.name}`, ok: true, detail: 'disabled in the config' })
      } catch (error) {
        checks.push({ check: 'daemon', ok: false, detail: asMcpxError(error).message })
      }
    }
    checks.push(...hostChecks(args))
    if (args.json) printJson(checks)
    else for (const c of checks) process.stdout.write(`${c.ok ? 'ok  ' : 'FAIL'}  ${c.check}: ${c.detail}\n`)
    const failed = checks.filter((c) => !c.ok)
    if (failed.length > 0) {
      // Exit 3 (CONNECT) only when what failed is reaching the daemon or a server; a setup problem
      // (mcpx not on PATH, the config, a daemon of another build, a host's entry) is exit 2 (CONFIG).
      const code = failed.every((c) => c.check === 'daemon' || c.check.startsWith('server ')) ? 'CONNECT' : 'CONFIG'
      throw new McpxError(
        code,
        `doctor found ${failed.length} problem${failed.length > 1 ? 's' : ''}: ${failed.map((c) => c.check).join(', ')}`,
        { failed: failed.map((c) => c.check) },
      )
    }
  },
})

/**
 * One line per host whose config has an mcpx entry: ok when its command can be found (on PATH,
 * or an existing file), FAIL when the host could not start it or its config does not read.
 * Hosts without an entry are not problems; when none has one, one line says how to add it.
 */
function hostChecks(args: Parameters<typeof loadContext>[0]): Check[] {
  const ctx = loadContext(args)
  const env = { home: ctx.paths.userHome, cwd: process.cwd(), platform: process.platform, configHome: ctx.paths.configHome }
  const checks: Check[] = []
  for (const host of HOST_IDS) {
    try {
      // A dry run reads the host's file and reports the entry it would remove; it writes nothing.
      const found = uninstallHost(host, env, { dryRun: true })
      if (found.action === 'absent') continue
      const command = (found.entry as { command?: unknown } | null)?.command
      const runnable = typeof command === 'string' && (isAbsolute(command) ? existsSync(command) : Bun.which(command) !== null)
      checks.push({
        check: `host ${host}`,
        ok: runnable,
        detail: runnable
          ? `mcpx entry in ${found.file}`
          : `the mcpx entry in ${found.file} starts ${JSON.stringify(command)}, which is not found (run \`mcpx install ${host}\` again)`,
      })
    } catch (error) {
      checks.push({ check: `host ${host}`, ok: false, detail: firstLine(asMcpxError(error).message) })
    }
  }
  if (checks.length === 0)
    checks.push({ check: 'hosts', ok: true, detail: 'no host config has an mcpx entry yet (see `mcpx install --help`)' })
  return checks
}
