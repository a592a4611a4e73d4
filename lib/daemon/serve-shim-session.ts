/**
 * The host's session as the `mcpx serve` shim keeps it for a restart: the host's `initialize` and
 * `notifications/initialized`, and the state it set (`logging/setLevel`, `resources/subscribe`),
 * each kept only once the daemon accepted it. A new channel is given them again under ids of the
 * shim's own, their answers swallowed, and the host told its lists may have changed.
 */
import type { ShimChannel } from './serve-shim-channel.ts'

/** Methods whose accepted effect is session state a new channel must be given again. */
const STATE_METHODS = new Set(['initialize', 'resources/subscribe', 'resources/unsubscribe', 'logging/setLevel'])
const LIST_CHANGED = ['tools', 'prompts', 'resources'].map((kind) => `{"jsonrpc":"2.0","method":"notifications/${kind}/list_changed"}\n`)
const REPLAY_ID_PREFIX = 'mcpx-serve-replay-'

interface StateRequest {
  readonly line: Uint8Array
  readonly method: string
}

export class ShimSession {
  /** Requests that set session state, by id, until the daemon answered them. */
  readonly #pending = new Map<string, StateRequest>()
  #initializeLine: Uint8Array | undefined
  #initializedLine: Uint8Array | undefined
  #levelLine: Uint8Array | undefined
  readonly #subscriptions = new Map<string, Uint8Array>()
  /** The shim's own replayed requests, by id, until the daemon answered them. */
  readonly #replayWaiters = new Map<string, () => void>()
  #replayCount = 0

  /** A host request about to go to the daemon: one that sets session state waits for its answer. */
  noteRequest(id: string, method: string, line: Uint8Array): void {
    if (STATE_METHODS.has(method)) this.#pending.set(id, { line, method })
  }

  noteInitialized(line: Uint8Array): void {
    this.#initializedLine = line
  }

  /** True when the response with this id answers one of the shim's replays (the host must not see it). */
  takeReplayAnswer(id: string): boolean {
    const waiter = this.#replayWaiters.get(id)
    if (!waiter) return false
    this.#replayWaiters.delete(id)
    waiter()
    return true
  }

  /** The daemon answered a host request: a state request it accepted is kept; a refused one changes nothing. */
  settle(id: string, refused: boolean): void {
    const request = this.#pending.get(id)
    if (!request) return
    this.#pending.delete(id)
    if (!refused) this.#keep(request)
  }

  /** The channel is gone: what was pending never took effect, and no replay will be answered. */
  channelLost(): void {
    this.#pending.clear()
    for (const waiter of this.#replayWaiters.values()) waiter()
    this.#replayWaiters.clear()
  }

  /** Give a new channel the session the host had: its initialize, then the state it set; answers swallowed. */
  async replay(chan: ShimChannel, writeHost: (data: string) => void): Promise<void> {
    if (this.#initializeLine === undefined) return
    await this.#replayRequest(chan, this.#initializeLine)
    if (this.#initializedLine) chan.writer!.write(this.#initializedLine)
    const rest = [...(this.#levelLine ? [this.#levelLine] : []), ...this.#subscriptions.values()]
    await Promise.all(rest.map((line) => this.#replayRequest(chan, line)))
    for (const line of LIST_CHANGED) writeHost(line)
  }

  #keep(request: StateRequest): void {
    if (request.method === 'initialize') this.#initializeLine = request.line
    else if (request.method === 'logging/setLevel') this.#levelLine = request.line
    else {
      const uri = (JSON.parse(Buffer.from(request.line).toString('utf8')) as { params?: { uri?: unknown } }).params?.uri
      if (typeof uri !== 'string') return
      if (request.method === 'resources/subscribe') this.#subscriptions.set(uri, request.line)
      else this.#subscriptions.delete(uri)
    }
  }

  #replayRequest(chan: ShimChannel, line: Uint8Array): Promise<void> {
    const message = JSON.parse(Buffer.from(line).toString('utf8')) as Record<string, unknown>
    const id = JSON.stringify(`${REPLAY_ID_PREFIX}${++this.#replayCount}`)
    const done = new Promise<void>((resolve) => this.#replayWaiters.set(id, resolve))
    chan.writer!.write(`${JSON.stringify({ ...message, id: JSON.parse(id) })}\n`)
    return done
  }
}
