/**
 * Builds the HandlerContext of one request. The same handler code asks the client for input in
 * both eras: legacy sends a real server→client request on the call's own stream and awaits it
 * (legacy servers MAY send requests on a POST's SSE stream before its response); modern (2026-07-28
 * basic/patterns/mrtr.mdx, no server-initiated requests on any stream) re-runs the handler each round, answering
 * asks from `inputResponses` + the sealed `requestState`, and raises InputRequired for the rest.
 */
import { McpxError } from '../errors/index.ts'
import {
  CAPABILITY_OF_ASK,
  LOG_LEVELS,
  missingCapability,
  shapeNotification,
  shapeRequest,
  type Era,
  type JsonRpcMessage,
  type LogLevel,
  type OutgoingNotification,
  type Revision,
} from '../wire/index.ts'
import type { Connection, Outlet } from './connection.ts'
import type { RequestStatePayload } from './request-state.ts'
import type { HandlerContext, Implementation, InputRequest, JsonObject, ServerNotifier } from './server-definition.ts'

/** Thrown inside a modern handler when asks are unanswered; the engine turns it into input_required. */
export class InputRequired extends Error {
  constructor(
    readonly inputRequests: Record<string, InputRequest>,
    readonly payload: RequestStatePayload,
  ) {
    super('input required')
  }
}

export interface ContextInit {
  era: Era
  revision: Revision
  signal: AbortSignal
  clientCapabilities: JsonObject
  clientInfo?: Implementation
  meta: JsonObject
  outlet: Outlet
  connection: Connection
  notify: ServerNotifier
  /** Least severe level to emit; undefined = emit nothing (modern without logLevel). */
  logLevel: LogLevel | undefined
  /** Modern only: answers from this round and the verified state of earlier ones. */
  inputResponses?: JsonObject
  priorState?: RequestStatePayload
  closeStream?: () => void
  /** Inside a task: asks park the task (tasks.ts) instead of the era's mechanism, once it exists. */
  taskAsk?: () => ((requests: Record<string, InputRequest>) => Promise<Record<string, JsonObject>>) | undefined
  /** Inside a 2025-11-25 task of a tool that adopts ids (ToolDef.adoptsTaskId): see HandlerContext. */
  adoptTaskId?: (taskId: string | undefined) => void
}

export function createContext(init: ContextInit): HandlerContext {
  return new RequestContext(init)
}

/**
 * One object per request with its methods on the prototype: every call builds a context, and most
 * never ask, log or report progress, so nothing is allocated for those until they are used. What
 * the caller gave is read through getters from that one init object, not copied field by field
 * into this one (a handful of own fields keeps it small enough to need no separate property store).
 */
class RequestContext implements HandlerContext {
  readonly #init: ContextInit
  #outlet?: Outlet
  #answers?: Record<string, JsonObject>
  #state: unknown
  #autoKey = 0

  constructor(init: ContextInit) {
    this.#init = init
    this.#state = init.priorState?.state
  }

  get era(): Era {
    return this.#init.era
  }
  get revision(): Revision {
    return this.#init.revision
  }
  get signal(): AbortSignal {
    return this.#init.signal
  }
  get clientCapabilities(): JsonObject {
    return this.#init.clientCapabilities
  }
  get clientInfo(): Implementation | undefined {
    return this.#init.clientInfo
  }
  get session(): object | undefined {
    return this.#init.era === 'legacy' ? this.#init.connection.legacy : undefined
  }
  get meta(): JsonObject {
    return this.#init.meta
  }
  get notify(): ServerNotifier {
    return this.#init.notify
  }
  get adoptTaskId(): ((taskId: string | undefined) => void) | undefined {
    return this.#init.adoptTaskId
  }

  /** Legacy peers get messages spelled for their revision. */
  get #out(): Outlet {
    return (this.#outlet ??= this.#init.era === 'legacy' ? shapingOutlet(this.#init.revision, this.#init.outlet) : this.#init.outlet)
  }

  /** Modern: answers from earlier rounds plus this round's, only for keys asked last round (mrtr.mdx). */
  get #known(): Record<string, JsonObject> {
    if (this.#answers !== undefined) return this.#answers
    const { priorState, inputResponses } = this.#init
    const answers: Record<string, JsonObject> = { ...priorState?.answers }
    if (inputResponses) {
      for (const key of priorState?.asked ?? Object.keys(inputResponses)) {
        const value = inputResponses[key]
        // A non-object answer is not a valid result: treat as missing, so the ask is repeated.
        if (value && typeof value === 'object' && !Array.isArray(value)) answers[key] = value as JsonObject
      }
    }
    return (this.#answers = answers)
  }

  progress(progress: number, total?: number, message?: string): void {
    const progressToken = this.meta.progressToken
    if (progressToken === undefined || this.signal.aborted) return
    const params: JsonObject = { progressToken, progress }
    if (total !== undefined) params.total = total
    if (message !== undefined) params.message = message
    this.#out.send({ jsonrpc: '2.0', method: 'notifications/progress', params })
  }

  log(level: LogLevel, data: unknown, logger?: string): void {
    const threshold = this.#init.logLevel
    if (threshold === undefined || this.signal.aborted) return
    if (LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(threshold)) return
    const params: JsonObject = { level, data }
    if (logger !== undefined) params.logger = logger
    this.#out.send({ jsonrpc: '2.0', method: 'notifications/message', params })
  }

  elicit(params: JsonObject, key?: string): Promise<JsonObject> {
    return this.#askOne('elicitation/create', params, key)
  }
  sample(params: JsonObject, key?: string): Promise<JsonObject> {
    return this.#askOne('sampling/createMessage', params, key)
  }
  listRoots(key?: string): Promise<JsonObject> {
    return this.#askOne('roots/list', {}, key)
  }

  async ask(requests: Record<string, InputRequest>): Promise<Record<string, JsonObject>> {
    const init = this.#init
    for (const r of Object.values(requests)) this.#requireCapability(r.method)
    const parked = init.taskAsk?.()
    if (parked) return parked(requests)
    if (init.era === 'legacy') {
      const outlet = this.#out
      const entries = await Promise.all(
        Object.entries(requests).map(
          async ([key, r]) => [key, await init.connection.request(r.method, r.params, outlet, init.signal)] as const,
        ),
      )
      return Object.fromEntries(entries)
    }
    const answers = this.#known
    const missing: Record<string, InputRequest> = {}
    for (const [key, r] of Object.entries(requests)) if (!(key in answers)) missing[key] = r
    if (Object.keys(missing).length > 0) throw new InputRequired(missing, { answers, asked: Object.keys(missing), state: this.#state })
    return Object.fromEntries(Object.keys(requests).map((key) => [key, answers[key]!]))
  }

  state<T>(): T | undefined {
    return this.#state as T | undefined
  }
  setState(value: unknown): void {
    this.#state = value
  }
  closeStream(): void {
    this.#init.closeStream?.()
  }

  async #askOne(method: InputRequest['method'], params: JsonObject | undefined, key?: string): Promise<JsonObject> {
    const k = key ?? `${method.split('/')[0]}-${++this.#autoKey}`
    return (await this.ask({ [k]: params === undefined ? { method } : { method, params } }))[k]!
  }

  #requireCapability(method: InputRequest['method']): void {
    const cap = CAPABILITY_OF_ASK[method]
    if (cap in this.clientCapabilities) return
    // -32021 exists only in 2026; a legacy peer gets a caller error (a tool reports it as isError).
    if (this.era === 'legacy')
      throw new McpxError('USAGE', `the client did not declare the '${cap}' capability this needs`, { requiredCapabilities: { [cap]: {} } })
    throw missingCapability({ [cap]: {} }, `Client capability '${cap}' is required`)
  }
}

/**
 * Legacy peers get notifications and requests spelled for their revision (lib/wire shaping): a
 * notification their revision lacks is dropped; a request it cannot express throws ERA, which
 * fails the ask instead of sending the peer something it cannot parse.
 */
function shapingOutlet(revision: Revision, outlet: Outlet): Outlet {
  return {
    send(message) {
      if (!('method' in message)) return outlet.send(message)
      const loose = message as unknown as OutgoingNotification
      if ('id' in message) return outlet.send(shapeRequest(revision, loose) as unknown as JsonRpcMessage)
      const shaped = shapeNotification(revision, loose)
      if (shaped) outlet.send(shaped as unknown as JsonRpcMessage)
    },
  }
}
