/**
 * A plain legacy `tools/call` of a relaying tool (ToolDef.relay: a gateway's upstream tool) is
 * handed to the relay as it is, without the general dispatch: no handler context, no abort
 * controller and no brokering options unless the call logs or asks mid-way, when they are built
 * (RelayedCall.context). Only a call the general way would hand on unchanged qualifies: a request
 * of an initialized legacy connection to a server serving no tasks, with a string `name`, object
 * `arguments` that fit the tool, and neither a `task` nor a progress token, to a tool that does not
 * require a task. Anything else, and any call the relay declines before sending, takes the general
 * way (legacy-dispatch.ts), which answers every case the same way this does.
 */
import { toRpcError } from '../errors/index.ts'
import { HTTP_STATUS, isRecord, makeError, makeResult, type JsonRpcRequest, type LegacyRevision, type RequestId } from '../wire/index.ts'
import { type Cancellable, type Connection, type LegacyState, ShutdownError } from './connection.ts'
import { contextOf } from './legacy-dispatch.ts'
import { type Answer, type Channel, type EngineCore, SETTLED_THROUGH_CHANNEL } from './engine.ts'
import { type EdgeOptions, finishResult } from './edge.ts'
import { invalidArguments, toolFailure } from './providers.ts'
import { taskSupportOf } from './tasks.ts'
import type { HandlerContext, JsonObject, RelayedCall } from './server-definition.ts'

/** What the engine lends a relayed call: its definition, and the bookkeeping every request it answers is under. */
export interface RelayHost {
  readonly core: EngineCore
  /** Count the call as running (cancellation by id, drain) until `settled`. */
  track(connection: Connection, id: RequestId, call: Cancellable): void
  settled(connection: Connection, id: RequestId, call: Cancellable): void
  edge(authenticated: boolean): EdgeOptions
}

/** The call's answer when it qualifies and its relay took it; undefined: take the general way. */
export function relayCall(host: RelayHost, req: JsonRpcRequest, channel: Channel): Promise<Answer> | undefined {
  const state = channel.connection.legacy
  const { def, registry } = host.core
  if (state === undefined || def.tasks) return undefined
  const params = req.params
  if (params === undefined || 'task' in params) return undefined
  const { name, _meta: meta } = params
  if (typeof name !== 'string' || (meta !== undefined && (!isRecord(meta) || 'progressToken' in meta))) return undefined
  const args = params.arguments ?? NO_ARGUMENTS
  if (!isRecord(args)) return undefined
  const tool = registry.tool(name)
  const relay = tool?.relay
  if (relay === undefined || taskSupportOf(tool) === 'required') return undefined
  if ((def.validateArguments ?? true) && invalidArguments(tool!, args) !== undefined) return undefined
  const call = new Relayed(host, req, channel, state, params)
  if (!relay.start(args, call)) {
    call.untrack()
    return undefined
  }
  return channel.settle === undefined ? call.answer() : SETTLED_THROUGH_CHANNEL
}

const NO_ARGUMENTS: JsonObject = Object.freeze({}) as JsonObject

/** One relayed call: its answer, its place among the engine's running requests, and its context once needed. */
class Relayed implements RelayedCall, Cancellable {
  stop?: { cancel(reason: unknown): void }
  /** Its answer, once settled (an answer that came before anyone asked for it). */
  #settled: Answer | undefined
  #deliver: ((answer: Answer) => void) | undefined
  #done = false
  #context: HandlerContext | undefined
  /** The context's signal: made with the context, aborted with the call. */
  #controller: AbortController | undefined

  constructor(
    private readonly host: RelayHost,
    private readonly req: JsonRpcRequest,
    private readonly channel: Channel,
    private readonly state: LegacyState,
    private readonly params: JsonObject,
  ) {
    host.track(channel.connection, req.id, this)
  }

  get revision(): LegacyRevision {
    return this.state.revision
  }
  get clientCapabilities(): JsonObject {
    return this.state.clientCapabilities
  }
  get session(): object {
    return this.state
  }

  context(): HandlerContext {
    this.#controller ??= new AbortController()
    return (this.#context ??= contextOf(
      this.host.core,
      this.channel,
      this.state,
      this.state.revision,
      this.params,
      this.#controller.signal,
    ))
  }

  /** The answer, once the relay took the call. */
  answer(): Promise<Answer> {
    const settled = this.#settled
    if (settled !== undefined) return Promise.resolve(settled)
    return new Promise<Answer>((resolve) => (this.#deliver = resolve))
  }

  resolve(result: JsonObject): void {
    if (this.#done) return
    let answer: Answer
    try {
      const finished = finishResult(this.state.revision, 'tools/call', result, this.host.edge(this.channel.principal !== undefined))
      answer = { message: makeResult(this.req.id, finished), httpStatus: HTTP_STATUS.OK }
    } catch (error) {
      answer = this.#error(error)
    }
    this.#finish(answer)
  }

  reject(error: unknown): void {
    if (this.#done) return
    let result: JsonObject
    try {
      result = toolFailure(error, false)
    } catch {
      return this.#finish(this.#error(error))
    }
    this.resolve(result)
  }

  /** notifications/cancelled from the host, its connection closing, or a drain: the call stops upstream now. */
  abort(reason?: unknown): void {
    if (this.#done) return
    this.#controller?.abort(reason)
    this.stop?.cancel(reason)
    // cancellation.mdx: a cancelled request gets no response; one a stopping server ends gets its
    // error, whether or not the relay has let go yet (engine.ts drain).
    this.#finish(reason instanceof ShutdownError ? this.#error(reason) : { httpStatus: HTTP_STATUS.ACCEPTED })
  }

  /** The relay declined: the handler answers the call, under bookkeeping of its own. */
  untrack(): void {
    this.#done = true
    this.host.settled(this.channel.connection, this.req.id, this)
  }

  #error(error: unknown): Answer {
    const rpc = toRpcError(error)
    return { message: makeError(this.req.id, rpc.toRpc()), httpStatus: rpc.httpStatus ?? HTTP_STATUS.OK }
  }

  #finish(answer: Answer): void {
    this.#done = true
    this.host.settled(this.channel.connection, this.req.id, this)
    const sink = this.channel.settle
    if (sink !== undefined) sink.answered(answer)
    else if (this.#deliver !== undefined) this.#deliver(answer)
    else this.#settled = answer
  }
}
