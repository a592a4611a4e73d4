/**
 * Tasks through the pass-through surface (2026-07-28 tasks extension, SEP-2663). The host's tasks
 * extension is declared upstream on its tools/call, so the UPSTREAM decides whether a call becomes
 * a task (tasks are server-directed; a 2026 tool listing says nothing about them). When it does,
 * the host gets a task of the gateway's own that follows the upstream one (see relayTask).
 */
import type { JsonObject } from '../../client/index.ts'
import { McpxError, RpcError } from '../../errors/index.ts'
import type { Engine, HandlerContext, InputRequest } from '../../server/index.ts'
import type { Settings } from '../../settings/index.ts'
import type { UpstreamPool } from '../upstream-pool.ts'
import { isRecord } from '../../wire/index.ts'

type TaskStore = Engine['tasks']
type Ask = (requests: Record<string, InputRequest>) => Promise<Record<string, JsonObject>>

export interface TaskRelayOptions {
  readonly pool: UpstreamPool
  readonly server: string
  readonly tasks: TaskStore
  readonly settings: Settings
  /** The capabilities the upstream call declared (they carry the tasks extension). */
  readonly capabilities: JsonObject
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled'])

/**
 * The host's answer to a tools/call the upstream turned into a task: a task of the gateway's own
 * (same TaskStore as any mcpx server: tasks/get, tasks/update, tasks/cancel, status notifications
 * on listen streams) whose work is following the upstream task: tasks/get at the upstream's
 * pollIntervalMs (capped by taskPollIntervalMs), its inputRequests put to the host under the
 * upstream's keys and answered upstream with tasks/update, tasks/cancel upstream when the host
 * cancels. Results and errors come back as the upstream gave them.
 */
export function relayTask(ctx: HandlerContext, created: JsonObject, options: TaskRelayOptions): Promise<JsonObject> {
  // The host sees the upstream's task id (mapped one to one, not renamed).
  const launch = options.tasks.launchModern(ctx.signal, typeof created.taskId === 'string' ? created.taskId : undefined)
  const ask: Ask = (requests) => {
    const parked = launch.extras.taskAsk?.()
    if (!parked) throw new McpxError('INTERNAL', 'upstream task asked for input before the gateway task existed')
    return parked(requests)
  }
  return launch.run(() => follow(created, options, ask, launch.extras.signal ?? ctx.signal))
}

async function follow(created: JsonObject, options: TaskRelayOptions, ask: Ask, signal: AbortSignal): Promise<JsonObject> {
  const taskId = String(created.taskId)
  const maxPollMs = options.settings.taskPollIntervalMs
  const request = (method: string, params: JsonObject, withSignal: AbortSignal | undefined = signal) =>
    options.pool.request(
      options.server,
      method,
      { taskId, ...params },
      { capabilities: options.capabilities, ...(withSignal && { signal: withSignal }) },
    )
  try {
    let task: JsonObject = created
    for (;;) {
      signal.throwIfAborted()
      const status = String(task.status)
      if (status === 'completed' && task.result !== undefined) return task.result as JsonObject
      if (status === 'failed' && task.error !== undefined)
        throw RpcError.fromWire(task.error as { code: number; message?: string; data?: unknown })
      if (status === 'cancelled') throw new McpxError('CANCELLED', `upstream task ${taskId} was cancelled`, { taskId })
      if (status === 'input_required' && isRecord(task.inputRequests) && Object.keys(task.inputRequests).length > 0) {
        const inputResponses = await ask(task.inputRequests as Record<string, InputRequest>)
        await request('tasks/update', { inputResponses: inputResponses as JsonObject })
      } else if (!TERMINAL.has(status)) {
        await pause(Math.min(Number(task.pollIntervalMs) || maxPollMs, maxPollMs), signal)
      }
      task = await request('tasks/get', {})
    }
  } catch (error) {
    // The host cancelled (or the gateway stops): the upstream stops working on it too.
    if (signal.aborted) await request('tasks/cancel', {}, undefined).catch(() => {})
    throw error
  }
}

/** The poll interval between two tasks/get (cut short when the task is cancelled). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
