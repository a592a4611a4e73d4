/**
 * Brokering of upstream questions (elicitation, sampling, roots) back to the downstream host that
 * made the call. A 2026 upstream asks inside the call's own async flow (input_required rounds), so
 * AsyncLocalStorage finds the caller exactly. A legacy upstream sends a JSON-RPC request that
 * arrives from the transport, outside that flow; then the caller is the one in-flight call on that
 * upstream that can answer (the most recent when several can: stdio carries no call association).
 * With no caller able to answer, the question is declined with an error naming why.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { ClientHandlers, InputContext, JsonObject } from '../client/index.ts'
import { McpxError } from '../errors/index.ts'

/** What a downstream host can answer; each member present only when that host declared the capability. */
export interface DownstreamAsker {
  elicit?(params: JsonObject, signal?: AbortSignal): Promise<JsonObject>
  sample?(params: JsonObject, signal?: AbortSignal): Promise<JsonObject>
  listRoots?(params: JsonObject, signal?: AbortSignal): Promise<JsonObject>
}

type Kind = keyof DownstreamAsker
const KIND_LABEL: Record<Kind, string> = { elicit: 'elicitation', sample: 'sampling', listRoots: 'roots' }

export class Broker {
  readonly #scope = new AsyncLocalStorage<DownstreamAsker>()
  readonly #inFlight: DownstreamAsker[] = []

  constructor(private readonly server: string) {}

  /** Run one upstream call on behalf of `asker`. */
  async run<T>(asker: DownstreamAsker | undefined, call: () => Promise<T>): Promise<T> {
    const scope = asker ?? {}
    this.#inFlight.push(scope)
    try {
      return await this.#scope.run(scope, call)
    } finally {
      this.#inFlight.splice(this.#inFlight.indexOf(scope), 1)
    }
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
      throw new McpxError('NOT_FOUND', `upstream "${this.server}" asked for ${KIND_LABEL[kind]}, but the host that made the call did not declare that it can answer`, {
        server: this.server,
        kind: KIND_LABEL[kind],
      })
    }
    return answer.call(asker, params, context.signal)
  }

  #callerFor(kind: Kind): DownstreamAsker | undefined {
    const scoped = this.#scope.getStore()
    if (scoped) return scoped
    for (let i = this.#inFlight.length - 1; i >= 0; i--) if (this.#inFlight[i]![kind]) return this.#inFlight[i]
    return undefined
  }
}
