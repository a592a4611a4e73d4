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
 * The upstream's `notifications/message` follow the same rule: stdio and the transports carry no
 * request association for them, so they go to the most recent in-flight call that asked for logs.
 */
export class Broker {
  readonly #scope = new AsyncLocalStorage<DownstreamAsker>()
  readonly #inFlight: DownstreamAsker[] = []
  readonly #logSinks: LogSink[] = []

  constructor(private readonly server: string) {}

  /** Run one upstream call on behalf of `asker`; its log messages go to `onLog`. */
  run<T>(asker: DownstreamAsker | undefined, call: () => Promise<T>, onLog?: LogSink): Promise<T> {
    const scope = asker ?? {}
    this.#inFlight.push(scope)
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

  #callerFor(kind: Kind): DownstreamAsker | undefined {
    // A legacy connection's reader inherits the async context of the call that opened it; a scope
    // that is no longer in flight is that stale context, not the caller of this question.
    const scoped = this.#scope.getStore()
    if (scoped && this.#inFlight.includes(scoped)) return scoped
    for (let i = this.#inFlight.length - 1; i >= 0; i--) if (this.#inFlight[i]![kind]) return this.#inFlight[i]
    return undefined
  }
}
