/**
 * Tool definitions the CLI keeps from the daemon's catalog, one file per server in the daemon's
 * run directory (0700), so a warm `mcpx call` coerces `key=value` words without asking for the
 * catalog first: the call is its one round trip. The call carries the hash of the inputSchema it
 * used; the daemon refuses it before it runs when the tool's schema is another now
 * (lib/daemon/call-stream.ts), and the CLI then fetches the catalog, which refreshes this file.
 * A copy belongs to the daemon process that served it (pid and start time from its state file):
 * after a restart the first call asks for the catalog again, as it connects the upstream anyway.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { HomeLayout } from '../lib/config/index.ts'
import type { JsonObject } from '../lib/wire/index.ts'

function fileOf(layout: HomeLayout, server: string): string {
  return join(layout.runDir, 'tools', `${encodeURIComponent(server)}.json`)
}

/** The running daemon's identity from its state file, or undefined when none left one. */
function daemonIdentity(layout: HomeLayout): string | undefined {
  try {
    const state = JSON.parse(readFileSync(layout.state, 'utf8')) as { pid?: unknown; startedAt?: unknown }
    return typeof state.pid === 'number' && typeof state.startedAt === 'string' ? `${state.pid}@${state.startedAt}` : undefined
  } catch {
    return undefined
  }
}

/** The cached definition of `server`'s `tool`, if an earlier command saw it from the daemon running now. */
export function cachedTool(layout: HomeLayout, server: string, tool: string): JsonObject | undefined {
  try {
    const cache = JSON.parse(readFileSync(fileOf(layout, server), 'utf8')) as { daemon?: string; tools?: Record<string, JsonObject> }
    const identity = daemonIdentity(layout)
    if (identity === undefined || cache.daemon !== identity) return undefined
    const definition = cache.tools?.[tool]
    return definition !== null && typeof definition === 'object' ? definition : undefined
  } catch {
    return undefined
  }
}

/** Replace `server`'s cached definitions with this catalog's (written whole, then renamed into place). */
export function cacheTools(layout: HomeLayout, server: string, tools: readonly JsonObject[]): void {
  const file = fileOf(layout, server)
  const daemon = daemonIdentity(layout)
  if (daemon === undefined) return
  try {
    mkdirSync(join(layout.runDir, 'tools'), { recursive: true, mode: 0o700 })
    const temp = `${file}.${process.pid}.tmp`
    writeFileSync(temp, JSON.stringify({ daemon, tools: Object.fromEntries(tools.map((t) => [String(t.name), t])) }), { mode: 0o600 })
    renameSync(temp, file)
  } catch {
    // A cache only: the next call asks for the catalog again.
  }
}
