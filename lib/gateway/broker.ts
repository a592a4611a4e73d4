/**
 * Brokering of upstream questions (elicitation, sampling, roots) and log messages back to the
 * downstream host that made the call (see Broker for how that caller is found). With no caller able
 * to answer, a question is declined with -32021 (missing client capability).
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { ClientHandlers, InputContext, JsonObject } from '../client/index.ts'
import { RPC, RpcError } from '../errors/index.ts'

/**
 * What a downstream host can answer; each member present only when that host declared the
 * capability. `key` is the upstream's inputRequests key (2026 upstreams), kept so the host sees it.
 */
export interface DownstreamAsker {
  elicit?(params: JsonObject, signal?: AbortSignal, key?: string): Promise<JsonObject>
  sample?(params: JsonObject, signal?: AbortSignal, key?: string): Promise<JsonObject>
  listRoots?(params: JsonObject, signal?: AbortSignal, key?: string): Promise<JsonObject>
}

/** Where the upstream's log messages for one call go (a `notifications/message` params object). */
export type LogSink = (params: JsonObject) => void

type Kind = keyof DownstreamAsker
const KIND_LABEL: Record<Kind, string> = { elicit: 'elicitation', sample: 'sampling', listRoots: 'roots' }

/**
 * A 2026 upstream asks inside the call's own async flow (input_required rounds), so
 * AsyncLocalStorage finds the caller exactly. A legacy upstream sends a JSON-RPC request that
 * arrives from the transport, outside that flow; then the caller is the one in-flight call on that
 * upstream that can answer (the most recent when several can: stdio carries no call association).
 * When those in-flight calls run for different principals, the question is refused instead: it
 * goes only to a call of the principal it belongs to, never to another's host.
 * The upstream's `notifications/message` follow the same rule: stdio and the transports carry no
 * request association for them, so they go to the most recent in-flight call that asked for logs.
 */
export class Broker {
  readonly #scope = new AsyncLocalStorage<DownstreamAsker>()
  readonly #inFlight: DownstreamAsker[] = []
  /** Who each in-flight call runs for (access/principal.ts id); absent = the machine's owner. */
  readonly #principals = new WeakMap<DownstreamAsker, string>()
  readonly #logSinks: LogSink[] = []

  constructor(private readonly server: string) {}

  /** Run one upstream call on behalf of `asker` (for `principal`); its log messages go to `onLog`. */
  run<T>(asker: DownstreamAsker | undefined, call: () => Promise<T>, onLog?: LogSink, principal?: string): Promise<T> {
    const scope = asker ?? {}
    this.#inFlight.push(scope)
    if (principal !== undefined) this.#principals.set(scope, principal)
    if (onLog) this.#logSinks.push(onLog)
    const done = () => {
      this.#inFlight.splice(this.#inFlight.indexOf(scope), 1)
      if (onLog) this.#logSinks.splice(this.#logSinks.indexOf(onLog), 1)
    }
    // Settled through one reaction, not an async frame: every upstream call passes here.
    let running: Promise<T>
    try {
      running = this.#scope.run(scope, call)
    } catch (error) {
      done()
      return Promise.reject(error)
    }
    return running.then(
      (value) => (done(), value),
      (error: unknown) => {
        done()
        throw error
      },
    )
  }

  /** An upstream `notifications/message`: to the most recent call that asked for logs, else dropped. */
  log(params: JsonObject): void {
    this.#logSinks.at(-1)?.(params)
  }

  /** The handlers given to the upstream connection: every question goes through the broker. */
  handlers(): ClientHandlers {
    return {
      onElicit: (params, context) => this.#ask('elicit', params, context),
      onSample: (params, context) => this.#ask('sample', params, context),
      onListRoots: (params, context) => this.#ask('listRoots', params, context),
    }
  }

  #ask(kind: Kind, params: JsonObject, context: InputContext): Promise<JsonObject> {
    if (!this.#scope.getStore() && !this.#onePrincipal()) {
      // A question outside any call's flow (a legacy upstream's request) belongs to one of the calls
      // in flight; when they run for different principals, putting it to any one of them could hand
      // one caller's question to another, so it is refused.
      throw new RpcError(RPC.INVALID_REQUEST, `upstream "${this.server}" asked for ${KIND_LABEL[kind]} while calls of several principals were in flight; mcpx cannot tell whose question it is, so it is refused`)
    }
    const asker = this.#callerFor(kind)
    const answer = asker?.[kind]
    if (!answer) {
      // 2026-07-28 basic/index.mdx: the error a server gives for a capability the client lacks.
      throw new RpcError(RPC.MISSING_CLIENT_CAPABILITY, `upstream "${this.server}" asked for ${KIND_LABEL[kind]}, but the host that made the call did not declare that it can answer`, {
        requiredCapabilities: { [KIND_LABEL[kind]]: {} },
      }, 400)
    }
    return answer.call(asker, params, context.signal, context.via === 'input_required' && typeof context.key === 'string' ? context.key : undefined)
  }

  #onePrincipal(): boolean {
    const first = this.#inFlight[0]
    if (first === undefined) return true
    const principal = this.#principals.get(first)
    return this.#inFlight.every((scope) => this.#principals.get(scope) === principal)
  }

  #callerFor(kind: Kind): DownstreamAsker | undefined {
    const scoped = this.#scope.getStore()
    if (scoped) return scoped
    for (let i = this.#inFlight.length - 1; i >= 0; i--) if (this.#inFlight[i]![kind]) return this.#inFlight[i]
    return undefined
  }
}
