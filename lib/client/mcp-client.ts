/**
 * A connected MCP client: era-aware requests (modern `_meta` + headers, legacy version header and
 * a new session when the old one is refused as expired: session-renewal.ts) and the typed calls over
 * them. Its parts live beside it: pages (pagination.ts), `input_required` rounds (input-rounds.ts),
 * `subscriptions/listen` and follow() (subscriptions.ts). Built by connect() (connect.ts).
 */
import { McpxError, RPC, RpcError, asMcpxError } from '../errors/index.ts'
import { log } from '../log/index.ts'
import type { AnswerReceiver, NotificationListener, Peer, ProgressUpdate } from '../session/index.ts'
import type { Settings } from '../settings/index.ts'
import {
  type LogLevel,
  META,
  type RequestId,
  type Revision,
  findHeaderParams,
  isKnownResultType,
  isRecord,
  malformedResult,
  upgradeResult,
  withContentBlocks,
} from '../wire/index.ts'
import { initializeLegacy, pickModern } from './handshake.ts'
import { isFinal, runInputRounds } from './input-rounds.ts'
import { type Page, collectPages, cursorOf } from './pagination.ts'
import { SessionRenewal } from './session-renewal.ts'
import { type Listening, followChanges, openListen } from './subscriptions.ts'
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

/** A legacy tools/call result lifted into the newest shape on its way to the caller's receiver (relayToolCall). */
class InNewestShape implements AnswerReceiver {
  constructor(
    private readonly revision: Revision,
    private readonly tool: string,
    private readonly receiver: AnswerReceiver,
  ) {}

  answered(received: JsonObject): void {
    const problem = malformedResult('tools/call', { name: this.tool }, received)
    if (problem !== undefined) return this.receiver.failed(problem)
    const result = withContentBlocks(received)
    // A plain result is already in the newest shape (an absent resultType means complete: 2026-07-28
    // basic/index.mdx "ResultType"); only a 2025-11-25 CreateTaskResult is spelled anew.
    if (!('task' in result)) return this.receiver.answered(result)
    let upgraded: JsonObject
    try {
      upgraded = upgradeResult(this.revision, 'tools/call', result)
    } catch (error) {
      return this.receiver.failed(asMcpxError(error))
    }
    this.receiver.answered(upgraded)
  }

  failed(error: McpxError): void {
    this.receiver.failed(error)
  }
}

export class McpClient {
  readonly #session: SessionRenewal

  constructor(
    readonly peer: Peer,
    private readonly state: WireState,
    private identity: ServerIdentity,
    readonly settings: Settings,
    /** Steps connect() took, with durations (for `mcpx probe`). */
    readonly timings: TimingStep[],
    private readonly warn: (message: string) => void,
  ) {
    this.#session = new SessionRenewal(peer, async () => {
      const identity = await initializeLegacy(this.peer, this.state, this.identity.revision)
      this.identity = { ...this.identity, ...identity }
      log.debug(`legacy session re-initialized (${identity.revision})`)
    })
  }

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
    return this.#request(method, params, options, false)
  }

  /** request(), or requestWithInput() when `withInput`: both retry, and wait out a session's renewal, here. */
  #request(method: string, params: JsonObject, options: CallOptions, withInput: boolean): Promise<JsonObject> {
    const renewing = this.#session.handshake
    if (renewing) return renewing.then(() => this.#request(method, params, options, withInput))
    const generation = this.#session.generation
    const retry = async (error: unknown): Promise<JsonObject> => {
      if (!(await this.#readyToRetry(error, generation, method))) throw error
      return this.#attempt(method, params, options, withInput)
    }
    try {
      return this.#attempt(method, params, options, withInput, retry)
    } catch (error) {
      return retry(error)
    }
  }

  /**
   * One try of request() under the connection's state now; a failed answer goes to `onFailure`
   * (request()'s retry) in the same reaction that shapes a good one, and so does the step into
   * `input_required` rounds (`withInput`). A result mcpx cannot read (an unknown resultType) is
   * not retried: it is not a failure any retry puts right.
   */
  #attempt(
    method: string,
    params: JsonObject,
    options: CallOptions,
    withInput: boolean,
    onFailure?: (error: unknown) => Promise<JsonObject>,
  ): Promise<JsonObject> {
    const revision = this.state.revision ?? this.identity.revision
    const modern = this.identity.era === 'modern'
    let body = modern ? withModernMeta(this.state, params, revision) : params
    if (options.logLevel && modern) body = { ...body, _meta: { ...(body._meta as JsonObject), [META.LOG_LEVEL]: options.logLevel } }
    if (options.capabilities && modern)
      body = { ...body, _meta: { ...(body._meta as JsonObject), [META.CLIENT_CAPABILITIES]: options.capabilities } }
    // Every field present, in one order: one object shape for every request the peer sees.
    const answer = this.peer.request(method, body, {
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      onProgress: options.onProgress,
      onId: options.onId,
      // 2026 HTTP: closing the stream is the cancel; everywhere else send notifications/cancelled.
      cancel: modern && this.identity.transport !== 'stdio' ? 'abort' : 'notify',
    })
    // One shape for the rest of mcpx: the newest (absent resultType = complete, cache hints ttl 0).
    return answer.then((result) => {
      const upgraded = upgradeResult(revision, method, this.#checkedResult(method, params, result))
      // Most answers are final: only an input_required one enters the rounds (input-rounds.ts).
      return !withInput || isFinal(upgraded, options) ? upgraded : this.#inputRounds(method, params, options, upgraded)
    }, onFailure)
  }

  #inputRounds(method: string, params: JsonObject, options: CallOptions, first: JsonObject): Promise<JsonObject> {
    const context = {
      request: (m: string, p: JsonObject, o: CallOptions) => this.request(m, p, o),
      handlers: this.state.handlers,
      maxInputRounds: this.settings.maxInputRounds,
    }
    return runInputRounds(context, method, params, options, first)
  }

  /**
   * A result as received, refused when malformed (malformedResult), a tool result's content read
   * liberally (withContentBlocks), or, per
   * 2026-07-28 basic/index.mdx "ResultType": "A resultType of any value unrecognized by the client
   * MUST be considered invalid", the set being the core values plus those of extensions advertised
   * via capabilities (here: the server's `extensions`). Legacy results carry none (absent = complete).
   */
  #checkedResult(method: string, params: JsonObject, received: JsonObject): JsonObject {
    const malformed = malformedResult(method, params, received)
    if (malformed !== undefined) throw malformed
    const result = method === 'tools/call' || method === 'tasks/result' ? withContentBlocks(received) : received
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
      await this.#session.renew(generation)
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
   * A tools/call whose outcome goes to `receiver` (Peer.requestTo) instead of a promise, for a
   * caller that relays it on at once: only where relaysToolCalls says (a legacy connection over
   * stdio: a request carries nothing per call and has no session to expire and retry). The result
   * reaches the receiver in the newest shape, as callTool's does. Its id is returned for Peer.cancel().
   */
  relayToolCall(name: string, args: JsonObject, receiver: AnswerReceiver, timeoutMs: number): RequestId {
    if (!this.relaysToolCalls)
      throw new McpxError('INTERNAL', `relayToolCall on a ${this.identity.era} ${this.identity.transport} connection`)
    const revision = this.state.revision ?? this.identity.revision
    return this.peer.requestTo('tools/call', { name, arguments: args }, new InNewestShape(revision, name, receiver), timeoutMs)
  }

  /** Whether relayToolCall() serves this connection: a legacy one over stdio. */
  get relaysToolCalls(): boolean {
    return this.identity.era === 'legacy' && this.identity.transport === 'stdio'
  }

  /** A request that may come back `input_required` (2026): its rounds are input-rounds.ts's. */
  requestWithInput(method: string, params: JsonObject, options: CallOptions = {}): Promise<JsonObject> {
    return this.#request(method, params, options, true)
  }

  // ---- typed calls -------------------------------------------------------------------------

  async listTools(cursor?: string, options: CallOptions = {}): Promise<Page<JsonObject>> {
    const result = await this.request('tools/list', cursor === undefined ? {} : { cursor }, options)
    const tools = Array.isArray(result.tools) ? (result.tools as JsonObject[]) : []
    return { items: this.#admitTools(tools), nextCursor: cursorOf(result) }
  }
  listAllTools(options: CallOptions = {}): Promise<JsonObject[]> {
    return collectPages((cursor) => this.listTools(cursor, options), this.settings.maxListPages, this.warn)
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
    return collectPages((cursor) => this.listPrompts(cursor, options), this.settings.maxListPages, this.warn)
  }
  getPrompt(name: string, args?: Record<string, string>, options: CallOptions = {}): Promise<JsonObject> {
    return this.requestWithInput('prompts/get', args === undefined ? { name } : { name, arguments: args }, options)
  }
  async listResources(cursor?: string, options: CallOptions = {}): Promise<Page<JsonObject>> {
    const result = await this.request('resources/list', cursor === undefined ? {} : { cursor }, options)
    return { items: Array.isArray(result.resources) ? (result.resources as JsonObject[]) : [], nextCursor: cursorOf(result) }
  }
  listAllResources(options: CallOptions = {}): Promise<JsonObject[]> {
    return collectPages((cursor) => this.listResources(cursor, options), this.settings.maxListPages, this.warn)
  }
  async listResourceTemplates(cursor?: string, options: CallOptions = {}): Promise<Page<JsonObject>> {
    const result = await this.request('resources/templates/list', cursor === undefined ? {} : { cursor }, options)
    return {
      items: Array.isArray(result.resourceTemplates) ? (result.resourceTemplates as JsonObject[]) : [],
      nextCursor: cursorOf(result),
    }
  }
  listAllResourceTemplates(options: CallOptions = {}): Promise<JsonObject[]> {
    return collectPages((cursor) => this.listResourceTemplates(cursor, options), this.settings.maxListPages, this.warn)
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

  /** How many times an expired legacy session was replaced on this connection: what a session set up is gone since. */
  get sessionsReplaced(): number {
    return this.#session.generation
  }

  /**
   * Call `listener` each time an expired legacy session was replaced by a new one (2025-11-25
   * basic/transports.mdx "Session Management": the client MUST start a new session).
   */
  onSessionRenewed(listener: () => void): () => void {
    return this.#session.onRenewed(listener)
  }

  /** Listen for server notifications of one method ('*' = all): list_changed, resources/updated, message… */
  on(method: string, listener: NotificationListener): () => void {
    return this.peer.on(method, listener)
  }

  /**
   * 2026 `subscriptions/listen` (basic/patterns/subscriptions.mdx), routed by subscription id in
   * subscriptions.ts. Legacy servers push change events unasked: use on() instead.
   */
  listen(filter: JsonObject, onNotification: (method: string, params: JsonObject) => void): Listening {
    this.#requireEra('modern', 'subscriptions/listen')
    return openListen(this, filter, onNotification)
  }

  /** Follow list changes and resource updates the same way in both eras (subscriptions.ts says how). */
  follow(filter: FollowFilter, onNotification: (method: string, params: JsonObject) => void): Following {
    return followChanges(this, filter, onNotification)
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
}

function isSessionExpired(error: unknown): boolean {
  return error instanceof McpxError && error.code === 'CONNECT' && error.data?.sessionExpired === true
}
