/**
 * Tasks in both eras, one store. 2025-11-25 core (basic/utilities/tasks.mdx): the client asks with
 * `params.task`, then tasks/get|result|list|cancel. 2026-07-28 `io.modelcontextprotocol/tasks`
 * (SEP-2663): the server decides; a call that does not finish at once becomes a task (resultType
 * "task", flat), polled with tasks/get (result or error inlined), fed with tasks/update, ended with
 * tasks/cancel. A task's asks park it in `input_required` until every pending key is answered.
 */
import { RPC, RpcError, toRpcError } from '../errors/index.ts'
import type { Settings } from '../settings/index.ts'
import { EXTENSION, META, RESULT_TYPE, missingCapability } from '../wire/index.ts'
import type { ContextInit } from './context.ts'
import type { InputRequest, JsonObject, ToolDef } from './server-definition.ts'

type Status = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled'

interface TaskRecord {
  taskId: string
  status: Status
  createdAt: string
  lastUpdatedAt: string
  ttlMs: number
  pollIntervalMs: number
  result?: JsonObject
  error?: { code: number; message: string; data?: unknown }
  pending: Map<string, { request: InputRequest; resolve(answer: JsonObject): void }>
  controller: AbortController
  expiry?: ReturnType<typeof setTimeout>
  /** Resolves when the task reaches a terminal status. */
  finished: Promise<void>
  finish(): void
  /** The mirror's write of the latest status, while it is under way. */
  mirrored?: Promise<unknown>
}

const TERMINAL: readonly Status[] = ['completed', 'failed', 'cancelled']
/** Calls still running after one macrotask turn become tasks (SEP-2663 "immediate-result shortcut"). */
const AT_ONCE = Symbol('at-once')

export type TaskSupport = 'forbidden' | 'optional' | 'required'

export function taskSupportOf(tool: ToolDef | undefined): TaskSupport {
  const value = tool?.execution?.taskSupport
  return value === 'optional' || value === 'required' ? value : 'forbidden'
}

export function hasTasksExtension(clientCapabilities: JsonObject): boolean {
  const extensions = clientCapabilities.extensions
  return typeof extensions === 'object' && extensions !== null && EXTENSION.TASKS in extensions
}

/** What a task-capable call needs from the context: its own signal, and asks that park the task. */
export type TaskContextExtras = Pick<ContextInit, 'signal' | 'taskAsk' | 'outlet'>

/** Between the owning replica's id and the random part of a task id. */
const TASK_OWNER_SEPARATOR = '~'

/** The replica a task id names (TaskStore mints them so when replicaId is set), or undefined. */
export function taskOwner(taskId: unknown): string | undefined {
  if (typeof taskId !== 'string') return undefined
  const at = taskId.indexOf(TASK_OWNER_SEPARATOR)
  return at > 0 ? taskId.slice(0, at) : undefined
}

export class TaskStore {
  private readonly tasks = new Map<string, TaskRecord>()
  /** Set by the engine: every status change, as the DetailedTask tasks/get would return. */
  onStatus: (taskId: string, detailedTask: JsonObject) => void = () => {}
  /**
   * Set by an embedder that keeps task records elsewhere too (replicas with Redis,
   * lib/daemon/shared-state.ts): the DetailedTask at creation and at every status change.
   */
  mirror?: (detailedTask: JsonObject) => void | Promise<unknown>

  constructor(private readonly settings: Settings) {}

  /**
   * A 2026 server-directed launch: `run(work)` returns the work's own result when it settles within
   * one turn (or throws, e.g. InputRequired for an MRTR round), else a CreateTaskResult. `taskId`:
   * the id to give the task (a gateway relaying another server's task keeps that server's id),
   * unless the store already holds it.
   */
  launchModern(
    requestSignal: AbortSignal,
    taskId?: string,
  ): { extras: Pick<ContextInit, 'signal' | 'taskAsk'>; run(work: () => Promise<JsonObject>): Promise<JsonObject> } {
    const controller = new AbortController()
    let task: TaskRecord | undefined
    requestSignal.addEventListener('abort', () => task === undefined && controller.abort(requestSignal.reason), { once: true })
    return {
      extras: { signal: controller.signal, taskAsk: () => (task ? (requests) => this.park(task!, requests) : undefined) },
      run: async (work) => {
        const running = work()
        const first = await Promise.race([running, new Promise<typeof AT_ONCE>((resolve) => setTimeout(() => resolve(AT_ONCE), 0))])
        if (first !== AT_ONCE) return first
        task = this.create(controller, this.settings.taskTtlMs, taskId)
        this.settle(task, running)
        return { resultType: RESULT_TYPE.TASK, ...this.envelope(task) }
      },
    }
  }

  /** A 2025-11-25 client-directed launch (`params.task`): the task exists before the work starts. */
  launchLegacy(taskParams: JsonObject, work: (extras: Pick<ContextInit, 'signal'>) => Promise<JsonObject>): JsonObject {
    const controller = new AbortController()
    const ttlMs = typeof taskParams.ttl === 'number' ? Math.min(taskParams.ttl, this.settings.taskTtlMs) : this.settings.taskTtlMs
    const task = this.create(controller, ttlMs)
    this.settle(task, work({ signal: controller.signal }))
    return { resultType: RESULT_TYPE.TASK, ...this.envelope(task) }
  }

  /**
   * launchLegacy for a tool whose handler names the task's id (ToolDef.adoptsTaskId): the task is
   * created once the handler has named it (or has finished without naming one), then follows the work.
   */
  async launchLegacyAdopting(
    taskParams: JsonObject,
    work: (extras: Pick<ContextInit, 'signal' | 'adoptTaskId'>) => Promise<JsonObject>,
  ): Promise<JsonObject> {
    const controller = new AbortController()
    const ttlMs = typeof taskParams.ttl === 'number' ? Math.min(taskParams.ttl, this.settings.taskTtlMs) : this.settings.taskTtlMs
    let named!: (taskId: string | undefined) => void
    const naming = new Promise<string | undefined>((resolve) => (named = resolve))
    const running = work({ signal: controller.signal, adoptTaskId: (taskId) => named(taskId) })
    const taskId = await Promise.race([
      naming,
      running.then(
        () => undefined,
        () => undefined,
      ),
    ])
    const task = this.create(controller, ttlMs, taskId)
    this.settle(task, running)
    return { resultType: RESULT_TYPE.TASK, ...this.envelope(task) }
  }

  /** -32021 for a tool that needs tasks when the client did not negotiate them (SEP-2663 "Required Capabilities"). */
  static requireExtension(): RpcError {
    return missingCapability({ extensions: { [EXTENSION.TASKS]: {} } })
  }

  get(taskId: unknown): TaskRecord {
    const task = typeof taskId === 'string' ? this.tasks.get(taskId) : undefined
    if (!task) throw new RpcError(RPC.INVALID_PARAMS, `Unknown taskId: ${String(taskId)}`, { taskId })
    return task
  }

  /**
   * The task once the mirror holds its latest status. A status is answered only after that: a host
   * that saw `completed` from this replica reads the same from any other if this one stops now.
   */
  async mirroredTask(task: TaskRecord): Promise<TaskRecord> {
    for (let write = task.mirrored; write !== undefined; write = task.mirrored) {
      await write
      if (task.mirrored === write) task.mirrored = undefined
    }
    return task
  }

  /** The DetailedTask view: status plus whatever that status carries (SEP-2663 "Task Status"). */
  detailed(task: TaskRecord): JsonObject {
    const out: JsonObject = this.envelope(task)
    if (task.status === 'input_required') out.inputRequests = Object.fromEntries([...task.pending].map(([k, v]) => [k, v.request]))
    if (task.status === 'completed' && task.result) out.result = task.result
    if (task.status === 'failed' && task.error) out.error = task.error
    return out
  }

  /** tasks/update: answer pending keys; unknown keys are ignored (mrtr.mdx). */
  update(task: TaskRecord, inputResponses: unknown): void {
    if (typeof inputResponses !== 'object' || inputResponses === null)
      throw new RpcError(RPC.INVALID_PARAMS, 'params.inputResponses must be an object')
    for (const [key, answer] of Object.entries(inputResponses as JsonObject)) {
      const waiter = task.pending.get(key)
      if (!waiter || typeof answer !== 'object' || answer === null) continue
      task.pending.delete(key)
      waiter.resolve(answer as JsonObject)
    }
    if (task.pending.size === 0 && task.status === 'input_required') this.transition(task, 'working')
  }

  /** tasks/cancel: idempotent; a running task ends as cancelled. */
  cancel(task: TaskRecord): void {
    if (TERMINAL.includes(task.status)) return
    this.transition(task, 'cancelled')
    task.controller.abort(new RpcError(RPC.INTERNAL_ERROR, 'task cancelled'))
  }

  /** 2025-11-25 tasks/result: wait for a terminal status, then the result (or its error). */
  async result(task: TaskRecord): Promise<JsonObject> {
    await task.finished
    await this.mirroredTask(task)
    if (task.status === 'failed' && task.error) throw new RpcError(task.error.code, task.error.message, task.error.data)
    if (task.status === 'cancelled') throw new RpcError(RPC.INVALID_PARAMS, `Task ${task.taskId} was cancelled`, { taskId: task.taskId })
    return { ...task.result, _meta: { ...(task.result?._meta as JsonObject | undefined), [META.RELATED_TASK]: { taskId: task.taskId } } }
  }

  list(): JsonObject[] {
    return [...this.tasks.values()].map((t) => this.envelope(t))
  }

  close(): void {
    for (const task of this.tasks.values()) {
      if (task.expiry) clearTimeout(task.expiry)
      task.controller.abort()
    }
    this.tasks.clear()
  }

  private create(controller: AbortController, ttlMs: number, taskId?: string): TaskRecord {
    const now = new Date().toISOString()
    let finish!: () => void
    const finished = new Promise<void>((resolve) => (finish = resolve))
    const task: TaskRecord = {
      finished,
      finish,
      taskId: this.newTaskId(taskId),
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: Math.floor(ttlMs),
      pollIntervalMs: Math.floor(this.settings.taskPollIntervalMs),
      pending: new Map(),
      controller,
    }
    this.tasks.set(task.taskId, task)
    this.mirrorStatus(task, this.detailed(task))
    return task
  }

  /**
   * An upstream's own id when it is free (pass-through keeps the upstream's task ids); else a new
   * one. Replicas (setting replicaId): the id names the replica holding the task — the upstream's
   * id after the replica's — so another replica can hand tasks/* to it (lib/daemon/replica-forward.ts).
   */
  private newTaskId(upstreamId: string | undefined): string {
    const replica = this.settings.replicaId
    const named = (id: string) => (replica === '' ? id : `${replica}${TASK_OWNER_SEPARATOR}${id}`)
    if (upstreamId !== undefined && !this.tasks.has(named(upstreamId))) return named(upstreamId)
    return named(crypto.randomUUID())
  }

  private settle(task: TaskRecord, running: Promise<JsonObject>): void {
    running.then(
      (result) => {
        if (TERMINAL.includes(task.status)) return
        task.result = result
        this.transition(task, 'completed')
      },
      (error: unknown) => {
        if (TERMINAL.includes(task.status)) return
        task.error = toRpcError(error).toRpc()
        this.transition(task, 'failed')
      },
    )
  }

  private park(task: TaskRecord, requests: Record<string, InputRequest>): Promise<Record<string, JsonObject>> {
    const answers: Record<string, JsonObject> = {}
    const waits = Object.entries(requests).map(
      ([key, request]) =>
        new Promise<void>((resolve, reject) => {
          task.controller.signal.addEventListener('abort', () => reject(task.controller.signal.reason), { once: true })
          task.pending.set(key, { request, resolve: (answer) => ((answers[key] = answer), resolve()) })
        }),
    )
    this.transition(task, 'input_required')
    return Promise.all(waits).then(() => answers)
  }

  private transition(task: TaskRecord, status: Status): void {
    task.status = status
    task.lastUpdatedAt = new Date().toISOString()
    if (TERMINAL.includes(status)) {
      task.pending.clear()
      task.finish()
      // SEP-2663: accessible for its ttlMs after it ends, then forgotten.
      task.expiry = setTimeout(() => this.tasks.delete(task.taskId), task.ttlMs)
      ;(task.expiry as { unref?: () => void }).unref?.()
    }
    const detailed = this.detailed(task)
    this.onStatus(task.taskId, detailed)
    this.mirrorStatus(task, detailed)
  }

  private mirrorStatus(task: TaskRecord, detailed: JsonObject): void {
    const write = this.mirror?.(detailed)
    if (write !== undefined) task.mirrored = write
  }

  private envelope(task: TaskRecord): JsonObject {
    return {
      taskId: task.taskId,
      status: task.status,
      createdAt: task.createdAt,
      lastUpdatedAt: task.lastUpdatedAt,
      ttlMs: task.ttlMs,
      pollIntervalMs: task.pollIntervalMs,
    }
  }
}
