/**
 * SandboxError: how an exec fails. It carries the stable `reason` plus whatever the script logged
 * before failing, because agents debug with those lines. `code` is SANDBOX, or CANCELLED when the
 * caller aborted.
 */
import { McpxError } from '../errors/index.ts'
import type { ExecStats, SandboxFailureReason, ScriptFailure } from './protocol.ts'

export class SandboxError extends McpxError {
  readonly reason: SandboxFailureReason
  readonly logs: readonly string[]
  readonly stats: ExecStats | undefined
  readonly line: number | undefined

  constructor(failure: ScriptFailure, logs: readonly string[] = [], stats?: ExecStats) {
    const data: Record<string, unknown> = { reason: failure.reason, logs }
    if (failure.name !== undefined) data.name = failure.name
    if (failure.line !== undefined) data.line = failure.line
    if (failure.column !== undefined) data.column = failure.column
    if (failure.stack !== undefined) data.stack = failure.stack
    if (stats !== undefined) data.stats = stats
    super(failure.reason === 'cancelled' ? 'CANCELLED' : 'SANDBOX', failure.message, data)
    this.reason = failure.reason
    this.logs = logs
    this.stats = stats
    this.line = failure.line
  }
}
