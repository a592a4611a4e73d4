/**
 * A task-required upstream tool called by someone who did not ask for a task (a host of any era
 * that speaks no tasks, mcpx_call, mcpx_exec, the CLI): mcpx creates the upstream task itself and
 * follows it to its end, so the caller gets the tool's result as for any call. Whether a call runs
 * as such a task (runsAsTask: task-required, asked for, or keeping the upstream's task id) is
 * decided here too, beside what the upstream can run (taskRefusal).
 * - 2025-11-25 upstreams (basic/utilities/tasks.mdx): `tools/call` with `params.task`, then
 *   `tasks/result`, which blocks until the task ends and carries the task's own questions
 *   (elicitation, sampling) as requests on that stream, brokered to the caller; `tasks/get` is
 *   polled beside it at the task's `pollInterval` for status.
 * - 2026-07-28 upstreams with the tasks extension (extensions/tasks, SEP-2663): the extension is
 *   declared on the call, then `tasks/get` at `pollIntervalMs`; its `inputRequests` are answered
 *   through the broker and sent back with `tasks/update`.
 * Each status change goes to the caller as a progress update (when it gave a progress token), and
 * the caller cancelling cancels the upstream task (`tasks/cancel`).
 */
import { type CallOptions, type ClientHandlers, type JsonObject, type McpClient, answerInputRequests } from '../client/index.ts'
import { McpxError, RpcError } from '../errors/index.ts'
import { log } from '../log/index.ts'
import { EXTENSION, RESULT_TYPE, hasFeature, isRecord } from '../wire/index.ts'
import type { UpstreamCallOptions } from './pool-shapes.ts'

export interface TaskRunOptions {
  readonly call: CallOptions
  /** Where the task's 2026 inputRequests are answered (the upstream's broker: the caller's asker). */
  readonly handlers: ClientHandlers
  /** Used when the upstream suggests no poll interval (setting taskPollIntervalMs). */
  readonly defaultPollMs: number
  /** Told the upstream task's id once it exists, or undefined when the upstream ran no task. */
  readonly onCreated?: (taskId: string | undefined) => void
}

/** True when `client`'s server can run `tool` as a task the way mcpx can follow it. */
export function canRunAsTask(client: McpClient): boolean {
  return taskRefusal(client, 'required') === undefined
}

/**
 * Why `client` cannot run a tool listed with `support` as a task mcpx follows: the server declares
 * no task support it can follow, or (2025-11-25 basic/utilities/tasks.mdx "Tool-Level Negotiation")
 * the tool does not offer one; a 2026 server decides per call. Undefined when it can.
 */
export function taskRefusal(client: McpClient, support: unknown): 'server' | 'tool' | undefined {
  const caps = client.serverCapabilities
  if (client.era === 'legacy') {
    if (!(hasFeature(client.revision, 'coreTasks') && isRecord(caps.tasks))) return 'server'
    return support === 'optional' || support === 'required' ? undefined : 'tool'
  }
  return isRecord(caps.extensions) && EXTENSION.TASKS in caps.extensions ? undefined : 'server'
}

/**
 * Whether a call of `tool` (listed as `definition`) runs as an upstream task mcpx follows. A caller
 * that asked for no task still gets a task-required tool's result (callAsTask); one that asked for
 * a task (runAsTask) gets it followed to its end the same way. A caller keeping the upstream's
 * task id (onTaskCreated) asked for a task: the upstream runs one for a tool whose listing offers
 * it (2025-11-25 basic/utilities/tasks.mdx "Tool-Level Negotiation"), or, a 2026 server with the
 * tasks extension, when it decides to (extensions/tasks: the extension is declared on this call
 * and the server may answer with a task or directly). A caller that accepts a task follows it itself.
 */
export function runsAsTask(
  server: string,
  tool: string,
  definition: JsonObject | undefined,
  client: McpClient,
  options: Pick<UpstreamCallOptions, 'acceptTask' | 'runAsTask' | 'onTaskCreated'>,
): boolean {
  const support = taskSupport(definition)
  const keepsId = options.onTaskCreated !== undefined && taskRefusal(client, support) === undefined
  return (
    !options.acceptTask &&
    (options.runAsTask ? runnableAsTask(server, tool, definition, client) : (support === 'required' || keepsId) && canRunAsTask(client))
  )
}

/**
 * Whether a call asked to run as a task (`mcpx call --task`) can: a 2025-11-25 tool says so in
 * execution.taskSupport (basic/utilities/tasks.mdx "Tool-Level Negotiation"); a 2026 tool has no
 * such field, the server with the tasks extension decides per call (extensions/tasks), so only
 * the extension is needed. Anything else is a USAGE error rather than a silent plain call.
 */
function runnableAsTask(server: string, tool: string, definition: JsonObject | undefined, client: McpClient): true {
  const support = taskSupport(definition)
  const refusal = taskRefusal(client, support)
  if (refusal === 'server')
    throw new McpxError(
      'USAGE',
      `${server} (${client.revision}) declares no task support mcpx can follow, so ${tool} cannot run as a task`,
      { server, tool },
    )
  if (refusal === 'tool')
    throw new McpxError(
      'USAGE',
      `${server}.${tool} cannot run as a task (its execution.taskSupport is ${JSON.stringify(support ?? 'forbidden')})`,
      { server, tool },
    )
  return true
}

function taskSupport(tool: JsonObject | undefined): unknown {
  const execution = tool?.execution
  return typeof execution === 'object' && execution !== null ? (execution as JsonObject).taskSupport : undefined
}

export function callAsTask(client: McpClient, tool: string, args: JsonObject, options: TaskRunOptions): Promise<JsonObject> {
  return client.era === 'legacy' ? runLegacy(client, tool, args, options) : runModern(client, tool, args, options)
}

async function runLegacy(client: McpClient, tool: string, args: JsonObject, options: TaskRunOptions): Promise<JsonObject> {
  const { signal, timeoutMs } = options.call
  const created = await announced(
    client.request('tools/call', { name: tool, arguments: args, task: {} }, { ...options.call, acceptTask: true }),
    options,
  )
  if (created.resultType !== RESULT_TYPE.TASK) return created
  const taskId = String(created.taskId)
  const progress = progressReporter(options.call)
  progress(created)
  const stop = new AbortController()
  const onAbort = () => stop.abort(signal?.reason)
  signal?.addEventListener('abort', onAbort, { once: true })
  // Status for progress while tasks/result waits; its failures never fail the call.
  const polling = (async () => {
    let task: JsonObject = created
    while (!stop.signal.aborted && !isTerminal(task.status)) {
      await pause(pollMs(task, options.defaultPollMs), stop.signal).catch(() => {})
      if (stop.signal.aborted) return
      task = await client.request('tasks/get', { taskId }, { signal: stop.signal }).catch(() => task)
      progress(task)
    }
  })()
  try {
    return await client.request('tasks/result', { taskId }, { ...(signal && { signal }), ...(timeoutMs !== undefined && { timeoutMs }) })
  } catch (error) {
    if (signal?.aborted) await cancelTask(client, taskId)
    throw error
  } finally {
    signal?.removeEventListener('abort', onAbort)
    stop.abort()
    await polling
  }
}

async function runModern(client: McpClient, tool: string, args: JsonObject, options: TaskRunOptions): Promise<JsonObject> {
  const { signal } = options.call
  const declared = options.call.capabilities ?? {}
  const capabilities: JsonObject = {
    ...declared,
    extensions: { ...(isRecord(declared.extensions) ? declared.extensions : {}), [EXTENSION.TASKS]: {} },
  }
  const created = await announced(client.callTool(tool, args, { ...options.call, capabilities, acceptTask: true }), options)
  if (created.resultType !== RESULT_TYPE.TASK) return created
  const taskId = String(created.taskId)
  const progress = progressReporter(options.call)
  const request = (method: string, params: JsonObject, withSignal = signal) =>
    client.request(method, { taskId, ...params }, { capabilities, ...(withSignal && { signal: withSignal }) })
  let task: JsonObject = created
  try {
    for (;;) {
      progress(task)
      const status = String(task.status)
      if (status === 'completed' && isRecord(task.result)) return task.result
      if (status === 'failed' && isRecord(task.error)) throw RpcError.fromWire(task.error as { code: number; message?: string })
      if (status === 'cancelled') throw new McpxError('CANCELLED', `upstream task ${taskId} was cancelled`, { taskId })
      if (status === 'input_required' && isRecord(task.inputRequests) && Object.keys(task.inputRequests).length > 0) {
        const inputResponses = await answerInputRequests(options.handlers, task.inputRequests, 'modern', signal)
        await request('tasks/update', { inputResponses: inputResponses ?? {} })
      } else if (!isTerminal(status)) {
        await pause(pollMs(task, options.defaultPollMs), signal)
      }
      task = await request('tasks/get', {})
    }
  } catch (error) {
    if (signal?.aborted) await cancelTask(client, taskId, capabilities)
    throw error
  }
}

/** The created task's id (or none: a plain result, or an error) told to options.onCreated. */
async function announced(creating: Promise<JsonObject>, options: TaskRunOptions): Promise<JsonObject> {
  const created = await creating.catch((error: unknown) => {
    options.onCreated?.(undefined)
    throw error
  })
  options.onCreated?.(created.resultType === RESULT_TYPE.TASK ? String(created.taskId) : undefined)
  return created
}

function cancelTask(client: McpClient, taskId: string, capabilities?: JsonObject): Promise<void> {
  return client.request('tasks/cancel', { taskId }, capabilities ? { capabilities } : {}).then(
    () => {},
    (error) => log.debug(`tasks/cancel ${taskId}: ${error}`),
  )
}

/** Each new status (or status message) of the task, as one more step of progress. */
function progressReporter(call: CallOptions): (task: JsonObject) => void {
  const onProgress = call.onProgress
  if (!onProgress) return () => {}
  let steps = 0
  let last = ''
  return (task) => {
    const message = typeof task.statusMessage === 'string' ? `${task.status}: ${task.statusMessage}` : String(task.status)
    if (message === last) return
    last = message
    onProgress({ progressToken: '', progress: ++steps, message })
  }
}

function isTerminal(status: unknown): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled'
}

function pollMs(task: JsonObject, fallback: number): number {
  const suggested = task.pollIntervalMs
  return typeof suggested === 'number' && suggested > 0 ? suggested : fallback
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal!.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
