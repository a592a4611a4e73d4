/**
 * The audit log: one JSON line per upstream call made for a principal — time, principal, server,
 * tool, outcome, duration, and the arguments only when `auditArguments` is on (they may hold
 * personal data). Appended synchronously so a line is on disk before the answer goes out.
 */
import { appendFileSync, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { log } from '../log/index.ts'

export type AuditOutcome = 'ok' | 'tool_error' | 'error' | 'denied'

export interface AuditEntry {
  readonly principal: string
  readonly server: string
  readonly tool: string
  readonly outcome: AuditOutcome
  readonly durationMs: number
  /** The rule that decided, when one did. */
  readonly rule?: string
  readonly error?: string
  readonly arguments?: unknown
}

export interface AuditLog {
  readonly withArguments: boolean
  write(entry: AuditEntry): void
}

const OWNER_ONLY = 0o600

export function createAuditLog(path: string, withArguments: boolean): AuditLog {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  let warned = false
  return {
    withArguments,
    write(entry) {
      const line = JSON.stringify({ time: new Date().toISOString(), ...entry })
      try {
        appendFileSync(path, `${line}\n`, { mode: OWNER_ONLY })
      } catch (error) {
        if (!warned) log.error(`audit log ${path} cannot be written: ${(error as Error).message}`)
        warned = true
      }
    },
  }
}
