/**
 * The CLI as host of its own /v1 calls: an upstream's question during a `call` or `request`
 * (elicitation, sampling) is published on the event feed as `call.input`, tagged with the call's
 * progressId, and the CLI that follows the feed answers it with POST /v1/answer. Roots need no
 * round trip: the CLI sends its roots with the call. Which of these a call can answer is what the
 * CLI declared in `host`; a question it cannot answer is refused by the broker (-32021).
 */
import type { DownstreamAsker } from '../gateway/index.ts'
import { McpxError } from '../errors/index.ts'
import { RPC, RpcError } from '../errors/index.ts'
import { missingCapability } from '../wire/index.ts'
import type { EventFeed } from './events.ts'
import type { JsonObject } from '../wire/index.ts'

/** What a CLI call says about itself (the `host` parameter of /v1 call, request and catalog). */
export interface HostParams {
  /** Root URIs (file://…) the CLI grants: its working directory and each --root. */
  readonly roots?: readonly string[]
  /** The CLI answers elicitation/create (it prompts, reads --answers, or declines with a message). */
  readonly elicit?: boolean
  /** The CLI answers sampling/createMessage (setting samplingCommand names a program). */
  readonly sample?: boolean
}

/** Why a CLI call refuses sampling (the README's Brokering section). */
export const CLI_SAMPLING_REFUSAL =
  'the mcpx CLI that made the call answers sampling/createMessage only when setting samplingCommand (MCPX_SAMPLING_COMMAND) names a program, and it is not set'

interface Pending {
  resolve(result: JsonObject): void
  reject(error: unknown): void
}

/** Where a question is put to the CLI: the event feed, or the call's own streamed answer (call-stream.ts). */
export type AskPublisher = (type: 'call.input', data: JsonObject) => void

/**
 * The daemon's open questions to its CLIs: one per daemon (daemon.ts builds it beside the event
 * feed), so two daemons in one process, as in tests, never answer each other's questions.
 */
export class HostQuestions {
  readonly #pending = new Map<string, Pending>()
  #asked = 0

  constructor(private readonly events: EventFeed) {}

  /** The asker for one CLI call; undefined when the CLI declared nothing. */
  asker(
    host: HostParams | undefined,
    callId: string | undefined,
    publish: AskPublisher = (type, data) => this.events.publish(type, data),
  ): DownstreamAsker | undefined {
    if (host === undefined) return undefined
    const asker: DownstreamAsker = {}
    if (host.roots !== undefined) {
      const roots = host.roots.map((uri) => ({ uri, name: uri.replace(/^file:\/\//, '') }))
      asker.listRoots = async () => ({ roots })
    }
    if (callId !== undefined) {
      const ask = (kind: 'elicit' | 'sample') => (params: JsonObject, signal?: AbortSignal) =>
        this.#ask(publish, callId, kind, params, signal)
      if (host.elicit) asker.elicit = ask('elicit')
      if (host.sample) asker.sample = ask('sample')
      // The CLI said it cannot answer sampling (no samplingCommand): refused naming what is missing.
      else if (host.sample === false) asker.sample = () => Promise.reject(missingCapability({ sampling: {} }, CLI_SAMPLING_REFUSAL))
    }
    return asker
  }

  #ask(publish: AskPublisher, callId: string, kind: 'elicit' | 'sample', params: JsonObject, signal?: AbortSignal): Promise<JsonObject> {
    const inputId = `${process.pid}-${++this.#asked}`
    const pending = this.#pending
    return new Promise<JsonObject>((resolve, reject) => {
      const onAbort = () => settle(() => reject(signal?.reason ?? new McpxError('CANCELLED', 'the call ended before the CLI answered')))
      const settle = (fn: () => void) => {
        pending.delete(inputId)
        signal?.removeEventListener('abort', onAbort)
        fn()
      }
      pending.set(inputId, { resolve: (result) => settle(() => resolve(result)), reject: (error) => settle(() => reject(error)) })
      if (signal?.aborted) return onAbort()
      signal?.addEventListener('abort', onAbort, { once: true })
      publish('call.input', { progressId: callId, inputId, kind, params })
    })
  }

  /** POST /v1/answer: the CLI's answer (a result object) or refusal (a JSON-RPC error) to one question. */
  answer(inputId: string, result: JsonObject | undefined, error: { code?: number; message?: string } | undefined): { answered: true } {
    const pending = this.#pending.get(inputId)
    if (pending === undefined)
      throw new McpxError('NOT_FOUND', `no open question "${inputId}" (answered already, or its call ended)`, { inputId })
    if (error !== undefined)
      pending.reject(
        new RpcError(typeof error.code === 'number' ? error.code : RPC.INTERNAL_ERROR, error.message ?? 'the CLI refused the request'),
      )
    else pending.resolve(result ?? {})
    return { answered: true }
  }
}
