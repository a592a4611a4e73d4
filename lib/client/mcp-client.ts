/**
 * A connected MCP client: era-aware requests (modern `_meta` + headers, legacy version header and
 * one single-flight re-initialize when a legacy session id draws 404), the typed calls with pagination,
 * 2026 `input_required` rounds answered through the same handlers as legacy server→client
 * requests, and `subscriptions/listen`. Built by connect() (connect.ts).
 */
import { McpxError, RPC, RpcError } from '../errors/index.ts'
import { log } from '../log/index.ts'
import type { NotificationListener, Peer, ProgressUpdate } from '../session/index.ts'
import type { Settings } from '../settings/index.ts'
import {
  type LogLevel,
  META,
  RESULT_TYPE,
  type RequestId,
  type Revision,
  findHeaderParams,
  isKnownResultType,
  isRecord,
  upgradeResult,
} from '../wire/index.ts'
import { initializeLegacy, pickModern } from './handshake.ts'
import { answerInputRequests } from './input.ts'
import { sessionControl } from './open-transport.ts'
import type { FollowFilter, Following, JsonObject, ServerIdentity, TimingStep } from './connect-options.ts'
import { type WireState, withModernMeta } from './wire-state.ts'

export interface CallOptions {
  signal?: AbortSignal
  timeoutMs?: number
  onProgress?: (update: ProgressUpdate) => void
  /** 2026: ask for `notifications/message` at this level or above for this request only (logging.mdx). */
  logLevel?: LogLevel
  /**
   * 2026: the client capabilities this one request declares in its `_meta`, replacing the
   * connection's (a gateway mirroring what its host declared, so the server refuses what the host
   * cannot answer: 2026-07-28 basic/index.mdx per-request capabilities). Legacy: ignored.
   */
  capabilities?: JsonObject
  /** 2026 tasks extension: a `resultType: "task"` answer (CreateTaskResult) is returned, not refused. */
  acceptTask?: boolean
  /** Told each JSON-RPC id this call is sent under (a retry gets a new one). */
  onId?: (id: RequestId) => void
}

export interface Page<T> {
  items: T[]
  nextCursor?: string
}

/** Methods whose result may be `input_required` (2026-07-28 basic/patterns/mrtr.mdx "Supported Requests"). */
const INPUT_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read'])

export class McpClient {
  #generation = 0
  #reinit?: Promise<void>

  constructor(
    readonly peer: Peer,
    private readonly state: WireState,
    private identity: ServerIdentity,
    private readonly settings: Settings,
    /** Steps connect() took, with durations (for `mcpx probe`). */
    readonly timings: TimingStep[],
    private readonly warn: (message: string) => void,
  ) {}

  get era() {
    return this.identity.era
  }
  get revision(): Revision {
    return this.identity.revision
  }
  get transport() {
    return this.identity.transport
  }
  get server(): ServerIdentity {
    return { ...this.identity, revision: this.state.revision ?? this.identity.revision }
  }
  get serverCapabilities(): JsonObject {
    return this.identity.capabilities
  }

  /**
   * One request under the connection's era. Results other than input_required are returned as
   * they came; methods that may need input go through requestWithInput().
   */
  request(method: string, params: JsonObject = {}, options: CallOptions = {}): Promise<JsonObject> {
    const generation = this.#generation
    const retry = async (error: unknown): Promise<JsonObject> => {
      if (!(await this.#readyToRetry(error, generation, method))) throw error
      return this.#attempt(method, params, options)
    }
    try {
      return this.#attempt(method, params, options, retry)
    } catch (error) {
      return retry(error)
    }
  }

  /**
   * One try of request() under the connection's state now; a failed answer goes to `onFailure`
   * (request()'s retry) in the same reaction that shapes a good one. A result mcpx cannot read
   * (an unknown resultType) is not retried: it is not a failure any retry puts right.
   */
  #attempt(
    method: string,
    params: JsonObject,
    options: CallOptions,
    onFailure?: (error: unknown) => Promise<JsonObject>,
  ): Promise<JsonObject> {
    const revision = this.state.revision ?? this.identity.revision
    let body = this.identity.era === 'modern' ? withModernMeta(this.state, params, revision) : params
    if (options.logLevel && this.identity.era === 'modern')
      body = { ...body, _meta: { ...(body._meta as JsonObject), [META.LOG_LEVEL]: options.logLevel } }
    if (options.capabilities && this.identity.era === 'modern')
      body = { ...body, _meta: { ...(body._meta as JsonObject), [META.CLIENT_CAPABILITIES]: options.capabilities } }
    const answer = this.peer.request(method, body, {
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      onProgress: options.onProgress,
      ...(options.onId && { onId: options.onId }),
      // 2026 HTTP: closing the stream is the cancel; everywhere else send notifications/cancelled.
      cancel: this.identity.era === 'modern' && this.identity.transport !== 'stdio' ? 'abort' : 'notify',
    })
    // One shape for the rest of mcpx: the newest (absent resultType = complete, cache hints ttl 0).
    return answer.then((result) => upgradeResult(revision, method, this.#knownResultType(method, result)), onFailure)
  }

  /**
   * 2026-07-28 basic/index.mdx "ResultType": "A resultType of any value unrecognized by the client
   * MUST be considered invalid", the set being the core values plus those of extensions advertised
   * via capabilities (here: the server's `extensions`). Legacy results carry none (absent = complete).
   */
  #knownResultType(method: string, result: JsonObject): JsonObject {
    if (this.identity.era !== 'modern' || isKnownResultType(result.resultType, this.#advertisedExtensions())) return result
    throw new McpxError(
      'PROTOCOL',
      `${method}: the server answered with resultType ${JSON.stringify(result.resultType)}, which this client does not recognise (2026-07-28 basic/index.mdx: invalid)`,
      { method, resultType: result.resultType },
    )
  }

  #advertisedExtensions(): string[] {
    const extensions = this.identity.capabilities.extensions
    return isRecord(extensions) ? Object.keys(extensions) : []
  }

  /**
   * Whether a failed request gets its one retry, after putting right what failed: an expired
   * session (re-initialized), changed tool headers, another revision.
   */
  async #readyToRetry(error: unknown, generation: number, method: string): Promise<boolean> {
    if (this.identity.era === 'legacy' && isSessionExpired(error)) {
      if (this.#generation === generation) await this.#reinitialize()
      return true
    }
    // streamable-http.mdx "Client Behavior": on HeaderMismatch the tool's schema may have
    // changed; re-list so Mcp-Param-* follow the current x-mcp-header annotations, retry once.
    if (this.identity.era === 'modern' && method === 'tools/call' && error instanceof RpcError && error.rpcCode === RPC.HEADER_MISMATCH) {
      this.state.tools.clear()
      await this.listAllTools().catch((e) => log.debug(`tools/list after -32020: ${e}`))
      return true
    }
    if (this.identity.era === 'modern' && error instanceof RpcError && error.rpcCode === RPC.UNSUPPORTED_PROTOCOL_VERSION) {
      const next = pickModern((error.rpcData as JsonObject | undefined)?.supported)
      if (next) {
        this.state.revision = next
        return true
      }
    }
    return false
  }

  /**
   * A request that may come back `input_required` (2026) — each round is answered through the
   * handlers and retried with a NEW id, the server's `requestState` echoed byte for byte and never
   * carried to any other call, at most `maxInputRounds` times (2026-07-28 basic/patterns/mrtr.mdx "Client Requirements").
   */
  requestWithInput(method: string, params: JsonObject, options: CallOptions = {}): Promise<JsonObject> {
    // Most answers are final: only an input_required one enters the rounds.
    return this.request(method, params, options).then((result) =>
      isFinal(result, options) ? result : this.#inputRounds(method, params, options, result),
    )
  }

  async #inputRounds(method: string, params: JsonObject, options: CallOptions, first: JsonObject): Promise<JsonObject> {
    let result = first
    for (let rounds = 0; ; rounds++) {
      if (isFinal(result, options)) return result
      const resultType = result.resultType
      if (resultType !== RESULT_TYPE.INPUT_REQUIRED || !INPUT_METHODS.has(method)) {
        throw new McpxError('PROTOCOL', `${method} returned resultType ${JSON.stringify(resultType)}, which mcpx did not ask for`, {
          method,
          resultType,
        })
      }
      if (rounds >= this.settings.maxInputRounds) {
        throw new McpxError('PROTOCOL', `${method} still needs input after ${rounds} rounds (maxInputRounds)`, { method, rounds })
      }
      const inputResponses = await answerInputRequests(this.state.handlers, result.inputRequests, 'modern', options.signal)
      const round: JsonObject = { ...params }
      if (inputResponses !== undefined) round.inputResponses = inputResponses
      if (typeof result.requestState === 'string') round.requestState = result.requestState
      result = await this.request(method, round, options)
    }
  }

  // ---- typed calls -------------------------------------------------------------------------

  async listTools(cursor?: string, options: CallOptions = {}): Promise<Page<JsonObject>> {
    const result = await this.request('tools/list', cursor === undefined ? {} : { cursor }, options)
    const tools = Array.isArray(result.tools) ? (result.tools as JsonObject[]) : []
    return { items: this.#admitTools(tools), nextCursor: cursorOf(result) }
  }
  listAllTools(options: CallOptions = {}): Promise<JsonObject[]> {
    return this.#all((cursor) => this.listTools(cursor, options))
  }
  callTool(name: string, args?: JsonObject, options: CallOptions = {}): Promise<JsonObject> {
    const params = args === undefined ? { name } : { name, arguments: args }
    // Mcp-Param-* mirroring needs the tool's schema: list once if nothing is known yet.
    if (this.identity.era === 'modern' && this.identity.transport !== 'stdio' && this.state.tools.size === 0) {
      return this.listAllTools()
        .catch((error) => log.debug(`tools/list before ${name}: ${error}`))
        .then(() => this.requestWithInput('tools/call', params, options))
    }
    return this.requestWithInput('tools/call', params, options)
  }
  async listPrompts(cursor?: string, options: CallOptions = {}): Promise<Page<JsonObject>> {
    const result = await this.request('prompts/list', cursor === undefined ? {} : { cursor }, options)
    return { items: Array.isArray(result.prompts) ? (result.prompts as JsonObject[]) : [], nextCursor: cursorOf(result) }
  }
  listAllPrompts(options: CallOptions = {}): Promise<JsonObject[]> {
    return this.#all((cursor) => this.listPrompts(cursor, options))
  }
  getPrompt(name: string, args?: Record<string, string>, options: CallOptions = {}): Promise<JsonObject> {
    return this.requestWithInput('prompts/get', args === undefined ? { name } : { name, arguments: args }, options)
  }
  async listResources(cursor?: string, options: CallOptions = {}): Promise<Page<JsonObject>> {
    const result = await this.request('resources/list', cursor === undefined ? {} : { cursor }, options)
    return { items: Array.isArray(result.resources) ? (result.resources as JsonObject[]) : [], nextCursor: cursorOf(result) }
  }
  listAllResources(options: CallOptions = {}): Promise<JsonObject[]> {
    return this.#all((cursor) => this.listResources(cursor, options))
  }
  async listResourceTemplates(cursor?: string, options: CallOptions = {}): Promise<Page<JsonObject>> {
    const result = await this.request('resources/templates/list', cursor === undefined ? {} : { cursor }, options)
    return {
      items: Array.isArray(result.resourceTemplates) ? (result.resourceTemplates as JsonObject[]) : [],
      nextCursor: cursorOf(result),
    }
  }
  listAllResourceTemplates(options: CallOptions = {}): Promise<JsonObject[]> {
    return this.#all((cursor) => this.listResourceTemplates(cursor, options))
  }
  readResource(uri: string, options: CallOptions = {}): Promise<JsonObject> {
    return this.requestWithInput('resources/read', { uri }, options)
  }
  complete(
    ref: JsonObject,
    argument: { name: string; value: string },
    context?: JsonObject,
    options: CallOptions = {},
  ): Promise<JsonObject> {
    return this.request('completion/complete', context === undefined ? { ref, argument } : { ref, argument, context }, options)
  }
  /** Legacy only (2026 removed ping). */
  ping(options: CallOptions = {}): Promise<JsonObject> {
    this.#requireEra('legacy', 'ping')
    return this.request('ping', {}, options)
  }
  /** Legacy only (2026: per-request logLevel instead). */
  setLoggingLevel(level: string, options: CallOptions = {}): Promise<JsonObject> {
    this.#requireEra('legacy', 'logging/setLevel')
    return this.request('logging/setLevel', { level }, options)
  }
  /** Legacy resources/subscribe; 2026 uses listen({resourceSubscriptions}). */
  subscribeResource(uri: string, options: CallOptions = {}): Promise<JsonObject> {
    this.#requireEra('legacy', 'resources/subscribe')
    return this.request('resources/subscribe', { uri }, options)
  }

  /** Legacy: tell the server the roots changed (it re-asks with roots/list); 2026 has no such notification. */
  async rootsChanged(): Promise<void> {
    this.#requireEra('legacy', 'notifications/roots/list_changed')
    await this.peer.notify('notifications/roots/list_changed')
  }

  /** Listen for server notifications of one method ('*' = all): list_changed, resources/updated, message… */
  on(method: string, listener: NotificationListener): () => void {
    return this.peer.on(method, listener)
  }

  /**
   * 2026 `subscriptions/listen` (basic/patterns/subscriptions.mdx): notifications tagged with this
   * subscription's id go to `onNotification`; `acknowledged` resolves with the honoured filter.
   * Legacy servers push change events unasked: use on() instead.
   */
  listen(
    filter: JsonObject,
    onNotification: (method: string, params: JsonObject) => void,
  ): { acknowledged: Promise<JsonObject>; done: Promise<JsonObject>; close(): void } {
    this.#requireEra('modern', 'subscriptions/listen')
    const abort = new AbortController()
    // The subscription id is this listen's own JSON-RPC id (subscriptions.mdx), known before it is
    // sent: with several listens open, each ack and notification goes to the listen it names.
    let subscriptionId: RequestId | undefined
    let ack!: (filter: JsonObject) => void
    const acknowledged = new Promise<JsonObject>((resolve) => (ack = resolve))
    const off = this.peer.on('*', (params, notification) => {
      const id = (params._meta as JsonObject | undefined)?.[META.SUBSCRIPTION_ID]
      if (id === undefined || id !== subscriptionId) return
      if (notification.method === 'notifications/subscriptions/acknowledged') ack((params.notifications as JsonObject | undefined) ?? {})
      else onNotification(notification.method, params)
    })
    const done = this.request(
      'subscriptions/listen',
      { notifications: filter },
      { signal: abort.signal, timeoutMs: 0, onId: (id) => (subscriptionId = id) },
    ).finally(off)
    done.catch(() => {})
    return { acknowledged, done, close: () => abort.abort(new McpxError('CANCELLED', 'subscription closed')) }
  }

  /**
   * Follow list changes and resource updates the same way in both eras: `onNotification` gets each
   * `notifications/{tools,prompts,resources}/list_changed` and `notifications/resources/updated` the
   * filter asks for. 2026: one `subscriptions/listen` stream (subscriptions.mdx); legacy: the pushed
   * notifications plus one `resources/subscribe` per URI (2025-11-25 server/resources.mdx
   * "Subscriptions"; a refused subscribe is logged at debug and the rest still follow).
   */
  follow(filter: FollowFilter, onNotification: (method: string, params: JsonObject) => void): Following {
    if (this.identity.era === 'modern') {
      const listener = this.listen(
        { ...filter, ...(filter.resourceSubscriptions && { resourceSubscriptions: [...filter.resourceSubscriptions] }) },
        onNotification,
      )
      const ended = listener.done.then(
        () => {},
        (error) => log.debug(`listen stream ended: ${error}`),
      )
      // The acknowledgement opens the stream (subscriptions.mdx); a stream that ends first settles it too.
      return { ready: Promise.race([listener.acknowledged.then(() => {}), ended]), stop: () => listener.close() }
    }
    const methods = [
      ...(filter.toolsListChanged ? ['notifications/tools/list_changed'] : []),
      ...(filter.promptsListChanged ? ['notifications/prompts/list_changed'] : []),
      ...(filter.resourcesListChanged ? ['notifications/resources/list_changed'] : []),
      ...(filter.resourceSubscriptions?.length ? ['notifications/resources/updated'] : []),
    ]
    const offs = methods.map((method) => this.on(method, (params) => onNotification(method, params)))
    const subscribed = (filter.resourceSubscriptions ?? []).map((uri) =>
      this.subscribeResource(uri).catch((error) => log.debug(`resources/subscribe ${uri}: ${error}`)),
    )
    return { ready: Promise.all(subscribed).then(() => {}), stop: () => offs.forEach((off) => off()) }
  }

  async close(): Promise<void> {
    await this.peer.close()
  }
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close()
  }

  #requireEra(era: 'legacy' | 'modern', method: string): void {
    if (this.identity.era !== era)
      throw new McpxError('ERA', `${method} exists only for ${era} servers; this one is ${this.identity.era} (${this.revision})`, {
        method,
      })
  }

  /** 2026 HTTP: drop tools whose x-mcp-header annotations are invalid (server/tools.mdx), remember the rest. */
  #admitTools(tools: JsonObject[]): JsonObject[] {
    if (this.identity.era !== 'modern' || this.identity.transport === 'stdio') return tools
    const kept: JsonObject[] = []
    for (const tool of tools) {
      const verdict = findHeaderParams(tool.inputSchema)
      if ('invalid' in verdict) {
        this.warn(`tool ${JSON.stringify(tool.name)} dropped: ${verdict.invalid}`)
        continue
      }
      if (typeof tool.name === 'string') this.state.tools.set(tool.name, { name: tool.name, inputSchema: tool.inputSchema })
      kept.push(tool)
    }
    return kept
  }

  async #all(page: (cursor?: string) => Promise<Page<JsonObject>>): Promise<JsonObject[]> {
    const items: JsonObject[] = []
    let cursor: string | undefined
    for (let pages = 0; pages < this.settings.maxListPages; pages++) {
      const result = await page(cursor)
      items.push(...result.items)
      // Cursors are opaque; only an absent one ends the list (server/utilities/pagination.mdx, every revision).
      if (result.nextCursor === undefined) return items
      cursor = result.nextCursor
    }
    this.warn(`list stopped after ${this.settings.maxListPages} pages (maxListPages)`)
    return items
  }

  /**
   * A legacy client that gets 404 for its session id MUST re-initialize: once, shared by every request that saw the
   * same expired session.
   */
  #reinitialize(): Promise<void> {
    this.#reinit ??= (async () => {
      sessionControl(this.peer.transport)?.resetSession()
      const identity = await initializeLegacy(this.peer, this.state, this.identity.revision)
      this.identity = { ...this.identity, ...identity }
      this.#generation++
      log.debug(`legacy session re-initialized (${identity.revision})`)
    })().finally(() => {
      this.#reinit = undefined
    })
    return this.#reinit
  }
}

function cursorOf(result: JsonObject): string | undefined {
  return typeof result.nextCursor === 'string' ? result.nextCursor : undefined
}

function isSessionExpired(error: unknown): boolean {
  return error instanceof McpxError && error.code === 'CONNECT' && error.data?.sessionExpired === true
}

/** A result the caller gets as it is: complete, or a task the caller asked to keep (acceptTask). */
function isFinal(result: JsonObject, options: CallOptions): boolean {
  const resultType = result.resultType ?? RESULT_TYPE.COMPLETE
  return resultType === RESULT_TYPE.COMPLETE || (resultType === RESULT_TYPE.TASK && options.acceptTask === true)
}
