/**
 * `mcpx doctor`: is this installation healthy? mcpx on PATH, the config valid, the daemon
 * reachable (started if need be), and each enabled server connected (its tools listed) or the
 * reason it is not. Every problem is one line; the exit is non-zero when there is any.
 */
import { defineCommand } from 'citty'
import type { Catalog, ServerStatus } from '../../lib/daemon/index.ts'
import { McpxError, asMcpxError } from '../../lib/errors/index.ts'
import { commonArgs } from '../args.ts'
import { type ConfiguredContext, loadConfiguredContext } from '../context.ts'
import { withNotice } from '../progress.ts'
import { firstLine, printJson } from '../render.ts'
import { daemonClient } from './daemon.ts'

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
    checks.push({ check: 'mcpx on PATH', ok: onPath !== null, detail: onPath ?? 'not found (add the directory holding the mcpx binary to PATH)' })
    let ctx: ConfiguredContext | undefined
    try {
      ctx = loadConfiguredContext(args)
      checks.push({ check: 'config', ok: true, detail: `${ctx.config.source ?? 'built-in default'} (${Object.keys(ctx.config.servers).length} servers)` })
    } catch (error) {
      checks.push({ check: 'config', ok: false, detail: asMcpxError(error).message })
    }
    if (ctx !== undefined) {
      const client = daemonClient(ctx, args, true)
      try {
        const servers = await client.request<ServerStatus[]>('servers')
        checks.push({ check: 'daemon', ok: true, detail: 'reachable' })
        const enabled = servers.filter((s) => s.state !== 'disabled')
        const results = await withNotice(`connecting to ${enabled.length} servers`, ctx.settings.cliSlowNoticeMs, () => Promise.allSettled(enabled.map((s) => client.request<Catalog>('catalog', { name: s.name }))))
        results.forEach((r, i) => {
          const name = enabled[i]!.name
          if (r.status === 'fulfilled') checks.push({ check: `server ${name}`, ok: true, detail: `ready, ${r.value.tools.length} tools` })
          else checks.push({ check: `server ${name}`, ok: false, detail: args.verbose ? asMcpxError(r.reason).message : firstLine(asMcpxError(r.reason).message) })
        })
        for (const s of servers.filter((s) => s.state === 'disabled')) checks.push({ check: `server ${s.name}`, ok: true, detail: 'disabled in the config' })
      } catch (error) {
        checks.push({ check: 'daemon', ok: false, detail: asMcpxError(error).message })
      }
    }
    if (args.json) printJson(checks)
    else for (const c of checks) process.stdout.write(`${c.ok ? 'ok  ' : 'FAIL'}  ${c.check}: ${c.detail}\n`)
    const failed = checks.filter((c) => !c.ok)
    if (failed.length > 0) {
      const code = failed.some((c) => c.check === 'config') ? 'CONFIG' : 'CONNECT'
      throw new McpxError(code, `doctor found ${failed.length} problem${failed.length > 1 ? 's' : ''}: ${failed.map((c) => c.check).join(', ')}`, { failed: failed.map((c) => c.check) })
    }
  },
})
