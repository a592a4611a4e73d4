/**
 * How hosts should run this mcpx, and how to recognise an entry that runs mcpx (so `import` never
 * makes the gateway pool itself): the running binary, `mcpx` on PATH when that is the same file,
 * and the loopback ports of this user's daemons.
 */
import { readFileSync, realpathSync } from 'node:fs'
import { basename, join } from 'node:path'
import { type McpxLaunch, runDirIds } from '../lib/config/index.ts'
import { LOOPBACK_HOSTNAMES } from '../lib/wire/index.ts'
import type { CliContext } from './context.ts'

function real(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}

/**
 * The entry `install` writes: `mcpx` when PATH finds this very binary, else its absolute path;
 * MCPX_HOME when set, and MCPX_CONFIG when a config is named (`--config` or MCPX_CONFIG), so the
 * host's `mcpx serve` reaches the daemon of the config the installing command used.
 */
export function mcpxLaunch(ctx: CliContext): McpxLaunch {
  const [program, ...prefix] = ctx.self
  const onPath = Bun.which('mcpx', { PATH: ctx.env.PATH ?? '' })
  const command = prefix.length === 0 && onPath !== null && real(onPath) === real(program!) ? 'mcpx' : program!
  const absolute = (path: string) => (path.startsWith('/') ? path : join(process.cwd(), path))
  const env: Record<string, string> = {}
  if (ctx.env.MCPX_HOME) env.MCPX_HOME = absolute(ctx.env.MCPX_HOME)
  if (ctx.paths.explicitConfig !== undefined) env.MCPX_CONFIG = absolute(ctx.paths.explicitConfig)
  return { command, args: [...prefix, 'serve'], env }
}

/** Why an imported entry runs mcpx itself, or null. */
export function runsMcpx(ctx: CliContext): (entry: Record<string, unknown>) => string | null {
  const self = real(ctx.self[ctx.self.length - 1]!)
  const ports = daemonPorts(ctx.paths.home)
  return (entry) => {
    if (typeof entry.command === 'string') {
      const words = [entry.command, ...((entry.args as string[] | undefined) ?? [])]
      const isMcpx = (word: string) => basename(word) === 'mcpx' || real(word) === self || /(^|\/)cli\/main\.ts$/.test(word)
      if (isMcpx(entry.command)) return `its command ${entry.command} is an mcpx binary`
      if (words.includes('serve') && words.some(isMcpx)) return 'it runs `mcpx serve`'
      return null
    }
    if (typeof entry.url === 'string') {
      try {
        const url = new URL(entry.url)
        const loopback = LOOPBACK_HOSTNAMES.has(url.hostname)
        if (loopback && ports.has(Number(url.port))) return `its URL ${url.origin} is one of this user's mcpx daemons`
      } catch {
        return null
      }
    }
    return null
  }
}

/** The TCP ports this home's daemons use or kept (run/<id>/port). */
function daemonPorts(home: string): Set<number> {
  const ports = new Set<number>()
  for (const id of runDirIds(home)) {
    try {
      ports.add(Number(readFileSync(join(home, 'run', id, 'port'), 'utf8').trim()))
    } catch {
      // never listened
    }
  }
  return ports
}
