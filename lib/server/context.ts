/**
 * Builds the HandlerContext of one request. The same handler code asks the client for input in
 * both eras: legacy sends a real server→client request on the call's own stream and awaits it
 * (TR-19); modern (2026-07-28 basic/patterns/mrtr.mdx) re-runs the handler each round, answering
 * asks from `inputResponses` + the sealed `requestState`, and raises InputRequired for the rest.
 */
import { McpxError, RPC, RpcError } from '../errors/index.ts'
import { LOG_LEVELS, shapeNotification, shapeRequest, type Era, type JsonRpcMessage, type LogLevel, type OutgoingNotification, type Revision } from '../wire/index.ts'
import type { Connection, Outlet } from './connection.ts'
import type { RequestStatePayload } from './request-state.ts'
import type { HandlerContext, Implementation, InputRequest, Json, ServerNotifier } from './types.ts'

/** Thrown inside a modern handler when asks are unanswered; the engine turns it into input_required. */
export class InputRequired extends Error {
  constructor(
    readonly inputRequests: Record<string, InputRequest>,
    readonly payload: RequestStatePayload,
  ) {
    super('input required')
  }
}

/** 2026-07-28 basic/index.mdx: the capability each kind of ask needs (-32021 when undeclared). */
const CAPABILITY_OF: Record<InputRequest['method'], string> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
}

export interface ContextInit {
  era: Era
  revision: Revision
  signal: AbortSignal
  clientCapabilities: Json
  clientInfo?: Implementation
  meta: Json
  outlet: Outlet
  connection: Connection
  notify: ServerNotifier
  /** Least severe level to emit; undefined = emit nothing (modern without logLevel). */
  logLevel: LogLevel | undefined
  /** Modern only: answers from this round and the verified state of earlier ones. */
  inputResponses?: Json
  priorState?: RequestStatePayload
  closeStream?: () => void
  /** Inside a task: asks park the task (tasks.ts) instead of the era's mechanism, once it exists. */
  taskAsk?: () => ((requests: Record<string, InputRequest>) => Promise<Record<string, Json>>) | undefined
}

export function createContext(init: ContextInit): HandlerContext {
  const outlet = init.era === 'legacy' ? shapingOutlet(init.revision, init.outlet) : init.outlet
  const progressToken = init.meta.progressToken
  let state: unknown = init.priorState?.state
  let autoKey = 0
  const answers: Record<string, Json> = { ...init.priorState?.answers }
  // Only keys asked last round are accepted (mrtr.mdx: ignore what the server does not recognise).
  if (init.inputResponses) {
    for (const key of init.priorState?.asked ?? Object.keys(init.inputResponses)) {
      const value = init.inputResponses[key]
      // A non-object answer is not a valid result: treat as missing, so the ask is repeated.
      if (value && typeof value === 'object' && !Array.isArray(value)) answers[key] = value as Json
    }
  }

  const requireCapability = (method: InputRequest['method']) => {
    const cap = CAPABILITY_OF[method]
    if (cap in init.clientCapabilities) return
    // -32021 exists only in 2026; a legacy peer gets a caller error (a tool reports it as isError).
    if (init.era === 'legacy') throw new McpxError('USAGE', `the client did not declare the '${cap}' capability this needs`, { requiredCapabilities: { [cap]: {} } })
    throw new RpcError(RPC.MISSING_CLIENT_CAPABILITY, `Client capability '${cap}' is required`, { requiredCapabilities: { [cap]: {} } }, 400)
  }

  const ask = async (requests: Record<string, InputRequest>): Promise<Record<string, Json>> => {
    for (const r of Object.values(requests)) requireCapability(r.method)
    const parked = init.taskAsk?.()
    if (parked) return parked(requests)
    if (init.era === 'legacy') {
      const entries = await Promise.all(
        Object.entries(requests).map(async ([key, r]) => [key, await init.connection.request(r.method, r.params, outlet, init.signal)] as const),
      )
      return Object.fromEntries(entries)
    }
    const missing: Record<string, InputRequest> = {}
    for (const [key, r] of Object.entries(requests)) if (!(key in answers)) missing[key] = r
    if (Object.keys(missing).length > 0) throw new InputRequired(missing, { answers, asked: Object.keys(missing), state })
    return Object.fromEntries(Object.keys(requests).map((key) => [key, answers[key]!]))
  }
  const askOne = async (method: InputRequest['method'], params: Json | undefined, key?: string) => {
    const k = key ?? `${method.split('/')[0]}-${++autoKey}`
    return (await ask({ [k]: params === undefined ? { method } : { method, params } }))[k]!
  }

  return {
    era: init.era,
    revision: init.revision,
    signal: init.signal,
    clientCapabilities: init.clientCapabilities,
    clientInfo: init.clientInfo,
    meta: init.meta,
    notify: init.notify,
    progress(progress, total, message) {
      if (progressToken === undefined || init.signal.aborted) return
      const params: Json = { progressToken, progress }
      if (total !== undefined) params.total = total
      if (message !== undefined) params.message = message
      outlet.send({ jsonrpc: '2.0', method: 'notifications/progress', params })
    },
    log(level, data, logger) {
      if (init.logLevel === undefined || init.signal.aborted) return
      if (LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(init.logLevel)) return
      const params: Json = { level, data }
      if (logger !== undefined) params.logger = logger
      outlet.send({ jsonrpc: '2.0', method: 'notifications/message', params })
    },
    elicit: (params, key) => askOne('elicitation/create', params, key),
    sample: (params, key) => askOne('sampling/createMessage', params, key),
    listRoots: (key) => askOne('roots/list', {}, key),
    ask,
    state: <T>() => state as T | undefined,
    setState(value) {
      state = value
    },
    closeStream() {
      init.closeStream?.()
    },
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
