/**
 * Turns a recording into request → answer exchanges and finds the one an incoming request asks
 * for: same method and params once ids, volatile fields (volatile.ts) and redacted values are set
 * aside. Recorded exchanges are used in order; a request repeated more often than recorded gets
 * the last matching answer again. No match → the closest recorded request, for the error message.
 */
import type { MessageEntry, Recording } from './format.ts'
import { diffValues, type Difference } from './diff.ts'
import { normalize, type VolatileField } from './volatile.ts'

/** One recorded request and everything the server sent until (and including) its response. */
export interface Exchange {
  readonly request: MessageEntry
  /** to-client messages in order: notifications and server requests, then the response (if recorded). */
  readonly answer: readonly MessageEntry[]
  /** to-server responses to the server requests inside `answer`, keyed by their id. */
  readonly clientReplies: ReadonlyMap<string, MessageEntry>
  readonly method: string
}

export type MatchResult =
  | { readonly ok: true; readonly exchange: Exchange }
  | { readonly ok: false; readonly closest?: Exchange; readonly differences: readonly Difference[] }

/** Group a recording's messages into exchanges (the latest unanswered request owns what follows). */
export function buildExchanges(recording: Pick<Recording, 'messages'>): Exchange[] {
  const exchanges: {
    request: MessageEntry
    answer: MessageEntry[]
    clientReplies: Map<string, MessageEntry>
    method: string
    done: boolean
  }[] = []
  const byId = new Map<string, (typeof exchanges)[number]>()
  const open = (): (typeof exchanges)[number] | undefined => [...exchanges].reverse().find((e) => !e.done)
  for (const entry of recording.messages) {
    const m = entry.message
    const hasId = 'id' in m && m.id !== null && m.id !== undefined
    const isRequest = typeof m.method === 'string' && hasId
    const isResponse = !('method' in m) && hasId
    if (entry.direction === 'to-server') {
      if (isRequest) {
        const exchange = { request: entry, answer: [], clientReplies: new Map(), method: m.method as string, done: false }
        exchanges.push(exchange)
        byId.set(key(m.id), exchange)
      } else if (isResponse) {
        // A client's answer to a server request: attach it to the exchange that carried that request.
        const owner = exchanges.find((e) => e.answer.some((a) => typeof a.message.method === 'string' && key(a.message.id) === key(m.id)))
        owner?.clientReplies.set(key(m.id), entry)
      }
      continue
    }
    const owner = isResponse ? byId.get(key(m.id)) : open()
    if (owner === undefined) continue
    owner.answer.push(entry)
    if (isResponse) {
      owner.done = true
      byId.delete(key(m.id))
    }
  }
  return exchanges.map(({ done: _done, ...rest }) => rest)
}

export class Matcher {
  readonly exchanges: readonly Exchange[]
  readonly #fields: readonly VolatileField[]
  readonly #used = new Set<Exchange>()

  constructor(recording: Pick<Recording, 'messages'>, fields: readonly VolatileField[]) {
    this.exchanges = buildExchanges(recording)
    this.#fields = fields
  }

  /** The recorded exchange for `request` (method + normalized params), consuming it. */
  match(request: { method: string; params?: unknown }): MatchResult {
    const wanted = this.#comparable(request.method, request.params)
    const candidates = this.exchanges.filter((e) => e.method === request.method)
    const equal = candidates.filter((e) => diffValues(this.#comparable(e.method, e.request.message.params), wanted).length === 0)
    const fresh = equal.find((e) => !this.#used.has(e))
    const chosen = fresh ?? equal.at(-1)
    if (chosen !== undefined) {
      this.#used.add(chosen)
      return { ok: true, exchange: chosen }
    }
    return { ok: false, ...this.#closest(request.method, wanted) }
  }

  #closest(method: string, wanted: unknown): { closest?: Exchange; differences: Difference[] } {
    const sameMethod = this.exchanges.filter((e) => e.method === method)
    const pool = sameMethod.length > 0 ? sameMethod : this.exchanges
    let best: { closest: Exchange; differences: Difference[]; score: number } | undefined
    for (const exchange of pool) {
      const differences = diffValues(this.#comparable(exchange.method, exchange.request.message.params), wanted)
      const score = differences.length + (exchange.method === method ? 0 : 1000 - commonPrefix(exchange.method, method))
      if (best === undefined || score < best.score) best = { closest: exchange, differences, score }
    }
    return best === undefined ? { differences: [] } : { closest: best.closest, differences: best.differences }
  }

  #comparable(method: string, params: unknown): unknown {
    return dropEmpty(normalize({ params: params ?? {} }, method, this.#fields))
  }
}

// `"arguments": {}` and no `arguments` ask for the same thing; SDKs differ in which they send.
function dropEmpty(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropEmpty)
  if (typeof value !== 'object' || value === null) return value
  const out: Record<string, unknown> = {}
  for (const [key, child] of Object.entries(value)) {
    const cleaned = dropEmpty(child)
    if (typeof cleaned === 'object' && cleaned !== null && !Array.isArray(cleaned) && Object.keys(cleaned).length === 0) continue
    out[key] = cleaned
  }
  return out
}

function key(id: unknown): string {
  return JSON.stringify(id)
}

function commonPrefix(a: string, b: string): number {
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  return i
}
