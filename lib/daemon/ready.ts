/**
 * The daemon's side of spawn.ts's readiness protocol: `mcpx daemon run --ready-fd N` writes one JSON
 * line on fd N, its /v1/health info once both listeners are up or the error that stopped it. Apart
 * from spawn.ts so the daemon does not load node:child_process, which only its starter uses.
 */
import { closeSync, writeSync } from 'node:fs'
import { asMcpxError } from '../errors/index.ts'
import type { DaemonInfo } from './operation-contract.ts'

/** Called by `daemon run --ready-fd N`: one JSON line, then the fd is closed. */
export function announceReady(fd: number, outcome: { info: DaemonInfo } | { error: unknown }): void {
  const payload = 'info' in outcome ? { info: outcome.info } : { error: asMcpxError(outcome.error).toJSON() }
  try {
    writeSync(fd, `${JSON.stringify(payload)}\n`)
    closeSync(fd)
  } catch {
    // The starter gave up waiting; nothing to tell.
  }
}
