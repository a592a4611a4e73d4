/**
 * Legacy Streamable HTTP sessions (basic/transports.mdx "Session Management"), generic over what the
 * caller keeps per session. Ids are minted only in the response carrying a successful InitializeResult (never
 * for a refused handshake, never for a 2026 request, which has no sessions); a
 * deleted, idle-expired or evicted id is unknown, so the caller answers 404 and the client
 * re-initializes (a terminated session's id MUST get 404). The Map stays in last-use order: idle expiry and the LRU cap walk its front.
 */
import { randomToken } from '../random.ts'

export type SessionEndReason = 'deleted' | 'idle' | 'evicted' | 'closed'

export interface SessionStoreOptions<T> {
  /** settings.sessionIdleMs: a session unused this long expires. 0 = never. */
  readonly sessionIdleMs: number
  /** settings.maxSessions: beyond it the least recently used session is dropped. */
  readonly maxSessions: number
  /** Called once when a session leaves the store for any reason (close its streams here). */
  readonly onEnd?: (id: string, payload: T, reason: SessionEndReason) => void
  /** Clock in ms; injectable so tests can age sessions without waiting. */
  readonly now?: () => number
  /** Mints ids (default newSessionId); replicas seal theirs so any replica can tell the owner (session-id.ts). */
  readonly newId?: (payload: T) => string
}

interface Entry<T> {
  payload: T
  lastUsedMs: number
}

const SESSION_ID_BYTES = 24
// 2025-11-25 basic/transports.mdx: "The session ID MUST only contain visible ASCII characters (0x21 to 0x7E)".
const VISIBLE_ASCII = /^[\x21-\x7e]+$/
const MAX_SESSION_ID_LENGTH = 256

/** True when `value` is a syntactically acceptable session id (visible ASCII, bounded length). */
export function isValidSessionId(value: string): boolean {
  return value.length <= MAX_SESSION_ID_LENGTH && VISIBLE_ASCII.test(value)
}

/** A fresh cryptographically random id: base64url of 24 bytes, all visible ASCII. */
export function newSessionId(): string {
  return randomToken(SESSION_ID_BYTES)
}

export class SessionStore<T> {
  readonly #entries = new Map<string, Entry<T>>()
  /** Ids ended here, oldest first, at most maxSessions of them (a sealed id must not be adopted back). */
  readonly #ended = new Set<string>()
  readonly #options: SessionStoreOptions<T>
  readonly #now: () => number
  #timer: ReturnType<typeof setTimeout> | undefined
  #closed = false
  /** The id at the end of the last-use order, if known: a host's requests name the same session one after another. */
  #newest: string | undefined

  constructor(options: SessionStoreOptions<T>) {
    this.#options = options
    this.#now = options.now ?? Date.now
  }

  get size(): number {
    return this.#entries.size
  }

  /** Register a session after a successful initialize; returns its new id. */
  create(payload: T): string {
    const mint = this.#options.newId ?? newSessionId
    let id = mint(payload)
    while (this.#entries.has(id)) id = mint(payload)
    this.adopt(id, payload)
    return id
  }

  /**
   * Register a session under an id minted elsewhere (a replica rebuilding a sealed session whose
   * owner is gone, session-id.ts). Refused for an id this store ended: it stays 404.
   */
  adopt(id: string, payload: T): boolean {
    if (this.#closed) throw new Error('SessionStore is closed')
    if (this.#ended.has(id) || this.#entries.has(id)) return false
    this.#expireIdle()
    this.#entries.set(id, { payload, lastUsedMs: this.#now() })
    this.#newest = id
    while (this.#entries.size > Math.max(1, this.#options.maxSessions)) {
      const oldest = this.#entries.keys().next().value as string
      this.#end(oldest, 'evicted')
    }
    this.#arm()
    return true
  }

  /** True when this store ended the id (DELETE, idle expiry, eviction): it must not come back. */
  ended(id: string): boolean {
    return this.#ended.has(id)
  }

  /** The session's payload, marking it used now; undefined when unknown, deleted or expired. */
  get(id: string): T | undefined {
    const entry = this.#live(id)
    if (entry === undefined) return undefined
    entry.lastUsedMs = this.#now()
    // Already last in use order: no delete and set again.
    if (id !== this.#newest) {
      this.#entries.delete(id)
      this.#entries.set(id, entry)
      this.#newest = id
    }
    return entry.payload
  }

  /** The payload without marking it used. */
  peek(id: string): T | undefined {
    return this.#live(id)?.payload
  }

  has(id: string): boolean {
    return this.#live(id) !== undefined
  }

  /** End a session (HTTP DELETE); later requests with the id get 404. False when it was unknown. */
  delete(id: string): boolean {
    if (this.#live(id) === undefined) return false
    this.#end(id, 'deleted')
    return true
  }

  ids(): string[] {
    this.#expireIdle()
    return [...this.#entries.keys()]
  }

  /** End every session and stop the expiry timer. */
  close(): void {
    this.#closed = true
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#timer = undefined
    for (const id of [...this.#entries.keys()]) this.#end(id, 'closed')
  }

  #live(id: string): Entry<T> | undefined {
    const entry = this.#entries.get(id)
    if (entry === undefined) return undefined
    if (this.#isIdle(entry)) {
      this.#end(id, 'idle')
      return undefined
    }
    return entry
  }

  #isIdle(entry: Entry<T>): boolean {
    return this.#options.sessionIdleMs > 0 && this.#now() - entry.lastUsedMs >= this.#options.sessionIdleMs
  }

  #expireIdle(): void {
    for (const [id, entry] of this.#entries) {
      if (!this.#isIdle(entry)) break // last-use order: everything after is younger
      this.#end(id, 'idle')
    }
  }

  #end(id: string, reason: SessionEndReason): void {
    const entry = this.#entries.get(id)
    if (entry === undefined) return
    this.#entries.delete(id)
    if (id === this.#newest) this.#newest = undefined
    if (reason !== 'closed') {
      this.#ended.add(id)
      if (this.#ended.size > Math.max(1, this.#options.maxSessions)) this.#ended.delete(this.#ended.values().next().value as string)
    }
    this.#options.onEnd?.(id, entry.payload, reason)
  }

  // One timer for the whole store, due when the least recently used session would expire; it
  // frees memory and ends streams of sessions nobody asks about again. Unref'd: it never keeps
  // the process alive.
  #arm(): void {
    if (this.#timer !== undefined || this.#closed || this.#options.sessionIdleMs <= 0) return
    const first = this.#entries.values().next().value as Entry<T> | undefined
    if (first === undefined) return
    const dueMs = Math.max(0, first.lastUsedMs + this.#options.sessionIdleMs - this.#now())
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      this.#expireIdle()
      this.#arm()
    }, dueMs)
    ;(this.#timer as { unref?: () => void }).unref?.()
  }
}
