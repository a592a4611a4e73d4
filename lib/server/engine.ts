/**
 * The request engine: one per server, shared by every transport. It classifies each message's era,
 * dispatches requests concurrently (nothing waits for another request, so a long call never blocks ping or cancellation), answers in the
 * newest shape finished at the edge, and fans out notifications to legacy connections and 2026
 * listen streams. Transports hand it messages with a Channel saying where the call's stream goes.
 */
import { toRpcError } from '../errors/index.ts'
import type { Settings } from '../settings/index.ts'
import {
  HTTP_STATUS,
  CACHE_SCOPE,
  META,
  isNotification,
  isRequest,
  isResponse,
  makeError,
  makeResult,
  type Era,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type Revision,
} from '../wire/index.ts'
import { type Cancellable, Connection, ShutdownError, type Outlet } from './connection.ts'
import { type EdgeOptions, finishResult } from './edge.ts'
import { dispatchLegacy } from './legacy-dispatch.ts'
import { ListenRegistry } from './listen.ts'
import { dispatchModern } from './modern-dispatch.ts'
import { type RelayHost, relayCall } from './relay.ts'
import { Registry } from './registry.ts'
import { createRequestStateCodec, type RequestStateCodec } from './request-state.ts'
import { keyRingFor } from './seal.ts'
import { serverCapabilities } from './lifecycle.ts'
import { TaskStore } from './tasks.ts'
import type { JsonObject, ServerDefinition, ServerNotifier } from './server-definition.ts'

/** Where one incoming message came from and where its call's stream goes. */
export interface Channel {
  connection: Connection
  /** The call's own stream: progress, logs and legacy server→client requests go here. */
  outlet: Outlet
  /** Aborted when the transport stream of this call closes (2026 HTTP: that is cancellation). */
  signal?: AbortSignal
  /** Set by a transport that already classified the era (HTTP); stdio classifies per message. */
  era?: Era
  /** Legacy 2025-11-25 HTTP: end the SSE stream early (resumable via GET + Last-Event-ID). */
  closeStream?: () => void
  /**
   * Who is calling, when the transport authenticated them (e.g. a token digest). Binds MRTR
   * requestState to that caller (mrtr.mdx) and makes cacheable results `private` (caching.mdx).
   */
  principal?: string
  /**
   * Where a request's answer may go as soon as it is known, when the engine has it without a
   * promise of its own (a relayed call: relay.ts); answer() then returns SETTLED_THROUGH_CHANNEL.
   */
  settle?: AnswerSink
}

/** What takes a request's answer directly (Channel.settle). */
export interface AnswerSink {
  answered(answer: Answer): void
}

/** What answer() returns when the answer went to the channel's `settle` instead: a promise that never settles. */
export const SETTLED_THROUGH_CHANNEL: Promise<Answer> = new Promise<Answer>(() => {})

/** A response plus the HTTP status its error demands (2026: 400 / 404). */
export interface Answer {
  message?: JsonRpcResponse
  httpStatus: number
}

/** What the per-era dispatchers need from the engine. */
export interface EngineCore {
  readonly def: ServerDefinition
  readonly registry: Registry
  readonly settings: Settings
  readonly codec: RequestStateCodec
  readonly listens: ListenRegistry
  readonly tasks: TaskStore
  readonly notify: ServerNotifier
  capabilities(revision: Revision): JsonObject
}

export interface DispatchResult {
  revision: Revision
  /** undefined: no response is due (a listen stream or a cancelled call ended). */
  result?: JsonObject
}

/** A revision's server capabilities and what they were derived from (Engine.capabilities). */
interface DerivedCapabilities {
  readonly lists: number
  readonly capabilities: ServerDefinition['capabilities']
  readonly tasks: ServerDefinition['tasks']
  readonly complete: ServerDefinition['complete']
  readonly subscribe: ServerDefinition['subscribe']
  readonly caps: JsonObject
}

export class Engine implements EngineCore {
  readonly registry: Registry
  readonly codec: RequestStateCodec
  readonly listens = new ListenRegistry()
  readonly tasks: TaskStore
  readonly notify: ServerNotifier
  private readonly connections = new Set<Connection>()
  /** Numbers this engine's connections, so its server→client request ids never repeat across them. */
  #connected = 0
  /**
   * Every request being answered, on any connection (modern HTTP ones are not tracked connections),
   * with the reject of its answer: drain() answers a request with its ShutdownError at once, even
   * when the handler ignores its signal.
   */
  private readonly running = new Map<Cancellable, (error: ShutdownError) => void>()
  #draining = false
  /** drain()'s checks, run whenever a request settles. */
  readonly #onSettled = new Set<() => void>()
  /** What #edgeOptions gives (public, private): every answer is finished with one of them. */
  #edge: EdgeOptions | undefined
  #edgePrivate: EdgeOptions | undefined
  /** capabilities() per revision, with what it was derived from. */
  readonly #capabilities = new Map<Revision, DerivedCapabilities>()
  /** What a relayed call (relay.ts) is answered under: the same bookkeeping as request()'s. */
  readonly #relayHost: RelayHost = {
    core: this,
    track: (connection, id, call) => {
      connection.inflight.set(id, call)
      // The call answers a drain itself (its abort does), so nothing is to be rejected here.
      this.running.set(call, answeredByItsAbort)
    },
    settled: (connection, id, call) => this.#settled(connection, id, call),
    edge: (authenticated) => this.#edgeOptions(authenticated),
  }

  constructor(
    readonly def: ServerDefinition,
    readonly settings: Settings,
  ) {
    this.registry = new Registry(def)
    this.codec = createRequestStateCodec(
      settings.requestStateTtlMs,
      keyRingFor(settings.sealKeyFile),
      Date.now,
      settings.replicaId,
      settings.requestStateSingleUse,
    )
    this.tasks = new TaskStore(settings)
    this.notify = {
      toolsListChanged: () => this.listChanged('tools'),
      promptsListChanged: () => this.listChanged('prompts'),
      resourcesListChanged: () => this.listChanged('resources'),
      resourceUpdated: (uri) => this.resourceUpdated(uri),
    }
    this.registry.onChange = (kind) => this.listChanged(kind)
    this.tasks.onStatus = (taskId, detailedTask) => this.listens.taskStatus(taskId, detailedTask)
  }

  /**
   * serverCapabilities for the dispatchers' checks (read-only there), derived again only when what
   * it depends on changed: a list becoming empty or not, or what a pass-through surface mirrors
   * from its upstream (def.capabilities, def.tasks, def.complete) or a renamed surface from its upstreams
   * (def.complete, def.subscribe). Every request asks.
   */
  capabilities(revision: Revision): JsonObject {
    const { def, registry } = this
    const lists = (registry.toolCount > 0 ? 1 : 0) | (registry.promptCount > 0 ? 2 : 0) | (registry.resourceCount > 0 ? 4 : 0)
    const known = this.#capabilities.get(revision)
    // Compared field by field: no array of them built per request.
    if (
      known !== undefined &&
      known.lists === lists &&
      known.capabilities === def.capabilities &&
      known.tasks === def.tasks &&
      known.complete === def.complete &&
      known.subscribe === def.subscribe
    )
      return known.caps
    const caps = serverCapabilities(def, registry, revision)
    const { capabilities, tasks, complete, subscribe } = def
    this.#capabilities.set(revision, { lists, capabilities, tasks, complete, subscribe, caps })
    return caps
  }

  /** A new downstream connection (stdio process, legacy HTTP session, or one modern HTTP request). */
  connect(kind: 'stdio' | 'http', track = true): Connection {
    const connection = new Connection(kind, ++this.#connected)
    if (track) this.connections.add(connection)
    return connection
  }

  disconnect(connection: Connection): void {
    connection.close()
    this.connections.delete(connection)
  }

  /** Handle any incoming message; resolves with the response to write (if any). */
  async handle(message: JsonRpcMessage, channel: Channel): Promise<JsonRpcResponse | undefined> {
    return (await this.answer(message, channel)).message
  }

  answer(message: JsonRpcMessage, channel: Channel): Promise<Answer> {
    // Requests first and without an extra async frame: every call comes this way.
    if (isRequest(message)) return this.request(message, channel)
    return this.answerOther(message, channel)
  }

  private async answerOther(message: JsonRpcMessage, channel: Channel): Promise<Answer> {
    if (isResponse(message)) {
      channel.connection.settle(message)
      return { httpStatus: HTTP_STATUS.ACCEPTED }
    }
    if (isNotification(message)) {
      this.notification(message.method, message.params ?? {}, channel.connection)
    }
    return { httpStatus: HTTP_STATUS.ACCEPTED }
  }

  private notification(method: string, params: JsonObject, connection: Connection): void {
    if (method === 'notifications/cancelled') connection.cancel(params.requestId, params.reason)
    else if (method === 'notifications/initialized' && connection.legacy) connection.legacy.initialized = true
  }

  private request(req: JsonRpcRequest, channel: Channel): Promise<Answer> {
    const era = channel.era ?? classify(req, channel.connection)
    // A plain legacy call of a relaying tool is handed on without the general dispatch (relay.ts).
    if (req.method === 'tools/call' && era === 'legacy' && !this.#draining) {
      const relayed = relayCall(this.#relayHost, req, channel)
      if (relayed !== undefined) return relayed
    }
    return this.#dispatch(req, channel, era)
  }

  async #dispatch(req: JsonRpcRequest, channel: Channel, era: Era): Promise<Answer> {
    const { connection } = channel
    const controller = new AbortController()
    const stream = channel.signal
    // An abort event fires once: no `once` option (Bun parses an options object on every call).
    const onStreamClosed = stream && (() => controller.abort(stream.reason))
    if (stream) {
      stream.addEventListener('abort', onStreamClosed!)
      if (stream.aborted) controller.abort(stream.reason)
    }
    connection.inflight.set(req.id, controller)
    try {
      if (this.#draining) throw new ShutdownError('the server is stopping')
      const dispatching =
        era === 'legacy' ? dispatchLegacy(this, req, channel, controller.signal) : dispatchModern(this, req, channel, controller.signal)
      const dispatched = await new Promise<DispatchResult>((resolve, reject) => {
        this.running.set(controller, reject)
        dispatching.then(resolve, reject)
      })
      // cancellation.mdx: a cancelled request gets no response.
      if (dispatched.result === undefined || controller.signal.aborted) {
        if (controller.signal.reason instanceof ShutdownError) throw controller.signal.reason
        return { httpStatus: HTTP_STATUS.ACCEPTED }
      }
      const result = finishResult(dispatched.revision, req.method, dispatched.result, this.#edgeOptions(channel.principal !== undefined))
      return { message: makeResult(req.id, result), httpStatus: HTTP_STATUS.OK }
    } catch (error) {
      const reason: unknown = controller.signal.reason
      if (controller.signal.aborted && !(reason instanceof ShutdownError)) return { httpStatus: HTTP_STATUS.ACCEPTED }
      const rpc = toRpcError(controller.signal.aborted ? reason : error)
      return { message: makeError(req.id, rpc.toRpc()), httpStatus: rpc.httpStatus ?? HTTP_STATUS.OK }
    } finally {
      if (stream) stream.removeEventListener('abort', onStreamClosed!)
      this.#settled(connection, req.id, controller)
    }
  }

  #settled(connection: Connection, id: JsonRpcRequest['id'], request: Cancellable): void {
    connection.inflight.delete(id)
    this.running.delete(request)
    // drain()'s checks exist only while it waits: no Set iterator per request otherwise.
    if (this.#onSettled.size > 0) for (const check of this.#onSettled) check()
  }

  private listChanged(kind: 'tools' | 'prompts' | 'resources'): void {
    this.listens.listChanged(kind)
    for (const c of this.connections) {
      if (c.legacy?.initialized && !this.listens.delivers(c, kind))
        c.unsolicited?.send({ jsonrpc: '2.0', method: `notifications/${kind}/list_changed` })
    }
  }

  private resourceUpdated(uri: string): void {
    this.listens.resourceUpdated(uri)
    for (const c of this.connections) {
      if (c.legacy?.subscriptions.has(uri) && !this.listens.delivers(c, { uri }))
        c.unsolicited?.send({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } })
    }
  }

  /** finishResult's options for public or private answers, built again only when the server's identity changes. */
  #edgeOptions(authenticated: boolean): EdgeOptions {
    const info = this.def.info
    if (this.#edge?.serverInfo !== info) {
      const cacheTtlMs = this.settings.cacheTtlMs
      this.#edge = { serverInfo: info, cacheTtlMs, cacheScope: CACHE_SCOPE.PUBLIC }
      this.#edgePrivate = { serverInfo: info, cacheTtlMs, cacheScope: CACHE_SCOPE.PRIVATE }
    }
    return authenticated ? this.#edgePrivate! : this.#edge
  }

  /** Requests being answered right now, on every connection. */
  get runningCount(): number {
    return this.running.size
  }

  /**
   * Graceful stop: refuse new requests (each answered with a ShutdownError), end listen streams
   * gracefully, give the requests already running up to `graceMs` to finish, then answer those
   * still running with a ShutdownError. Resolves once every request has its answer. With
   * `connection`, only that connection's requests (its stdin closed; the engine serves on).
   */
  async drain(graceMs: number, why = 'the server is stopping', connection?: Connection): Promise<void> {
    if (connection === undefined) {
      this.#draining = true
      this.listens.closeAll()
    }
    const running = (): { readonly size: number } => connection?.inflight ?? this.running
    if (running().size > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined
      let check!: () => void
      const idle = new Promise<void>((resolve) => (check = () => running().size === 0 && resolve()))
      this.#onSettled.add(check)
      await Promise.race([idle, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))])
      clearTimeout(timer)
      this.#onSettled.delete(check)
    }
    const error = new ShutdownError(why)
    for (const controller of connection ? [...connection.inflight.values()] : [...this.running.keys()]) {
      controller.abort(error)
      this.running.get(controller)?.(error)
    }
    // The aborted requests settle on their next turn; let their answers be written.
    await new Promise((resolve) => setTimeout(resolve, 0))
  }

  /**
   * Server shutdown: end listen streams gracefully (their results go out first, one turn later),
   * then abort every call and end every connection.
   */
  async close(): Promise<void> {
    this.listens.closeAll()
    await new Promise((resolve) => setTimeout(resolve, 0))
    for (const c of this.connections) c.close()
    this.connections.clear()
    this.tasks.close()
  }
}

function answeredByItsAbort(): void {}

/**
 * stdio (and any transport that does not classify): `initialize` or an initialized connection is
 * legacy unless the request carries modern `_meta` (2026-07-28 basic/versioning.mdx "dual-era").
 * A bare request on a fresh connection is treated as modern, so it gets the -32602 of a missing _meta.
 */
function classify(req: JsonRpcRequest, connection: Connection): Era {
  if (req.method === 'initialize') return 'legacy'
  const meta = req.params?._meta
  if (meta && typeof meta === 'object' && META.PROTOCOL_VERSION in meta) return 'modern'
  return connection.legacy || req.method === 'ping' ? 'legacy' : 'modern'
}
