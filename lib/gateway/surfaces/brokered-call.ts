/**
 * Run one upstream request for the downstream request being handled; questions the upstream asks
 * mid-call go to that host in ITS era (legacy: a real request on the call's stream; 2026:
 * input_required rounds over a parked call, parking.ts). Undeclared capabilities are never asked
 * (-32021), and a 2026 upstream is told the host's capabilities. Progress and logs follow the call.
 */
import type { JsonObject } from '../../client/index.ts'
import { RPC, RpcError } from '../../errors/index.ts'
import type { HandlerContext, InputRequest } from '../../server/index.ts'
import { hasFeature, CAPABILITY_OF_ASK, EXTENSION, LOG_LEVELS, type LogLevel, META, httpStatusOf, isRecord } from '../../wire/index.ts'
import type { DownstreamAsker } from '../broker.ts'
import { type Ask, askerFor } from './host-asks.ts'
import type { UpstreamCallOptions } from '../pool-shapes.ts'
import { settle } from '../settle.ts'
import type { ParkingLot } from './parking.ts'

/** The upstream request; `options` carries what the downstream request implies (capabilities, logs, progress). */
type Run = (asker: DownstreamAsker, signal: AbortSignal, options: UpstreamCallOptions) => Promise<JsonObject>

/** UpstreamCallOptions while brokeredCall fills it in (asker and signal once the run starts). */
type Filling = { -readonly [K in keyof UpstreamCallOptions]: UpstreamCallOptions[K] }

/**
 * What the upstream call carries from the downstream request: the host's answerable capabilities
 * (only those the gateway can broker), the log level it asked for (a legacy host's session level
 * is applied by ctx.log, so everything is asked for), and sinks for progress and log messages;
 * then the caller's own fields (callOptions.call), so the run can hand the object on as it is.
 */
function downstreamOptions(ctx: HandlerContext, callOptions: BrokeredCallOptions): Filling {
  const capabilities = upstreamCapabilities(ctx, callOptions.relayTasks ?? false, callOptions.allExtensions ?? false)
  const requested = ctx.meta[META.LOG_LEVEL]
  const logLevel: LogLevel | undefined =
    ctx.era === 'legacy'
      ? 'debug'
      : typeof requested === 'string' && (LOG_LEVELS as readonly string[]).includes(requested)
        ? (requested as LogLevel)
        : undefined
  const options: Filling = { capabilities }
  if (isRecord(capabilities.extensions) && EXTENSION.TASKS in capabilities.extensions) options.acceptTask = true
  if (logLevel) {
    options.logLevel = logLevel
    options.onLog = (params: JsonObject) => logTo(ctx, params)
  }
  if (ctx.meta.progressToken !== undefined) options.onProgress = (update) => progressTo(ctx, update)
  const fixed = callOptions.call
  if (fixed !== undefined) {
    if (fixed.argumentsChecked) options.argumentsChecked = true
    if (fixed.view) options.view = fixed.view
  }
  if (callOptions.adoptTaskId && ctx.adoptTaskId) options.onTaskCreated = ctx.adoptTaskId
  return options
}

/**
 * An upstream's `notifications/message` params on to the host's call (its own level filter applies),
 * spelled as the host's schema requires: a level outside the eight of logging.mdx (the syslog
 * names) goes on as the one it plainly means in other loggers' words (`WARN`, `trace`, `fatal`),
 * else as `info`, and absent `data` as null, rather than the line being dropped or the host's
 * parser refusing it.
 */
export function logTo(ctx: HandlerContext, params: JsonObject): void {
  ctx.log(logLevelOf(params.level), params.data ?? null, typeof params.logger === 'string' ? params.logger : undefined)
}

/** Other loggers' level names, as the syslog levels of logging.mdx. */
const LEVEL_ALIASES: Readonly<Record<string, LogLevel>> = {
  trace: 'debug',
  verbose: 'debug',
  information: 'info',
  warn: 'warning',
  err: 'error',
  fatal: 'critical',
  crit: 'critical',
  emerg: 'emergency',
}

function logLevelOf(level: unknown): LogLevel {
  const lower = typeof level === 'string' ? level.toLowerCase() : ''
  return (LOG_LEVELS as readonly string[]).includes(lower) ? (lower as LogLevel) : (LEVEL_ALIASES[lower] ?? 'info')
}

/**
 * An upstream's progress on to the host's call, holding only what the host's schema allows
 * (ProgressNotification: a number `progress`, an optional number `total` and string `message`):
 * an update without a number to show is not passed on.
 */
function progressTo(
  ctx: HandlerContext,
  update: { readonly progress: unknown; readonly total?: unknown; readonly message?: unknown },
): void {
  const { progress, total, message } = update
  if (typeof progress !== 'number' || !Number.isFinite(progress)) return
  ctx.progress(progress, typeof total === 'number' ? total : undefined, typeof message === 'string' ? message : undefined)
}

/** A legacy host's answer to one question: a real request on the call's own stream, keyed anew for each. */
function legacyAsk(ctx: HandlerContext): Ask {
  let asked = 0
  return (request) => askLegacyHost(ctx, request, ++asked)
}

/** The call's `ordinal`-th question to a legacy host: a real request on the call's own stream. */
export async function askLegacyHost(ctx: HandlerContext, request: InputRequest, ordinal: number): Promise<JsonObject> {
  const key = `upstream-${ordinal}`
  return (await ctx.ask({ [key]: request }))[key]!
}

/**
 * The client capabilities an upstream request made for this host declares: what the host can
 * answer that the gateway can broker, plus the host's tasks extension when the caller relays
 * tasks (task-relay.ts; every later tasks/* request of that task declares the same).
 */
const BROKERED_CAPABILITIES = Object.values(CAPABILITY_OF_ASK)

/**
 * upstreamCapabilities per host capabilities object and variant: a legacy session's object is the
 * same on every call of the session, so its calls share one answer (frozen: it is read-only
 * everywhere it goes).
 */
const DERIVED = new WeakMap<JsonObject, JsonObject[]>()

export function upstreamCapabilities(ctx: HandlerContext, relayTasks: boolean, allExtensions = false): JsonObject {
  const tasksExtension = relayTasks && hasFeature(ctx.revision, 'tasksExtension')
  // The variant as an index (no string built per call): bit 0 tasks, bit 1 all extensions.
  const variant = (tasksExtension ? 1 : 0) | (allExtensions ? 2 : 0)
  let known = DERIVED.get(ctx.clientCapabilities)
  const hit = known?.[variant]
  if (hit !== undefined) return hit
  const derived = Object.freeze(deriveCapabilities(ctx.clientCapabilities, tasksExtension, allExtensions))
  if (known === undefined) DERIVED.set(ctx.clientCapabilities, (known = []))
  known[variant] = derived
  return derived
}

function deriveCapabilities(host: JsonObject, tasksExtension: boolean, allExtensions: boolean): JsonObject {
  const capabilities: JsonObject = {}
  for (const cap of BROKERED_CAPABILITIES) if (cap in host) capabilities[cap] = host[cap] as JsonObject
  const hostExtensions = isRecord(host.extensions) ? (host.extensions as JsonObject) : {}
  const extensions: JsonObject = {}
  // Pass-through forwards every extension the host declares; the renamed surfaces the ones mcpx
  // carries (MCP Apps: it re-addresses their resources). Tasks only where the caller relays them.
  for (const [id, settings] of Object.entries(hostExtensions)) {
    if (id === EXTENSION.TASKS) continue
    if (allExtensions || id === EXTENSION.UI) extensions[id] = settings as JsonObject
  }
  if (tasksExtension && EXTENSION.TASKS in hostExtensions) extensions[EXTENSION.TASKS] = hostExtensions[EXTENSION.TASKS] as JsonObject
  if (Object.keys(extensions).length > 0) capabilities.extensions = extensions
  return capabilities
}

/**
 * An upstream's JSON-RPC error relayed with the HTTP status the spec gives its code (wire's one
 * table). A legacy host keeps -32601 on a 200: on a 2025-11-25 session a 404 means the session is
 * gone (basic/transports.mdx "Session Management"), and the host would start over.
 */
export function withStatus(error: unknown, era: 'legacy' | 'modern'): unknown {
  if (!(error instanceof RpcError) || error.httpStatus !== undefined) return error
  const status = era === 'legacy' && error.rpcCode === RPC.METHOD_NOT_FOUND ? undefined : httpStatusOf(error.rpcCode)
  return status === undefined ? error : new RpcError(error.rpcCode, error.message, error.rpcData, status)
}

interface ParkState {
  park: string
}

export interface BrokeredCallOptions {
  /** The caller handles a CreateTaskResult (pass-through tools/call), so the host's tasks extension goes upstream. */
  readonly relayTasks?: boolean
  /** Pass-through: every extension the host declares goes upstream (else only MCP Apps). */
  readonly allExtensions?: boolean
  /** Setting ssePollAfterMs: a 2025-11-25 host's SSE stream is closed after this long (0 = never). */
  readonly ssePollAfterMs?: number
  /** The same on every call of this caller (argument check done, the principal): copied into the run's options. */
  readonly call?: Pick<UpstreamCallOptions, 'argumentsChecked' | 'view'>
  /** A 2025-11-25 host's task keeps the upstream task's id: ctx.adoptTaskId becomes the run's onTaskCreated. */
  readonly adoptTaskId?: boolean
}

const NO_OPTIONS: BrokeredCallOptions = {}

/**
 * `run` gets the asker and signal, and the options object already holding both (with the
 * downstream's fields and callOptions.call): a run may hand it on as it is, unspread.
 */
export function brokeredCall(
  ctx: HandlerContext,
  parking: ParkingLot,
  run: Run,
  callOptions: BrokeredCallOptions = NO_OPTIONS,
): Promise<JsonObject> {
  const options = downstreamOptions(ctx, callOptions)
  if (ctx.era === 'legacy') {
    const ask = legacyAsk(ctx)
    // 2025-11-25 basic/transports.mdx (SEP-1699): a server MAY close the SSE stream of a long call;
    // the host resumes it with GET + Last-Event-ID and the result arrives there. A no-op elsewhere.
    const pollMs = callOptions.ssePollAfterMs ?? 0
    const poll = pollMs > 0 && hasFeature(ctx.revision, 'ssePolling') ? setTimeout(() => ctx.closeStream(), pollMs) : undefined
    const asker = (options.asker = askerFor(ctx.clientCapabilities, ask, ctx.session))
    const signal = (options.signal = ctx.signal)
    return settle(
      () => run(asker, signal, options),
      poll === undefined ? noop : () => clearTimeout(poll),
      (error) => withStatus(error, 'legacy'),
    )
  }
  return brokeredModern(ctx, parking, run, options)
}

function noop(): void {}

/** 2026 hosts: the upstream call runs parked across input_required rounds (parking.ts). */
async function brokeredModern(ctx: HandlerContext, parking: ParkingLot, run: Run, options: Filling): Promise<JsonObject> {
  const prior = ctx.state<ParkState>()
  const call = prior ? parking.get(prior.park) : parking.create()
  if (!prior)
    call.start((ask, signal) => {
      const asker = (options.asker = askerFor(ctx.clientCapabilities, ask))
      options.signal = signal
      return run(asker, signal, options)
    })
  ctx.setState({ park: call.id } satisfies ParkState)
  const onAbort = () => call.abort.abort(ctx.signal.reason)
  ctx.signal.addEventListener('abort', onAbort)
  try {
    for (;;) {
      const event = await call.next()
      if (event.kind === 'done') {
        parking.release(call)
        return event.result
      }
      if (event.kind === 'error') {
        parking.release(call)
        throw withStatus(event.error, 'modern')
      }
      // Answered in this or an earlier round → resume the upstream; else this throws InputRequired
      // and the round ends with every open question in `inputRequests` (the slot stays parked).
      const requests = Object.fromEntries(event.questions.map((q) => [q.key, q.request]))
      const answers = await ctx.ask(requests).catch((error) => {
        call.park()
        throw error
      })
      for (const question of event.questions) question.answer(answers[question.key]!)
    }
  } finally {
    ctx.signal.removeEventListener('abort', onAbort)
  }
}
