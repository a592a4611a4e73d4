/**
 * Brokering of upstream questions (elicitation, sampling, roots) and log messages back to the
 * downstream host that made the call (see Broker for how that caller is found). With no caller able
 * to answer, a question is declined with -32021 (missing client capability).
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { ClientHandlers, InputContext, JsonObject } from '../client/index.ts'
import { settle } from './settle.ts'
import { CAPABILITY_OF_ASK, type AskMethod, missingCapability } from '../wire/index.ts'

/**
 * What a downstream host can answer; each member present only when that host declared the
 * capability. `key` is the upstream's inputRequests key (2026 upstreams), kept so the host sees it.
 */
export interface DownstreamAsker {
  /** The host session the call came from (HandlerContext.session); none for a 2026 request or the CLI. */
  readonly host?: object
  elicit?(params: JsonObject, signal?: AbortSignal, key?: string): Promise<JsonObject>
  sample?(params: JsonObject, signal?: AbortSignal, key?: string): Promise<JsonObject>
  listRoots?(params: JsonObject, signal?: AbortSignal, key?: string): Promise<JsonObject>
}

/** Where the upstream's log messages for one call go (a `notifications/message` params object). */
export type LogSink = (params: JsonObject) => void

/**
 * A relayed call as the broker sees it (surfaces/relayed-tool-call.ts): the asker of its host, and
 * the receiver of the upstream's log lines while it is in flight (a method: no sink per call).
 */
export interface RelayScope extends DownstreamAsker {
  log(params: JsonObject): void
}

export type QuestionKind = Exclude<keyof DownstreamAsker, 'host'>
type Kind = QuestionKind
/** Every kind of question mcpx can broker to some caller (what a daemon declares upstream). */
export const ALL_QUESTIONS: readonly QuestionKind[] = ['elicit', 'sample', 'listRoots']
/** The request each kind of ask sends downstream; its capability is wire's CAPABILITY_OF_ASK. */
export const ASK_METHOD_OF = {
  elicit: 'elicitation/create',
  sample: 'sampling/createMessage',
  listRoots: 'roots/list',
} as const satisfies Record<Kind, AskMethod>
export const capabilityOfKind = (kind: Kind): string => CAPABILITY_OF_ASK[ASK_METHOD_OF[kind]]

/**
 * The brokering policy (README "Brokering"). A 2026 upstream asks inside the call's own async flow
 * (input_required rounds), so AsyncLocalStorage finds the caller exactly. A legacy upstream sends a
 * JSON-RPC request that arrives from the transport, outside that flow (stdio carries no call
 * association); it belongs to the one call in flight on that connection, or to the one host session
 * all the calls in flight came from (a legacy host's parallel calls: it is put to that host through
 * the oldest of them), and otherwise (calls of several hosts, of 2026 hosts, which have no session,
 * or none, like `roots/list` right after `initialize`) nobody is guessed:
 * `roots/list` is answered from the server's configured roots, anything else is refused with
 * -32021 naming what is missing. A caller that cannot answer a kind of question is treated the same.
 * The upstream's `notifications/message` carry no request association either, so they go to the
 * most recent in-flight call that asked for logs (a log line is not an answer: nothing is decided).
 * Because a transport-borne question goes only to the single call in flight, it never reaches another
 * principal's host: with calls of several principals in flight, it is refused.
 */
export class Broker {
  readonly #scope = new AsyncLocalStorage<DownstreamAsker>()
  readonly #inFlight: DownstreamAsker[] = []
  readonly #logSinks: (LogSink | RelayScope)[] = []

  /**
   * `roots`: file:// URIs to answer roots/list with when no caller can (the config's `roots`).
   * `questions`: the kinds some caller of this connection can answer — only these are declared
   * upstream (a CLI without samplingCommand declares no sampling; README "Brokering").
   */
  constructor(
    private readonly server: string,
    private readonly roots?: readonly string[],
    private readonly questions: readonly QuestionKind[] = ALL_QUESTIONS,
  ) {}

  /** Run one upstream call on behalf of `asker`; its log messages go to `onLog`. */
  run<T>(asker: DownstreamAsker | undefined, call: () => Promise<T>, onLog?: LogSink): Promise<T> {
    const scope = asker ?? {}
    this.#inFlight.push(scope)
    if (onLog) this.#logSinks.push(onLog)
    const done = () => {
      this.#inFlight.splice(this.#inFlight.indexOf(scope), 1)
      if (onLog) this.#logSinks.splice(this.#logSinks.indexOf(onLog), 1)
    }
    return settle(() => this.#scope.run(scope, call), done)
  }

  /**
   * A relayed call in flight from now until leave(): the same place among the calls as run()
   * gives, for a legacy upstream, whose questions and log lines arrive from the transport, outside
   * any call's async flow (so no AsyncLocalStorage scope is needed).
   */
  enter(scope: RelayScope): void {
    this.#inFlight.push(scope)
    this.#logSinks.push(scope)
  }

  leave(scope: RelayScope): void {
    this.#inFlight.splice(this.#inFlight.indexOf(scope), 1)
    this.#logSinks.splice(this.#logSinks.indexOf(scope), 1)
  }

  /** An upstream `notifications/message`: to the most recent call that asked for logs, else dropped. */
  log(params: JsonObject): void {
    const sink = this.#logSinks.at(-1)
    if (typeof sink === 'function') sink(params)
    else sink?.log(params)
  }

  /** The handlers given to the upstream connection: every question goes through the broker. */
  handlers(): ClientHandlers {
    const has = (kind: Kind) => this.questions.includes(kind)
    return {
      // Both modes are declared: a host that made the call and declared only form mode is refused
      // a URL-mode question by the surface that asks it (brokered-call.ts), the CLI answers both.
      ...(has('elicit') && { onElicit: (params, context) => this.#ask('elicit', params, context), elicitUrl: true }),
      ...(has('sample') && { onSample: (params, context) => this.#ask('sample', params, context) }),
      ...(has('listRoots') && { onListRoots: (params, context) => this.#ask('listRoots', params, context) }),
    }
  }

  /** The caller of the one call in flight, or of the oldest when every call in flight came from one host session. */
  #soleHost(): DownstreamAsker | undefined {
    const first = this.#inFlight[0]
    if (first === undefined || this.#inFlight.length === 1) return first
    const host = first.host
    return host !== undefined && this.#inFlight.every((asker) => asker.host === host) ? first : undefined
  }

  async #ask(kind: Kind, params: JsonObject, context: InputContext): Promise<JsonObject> {
    // A legacy connection's reader inherits the async context of the call that opened it; a scope
    // that is no longer in flight is that stale context, not the caller of this question.
    const stored = this.#scope.getStore()
    const scoped = stored !== undefined && this.#inFlight.includes(stored) ? stored : undefined
    const asker = scoped ?? this.#soleHost()
    const answer = asker?.[kind]
    if (answer)
      return answer.call(
        asker,
        params,
        context.signal,
        context.via === 'input_required' && typeof context.key === 'string' ? context.key : undefined,
      )
    if (kind === 'listRoots' && this.roots !== undefined) return { roots: this.roots.map((uri) => ({ uri })) }
    const why =
      asker !== undefined
        ? 'the host that made the call did not declare that it can answer'
        : this.#inFlight.length === 0
          ? 'no call is in flight on that connection to ask'
          : `${this.#inFlight.length} calls of different hosts are in flight on that connection and the question names none of them`
    // 2026-07-28 basic/index.mdx: the error a server gives for a capability the client lacks.
    throw missingCapability({ [capabilityOfKind(kind)]: {} }, `upstream "${this.server}" asked for ${capabilityOfKind(kind)}, but ${why}`)
  }
}
