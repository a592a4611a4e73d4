/**
 * Upstream calls kept open across a 2026 downstream's input_required rounds (2026-07-28
 * basic/patterns/mrtr.mdx; the bridging is ours, the spec describes one hop): each upstream question ends the host's round, and its
 * retry (inputResponses + the sealed requestState naming this slot) resumes the SAME upstream call.
 * Questions asked together go out together under the upstream's keys, made unique within the call so
 * an earlier round's answer is never reused. Unclaimed slots expire.
 */
import { McpxError } from '../../errors/index.ts'
import type { JsonObject, InputRequest } from '../../server/index.ts'

export interface Question {
  readonly key: string
  readonly request: InputRequest
  answer(value: JsonObject): void
  fail(error: Error): void
}

export type ParkedEvent =
  | { kind: 'questions'; questions: Question[] }
  | { kind: 'done'; result: JsonObject }
  | { kind: 'error'; error: unknown }

class ParkedCall {
  readonly id = crypto.randomUUID()
  readonly abort = new AbortController()
  readonly #pending = new Map<string, Question>()
  readonly #usedKeys = new Set<string>()
  #finished?: ParkedEvent
  #wake?: () => void
  #asked = 0
  #expiry?: ReturnType<typeof setTimeout>

  constructor(
    private readonly ttlMs: number,
    private readonly onExpire: (call: ParkedCall) => void,
  ) {}

  /** Start the upstream call; `ask` is what it uses to put a question to the downstream host. */
  start(run: (ask: (request: InputRequest, key?: string) => Promise<JsonObject>, signal: AbortSignal) => Promise<JsonObject>): void {
    run((request, key) => this.#ask(request, key), this.abort.signal).then(
      (result) => this.#finish({ kind: 'done', result }),
      (error) => this.#finish({ kind: 'error', error }),
    )
  }

  /** The next thing the downstream round must deal with: the unanswered questions, or the end. */
  async next(): Promise<ParkedEvent> {
    this.#hold()
    for (;;) {
      if (this.#pending.size > 0) return { kind: 'questions', questions: [...this.#pending.values()] }
      if (this.#finished) return this.#finished
      await new Promise<void>((resolve) => (this.#wake = resolve))
    }
  }

  /** Keep the slot alive for one more round from now (called whenever a round ends waiting). */
  park(): void {
    clearTimeout(this.#expiry)
    this.#expiry = setTimeout(() => {
      this.abort.abort(new McpxError('TIMEOUT', 'the host did not answer the upstream question in time'))
      this.onExpire(this)
    }, this.ttlMs)
    this.#expiry.unref?.()
  }

  #hold(): void {
    clearTimeout(this.#expiry)
  }

  #ask(request: InputRequest, upstreamKey?: string): Promise<JsonObject> {
    return new Promise<JsonObject>((resolve, reject) => {
      const key = this.#uniqueKey(upstreamKey ?? `upstream-${++this.#asked}`)
      this.#pending.set(key, {
        key,
        request,
        answer: (value) => {
          this.#pending.delete(key)
          resolve(value)
        },
        fail: (error) => {
          this.#pending.delete(key)
          reject(error)
        },
      })
      this.#wake?.()
    })
  }

  #uniqueKey(wanted: string): string {
    let key = wanted
    for (let n = 2; this.#usedKeys.has(key); n++) key = `${wanted}-${n}`
    this.#usedKeys.add(key)
    return key
  }

  #finish(event: ParkedEvent): void {
    this.#finished = event
    this.#hold()
    this.#wake?.()
  }
}

export class ParkingLot {
  readonly #calls = new Map<string, ParkedCall>()

  constructor(private readonly ttlMs: number) {}

  create(): ParkedCall {
    const call = new ParkedCall(this.ttlMs, (expired) => this.#calls.delete(expired.id))
    this.#calls.set(call.id, call)
    return call
  }

  get(id: string): ParkedCall {
    const call = this.#calls.get(id)
    if (!call)
      throw new McpxError('TIMEOUT', 'the upstream call this input answers has ended or expired; call the tool again', { parked: id })
    return call
  }

  release(call: ParkedCall): void {
    this.#calls.delete(call.id)
  }

  close(): void {
    for (const call of this.#calls.values()) call.abort.abort(new McpxError('CANCELLED', 'gateway shutting down'))
    this.#calls.clear()
  }
}
