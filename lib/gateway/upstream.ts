/**
 * One pooled upstream: connected lazily on first use (single-flight; what a connection is made of:
 * upstream-connect.ts), its catalog cached until a list_changed says otherwise (legacy
 * notifications or a 2026 subscriptions/listen stream), restarted with exponential backoff after a
 * crash, and every call bounded by a deadline, checked against the tool's schemas
 * (call-validation.ts), run as a task where it must (task-runner.ts) and brokered back to its
 * caller for any question the upstream asks mid-call.
 */
import type { CallOptions, ConnectOptions, JsonObject, McpClient } from '../client/index.ts'
import type { ServerConfig } from '../config/index.ts'
import { McpxError, asMcpxError } from '../errors/index.ts'
import { log } from '../log/index.ts'
import { isLostInFlight, resendable } from '../session/index.ts'
import type { Settings } from '../settings/index.ts'
import type { SchemaValidator } from '../schema/index.ts'
import { Broker, type QuestionKind } from './broker.ts'
import { type RelayReceiver, type RelayStop, UpstreamRelay } from './upstream-relay.ts'
import { schemaProblem } from './call-validation.ts'
import { callAsTask, runsAsTask, taskRefusal } from './task-runner.ts'
import type { Catalog, ServerState, ServerStatus, UpstreamCallOptions } from './pool-shapes.ts'
import { configuredStatus } from './status.ts'
import { UpstreamBackoff } from './upstream-backoff.ts'
import { watchChanges } from './upstream-changes.ts'
import { connectUpstream } from './upstream-connect.ts'
import type { UpstreamRecording } from './upstream-recording.ts'

/** Connect failures tried again in the background (#restartLater): the server was not reached or did not answer. */
const RETRIED = new Set(['CONNECT', 'TIMEOUT'])

export interface UpstreamContext {
  readonly settings: Settings
  readonly cacheDir?: string
  readonly emit: (type: string, data: unknown) => void
  /** Extra connect options (auth provider for HTTP upstreams, client info). */
  readonly connectOptions?: (server: ServerConfig) => Partial<ConnectOptions> | Promise<Partial<ConnectOptions>>
  /** Validates arguments before a call and structuredContent after it, against the tool's schemas. */
  readonly validator?: SchemaValidator
  /** The kinds of upstream question some caller can answer, declared upstream (default: all of them). */
  readonly questions?: readonly QuestionKind[]
  /** Declare the MCP Apps extension upstream (default true: the daemon carries apps to hosts that render them; the CLI renders none). */
  readonly apps?: boolean
}

export class Upstream {
  readonly broker: Broker
  #state: ServerState
  #client?: McpClient
  #connecting?: Promise<McpClient>
  #catalog?: Promise<Catalog>
  /** The current catalog's tools by name, once it has resolved (see #toolDefinition). */
  #tools?: { catalog: Promise<Catalog>; byName: Map<string, JsonObject> }
  #lastError?: McpxError
  readonly #backoff: UpstreamBackoff
  #everReady = false
  #closed = false
  #stopListening?: () => void
  #recordings = 0

  constructor(
    readonly config: ServerConfig,
    private readonly context: UpstreamContext,
  ) {
    this.broker = new Broker(config.name, config.roots, context.questions)
    this.#backoff = new UpstreamBackoff(context.settings)
    this.#state = config.disabled ? 'disabled' : config.unavailable !== undefined ? 'unavailable' : 'configured'
  }

  get name(): string {
    return this.config.name
  }

  status(): ServerStatus {
    const client = this.#client
    return {
      ...configuredStatus(this.config),
      state: this.#state,
      ...(client && { revision: client.revision, era: client.era }),
      ...(this.#lastError &&
        this.#state === 'failed' && {
          reason: this.#lastError.message,
          error: { code: this.#lastError.code, message: this.#lastError.message },
          ...(this.#backoff.restartInMs !== undefined && { retryInMs: this.#backoff.restartInMs }),
        }),
    }
  }

  /** The live connection, connecting (once, shared) when there is none. */
  async client(): Promise<McpClient> {
    if (this.#closed) throw new McpxError('CONNECT', `server "${this.name}" is shut down`, { server: this.name })
    if (this.config.disabled) throw new McpxError('CONNECT', `server "${this.name}" is disabled in the config`, { server: this.name })
    if (this.config.unavailable !== undefined)
      throw new McpxError('CONFIG', `server "${this.name}" is unavailable: ${this.config.unavailable}`, {
        server: this.name,
        state: 'unavailable',
        reason: this.config.unavailable,
      })
    if (this.#client && !this.#client.peer.closed) return this.#client
    if (this.#connecting) return this.#connecting
    if (this.#lastError && Date.now() < this.#backoff.holdUntil) throw this.#lastError
    return this.#startConnecting()
  }

  /** One connection attempt at a time: calls and the background restart share the one under way. */
  #startConnecting(): Promise<McpClient> {
    this.#connecting = this.#connect().finally(() => (this.#connecting = undefined))
    return this.#connecting
  }

  call(tool: string, args: JsonObject, options: UpstreamCallOptions = {}): Promise<JsonObject> {
    // The everyday call (connected, the current catalog's tools at hand) has nothing to await
    // before the request: no async frame of its own, the broker's promise handed back.
    const live = this.#client
    const known = this.#tools
    if (live === undefined || live.peer.closed || known === undefined || known.catalog !== this.#catalog || !this.isToolAllowed(tool))
      return this.#connectAndCall(tool, args, options)
    try {
      return this.#callOn(live, tool, args, options, known.byName.get(tool))
    } catch (error) {
      return Promise.reject(error)
    }
  }

  async #connectAndCall(tool: string, args: JsonObject, options: UpstreamCallOptions): Promise<JsonObject> {
    this.#checkToolAllowed(tool)
    const live = this.#client
    const client = live !== undefined && !live.peer.closed ? live : await this.client()
    const known = this.#tools
    // The definition is needed to validate, and to know a tool that must run as a task.
    const definition = known !== undefined && known.catalog === this.#catalog ? known.byName.get(tool) : await this.#toolDefinition(tool)
    return this.#callOn(client, tool, args, options, definition)
  }

  /** The call on `client` once the tool's definition is known; throws what it refuses before sending. */
  #callOn(
    client: McpClient,
    tool: string,
    args: JsonObject,
    options: UpstreamCallOptions,
    definition: JsonObject | undefined,
  ): Promise<JsonObject> {
    if (definition && this.context.validator && !options.argumentsChecked) this.#validate('input', definition, args)
    const timeoutMs = options.timeoutMs ?? this.context.settings.requestTimeoutMs
    const call = callOptions(options, timeoutMs)
    const asTask = runsAsTask(this.name, tool, definition, client, options)
    if (!asTask) options.onTaskCreated?.(undefined)
    const run = asTask
      ? () =>
          callAsTask(client, tool, args, {
            call,
            handlers: this.broker.handlers(),
            defaultPollMs: this.context.settings.taskPollIntervalMs,
            ...(options.onTaskCreated && { onCreated: options.onTaskCreated }),
          })
      : () => client.callTool(tool, args, call)
    return this.#checkedOutput(this.broker.run(options.asker, run, options.onLog), definition)
  }

  /**
   * A host's plain call relayed as it is (lib/server relay.ts): sent on the live connection when it
   * relays tool calls (McpClient.relaysToolCalls) and its catalog is current, for an allowed tool
   * of that catalog that does not run as a task. Its outcome goes to `receiver`, which is also the
   * broker's scope for the call meanwhile (the host's asker, the upstream's log lines); output is
   * checked as call() checks it. Undefined, before anything is sent, for any other call: call()
   * covers it. The returned stop cancels it upstream by its id.
   */
  relay(tool: string, args: JsonObject, receiver: RelayReceiver): RelayStop | undefined {
    const live = this.#client
    const known = this.#tools
    if (live === undefined || live.peer.closed || !live.relaysToolCalls || known === undefined || known.catalog !== this.#catalog)
      return undefined
    const definition = known.byName.get(tool)
    if (definition === undefined || !this.isToolAllowed(tool) || runsAsTask(this.name, tool, definition, live, NO_TASK_OPTIONS))
      return undefined
    const relayed = new UpstreamRelay(this.broker, live, definition, receiver, this.#checkOutput)
    this.broker.enter(receiver)
    relayed.id = live.relayToolCall(tool, args, relayed, this.context.settings.requestTimeoutMs)
    return relayed
  }

  #checkedOutput(running: Promise<JsonObject>, definition: JsonObject | undefined): Promise<JsonObject> {
    if (definition?.outputSchema === undefined) return running
    return running.then((result) => {
      this.#checkOutput(definition, result)
      return result
    })
  }

  /** 2025-06-18 server/tools.mdx: clients SHOULD validate structured results against outputSchema (call-validation.ts). */
  readonly #checkOutput = (definition: JsonObject, result: JsonObject): void => {
    if (definition.outputSchema !== undefined && result.isError !== true && result.structuredContent !== undefined)
      this.#validate('output', definition, result.structuredContent)
  }

  async #toolDefinition(tool: string): Promise<JsonObject | undefined> {
    const pending = this.catalog()
    const catalog = await pending.catch(() => undefined)
    if (catalog === undefined) return undefined
    // Later calls find their tool without awaiting, as long as this catalog stays current.
    const byName = new Map(catalog.tools.map((t) => [String(t.name), t]))
    if (this.#catalog === pending) this.#tools = { catalog: pending, byName }
    return byName.get(tool)
  }

  /**
   * True when the live connection is a 2026 server with the tasks extension: it decides per call
   * whether a tools/call becomes a task (extensions/tasks), and its listing says nothing about it.
   */
  get decidesTasksPerCall(): boolean {
    const client = this.#client
    return client !== undefined && !client.peer.closed && taskRefusal(client, undefined) === undefined
  }

  /** True when this upstream's calls check arguments against the tool's inputSchema (a validator is set). */
  get validatesArguments(): boolean {
    return this.context.validator !== undefined
  }

  /** The compiled accept-check of `tool`'s inputSchema (SchemaValidator.inputAccept): true, the arguments surely fit. */
  argumentsAccept(tool: JsonObject): ((args: unknown) => boolean) | undefined {
    return this.context.validator?.inputAccept(tool)
  }

  /**
   * Why `args` do not fit `tool`'s inputSchema (a USAGE error naming the tool as `shownAs`), checked by
   * the daemon's validator (ReDoS-safe, size-capped: upstream schemas are untrusted); undefined when they fit.
   */
  argumentsProblem(tool: JsonObject, args: unknown, shownAs?: string): McpxError | undefined {
    return schemaProblem(this.context.validator, this.name, 'input', tool, args, shownAs)
  }

  #validate(direction: 'input' | 'output', tool: JsonObject, value: unknown): void {
    const problem = schemaProblem(this.context.validator, this.name, direction, tool, value)
    if (problem) throw problem
  }

  /** Any other request (prompts/get, resources/read, completion/complete…), brokered like a call. */
  async request(method: string, params: JsonObject, options: UpstreamCallOptions = {}): Promise<JsonObject> {
    const timeoutMs = options.timeoutMs ?? this.context.settings.requestTimeoutMs
    const attempt = async () => {
      const client = await this.client()
      return this.broker.run(options.asker, () => client.requestWithInput(method, params, callOptions(options, timeoutMs)), options.onLog)
    }
    // A read the upstream lost with its connection is asked once more of the restarted one; any
    // other request is failed as "may or may not have run", never re-sent (at most once).
    return attempt().catch((error: unknown) =>
      isLostInFlight(error) && resendable(method) && !this.#closed ? attempt() : Promise.reject(error),
    )
  }

  /** The cached catalog (the same promise until it is invalidated), loading it when there is none. */
  catalog(options: { refresh?: boolean } = {}): Promise<Catalog> {
    if (options.refresh) this.#catalog = undefined
    let pending = this.#catalog
    if (pending === undefined) {
      const loading = (pending = this.#catalog = this.#loadCatalog())
      loading.catch(() => {
        if (this.#catalog === loading) this.#catalog = undefined
      })
    }
    return pending
  }

  async close(): Promise<void> {
    this.#closed = true
    this.#backoff.cancel()
    this.#stopListening?.()
    const client = this.#client ?? (await this.#connecting?.catch(() => undefined))
    this.#client = undefined
    this.#state = 'closed'
    await client?.close().catch(() => {})
  }

  isToolAllowed(tool: string): boolean {
    const { allowedTools, blockedTools } = this.config
    if (blockedTools?.includes(tool)) return false
    return allowedTools === undefined || allowedTools.includes(tool)
  }

  #checkToolAllowed(tool: string): void {
    if (!this.isToolAllowed(tool)) {
      throw new McpxError('NOT_FOUND', `tool "${tool}" of server "${this.name}" is not allowed by the config (allowedTools/blockedTools)`, {
        server: this.name,
        tool,
      })
    }
  }

  async #connect(): Promise<McpClient> {
    this.#state = 'connecting'
    this.context.emit('server.connecting', { server: this.name })
    let recording: UpstreamRecording | undefined
    try {
      const extra = await this.context.connectOptions?.(this.config)
      // The config's `record: "<path>"` (upstream-recording.ts, and lib/replay with it, load only for it).
      const path = this.config.record
      if (path !== undefined) recording = (await import('./upstream-recording.ts')).openRecording(this.config, path, ++this.#recordings)
      const client = await connectUpstream(this.config, this.context, this.broker.handlers(), extra, recording)
      void client.peer.whenClosed().then(() => recording?.close())
      if (this.#closed) {
        await client.close()
        throw new McpxError('CONNECT', `server "${this.name}" is shut down`, { server: this.name })
      }
      this.#client = client
      this.#state = 'ready'
      this.#everReady = true
      this.#backoff.reset()
      this.#lastError = undefined
      this.#stopListening = watchChanges(client, (part) => {
        this.#catalog = undefined
        if (part !== 'session') return this.context.emit('catalog.changed', { server: this.name, part })
        // A new session after the old one expired: a restarted server, as on a reconnect.
        this.context.emit('server.ready', { server: this.name, era: client.era, revision: client.revision, renewed: true })
      })
      // Log messages reach the call that asked for them (broker.ts); legacy ones are session-wide.
      client.on('notifications/message', (params) => this.broker.log(params))
      void client.peer.whenClosed().then((reason) => this.#onClosed(client, reason))
      this.context.emit('server.ready', { server: this.name, era: client.era, revision: client.revision })
      return client
    } catch (error) {
      recording?.close(error instanceof Error ? error.message : String(error))
      const failure = asMcpxError(error, 'CONNECT')
      this.#backoff.failed()
      this.#lastError = failure
      this.#state = 'failed'
      this.context.emit('server.failed', { server: this.name, error: failure.toJSON() })
      // Not reached or not answering: tried again until it is. An AUTH or CONFIG failure waits for a person, and
      // so does a local command that never started (each try would spawn it again).
      const served = this.#everReady || this.config.target.kind !== 'stdio'
      if (RETRIED.has(failure.code) && served && !this.#closed) this.#restartLater()
      throw failure
    }
  }

  #onClosed(client: McpClient, reason: McpxError | undefined): void {
    if (this.#client !== client) return
    this.#client = undefined
    this.#catalog = undefined
    this.#stopListening?.()
    if (this.#closed) return
    this.#state = 'failed'
    this.#lastError = reason ?? new McpxError('CONNECT', `server "${this.name}" closed the connection`, { server: this.name })
    log.warn(`[${this.name}] upstream went away: ${this.#lastError.message}`)
    this.context.emit('server.crashed', { server: this.name, error: this.#lastError.toJSON() })
    this.#restartLater()
    this.#backoff.failures += 1
  }

  /**
   * Restart in the background, and again after each attempt that fails (a remote server takes a
   * while to come back, or is not up yet), the wait doubling up to restartBackoffMaxMs, until it is
   * back or closed. A call arriving earlier connects at once (single-flight).
   */
  #restartLater(): void {
    this.#backoff.restartLater(() => {
      // Not client(): the background try is not held off by the hold on calls.
      if (!this.#client && !this.#connecting && !this.#closed) this.#startConnecting().catch(() => {})
    })
  }

  async #loadCatalog(): Promise<Catalog> {
    const client = await this.client()
    const caps = client.serverCapabilities as Record<string, unknown>
    const [tools, prompts, resources, resourceTemplates] = await Promise.all([
      caps.tools ? client.listAllTools() : [],
      caps.prompts ? client.listAllPrompts() : [],
      caps.resources ? client.listAllResources() : [],
      caps.resources ? client.listAllResourceTemplates().catch(() => []) : [],
    ])
    // An item without the string that identifies it cannot be named, listed or asked for.
    const named = <T extends JsonObject>(items: T[], key: string) => items.filter((item) => typeof item[key] === 'string')
    return {
      server: this.name,
      tools: named(tools, 'name').filter((tool) => this.isToolAllowed(tool.name as string)),
      prompts: named(prompts, 'name'),
      resources: named(resources, 'uri'),
      resourceTemplates: named(resourceTemplates, 'uriTemplate'),
      // Of the connection these lists came from, not of whichever is live when a surface reads them.
      decidesTasksPerCall: taskRefusal(client, undefined) === undefined,
      completes: caps.completions !== undefined,
      subscribes: (caps.resources as { subscribe?: unknown } | undefined)?.subscribe === true,
    }
  }
}

/** A relayed call asks for no task: only a task-required tool runs as one (runsAsTask). */
const NO_TASK_OPTIONS: UpstreamCallOptions = Object.freeze({})

function callOptions(options: UpstreamCallOptions, timeoutMs: number): CallOptions {
  const out: CallOptions = { timeoutMs }
  if (options.signal) out.signal = options.signal
  if (options.onProgress) out.onProgress = options.onProgress
  if (options.logLevel) out.logLevel = options.logLevel
  if (options.capabilities) out.capabilities = options.capabilities
  if (options.acceptTask) out.acceptTask = true
  return out
}
