/**
 * Task objects between the 2025-11-25 core shape (basic/utilities/tasks.mdx: `ttl`, `pollInterval`)
 * and the 2026-07-28 tasks extension shape (SEP-2663 "Tasks": `ttlMs`, `pollIntervalMs`, flat on the
 * result). Only the field names and nesting differ; the status values are the same five.
 */
import { isRecord, type JsonObject } from '../jsonrpc.ts'

/** A 2025-11-25 `Task` from either shape (payload fields like `result`/`inputRequests` are dropped). */
export function legacyTask(task: unknown): JsonObject {
  if (!isRecord(task)) return {}
  const out: JsonObject = {
    taskId: task.taskId,
    status: task.status,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt ?? task.createdAt,
    ttl: task.ttl !== undefined ? task.ttl : (task.ttlMs ?? null),
  }
  if (typeof task.statusMessage === 'string') out.statusMessage = task.statusMessage
  const pollInterval = task.pollInterval ?? task.pollIntervalMs
  if (typeof pollInterval === 'number') out.pollInterval = pollInterval
  return out
}

/** A 2026 extension task (flat fields) from either shape; payload fields pass through. */
export function modernTask(task: unknown): JsonObject {
  if (!isRecord(task)) return {}
  const { ttl, pollInterval, ...rest } = task
  const out: JsonObject = { ...rest }
  if (out.ttlMs === undefined) out.ttlMs = ttl ?? null
  if (out.pollIntervalMs === undefined && typeof pollInterval === 'number') out.pollIntervalMs = pollInterval
  return out
}
