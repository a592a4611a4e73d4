/**
 * Deadlines of one bound on one timer. Every entry of a queue has the same bound, so entries come
 * due in the order they were added: the queue is that order, the timer is set for its oldest
 * entry, and an entry cancelled leaves the queue without touching the timer (when the timer fires
 * it expires what is due and is set again for the next entry, if any). A timer per deadline costs
 * its allocation, its place in the event loop's timer heap and its clearing on every request.
 * The timer keeps the process alive only while some entry waits, as a timer of its own would.
 */
export class DeadlineQueue {
  readonly #queue = new Set<Deadline>()
  #timer: ReturnType<typeof setTimeout> | undefined

  constructor(readonly ms: number) {}

  /** Entries waiting. */
  get size(): number {
    return this.#queue.size
  }

  /** Call `expire` once `ms` have passed, unless the returned cancel runs first. */
  add(expire: () => void): () => void {
    const entry: Deadline = { due: performance.now() + this.ms, expire }
    this.#queue.add(entry)
    if (this.#timer === undefined) this.#timer = setTimeout(() => this.#fire(), this.ms)
    else if (this.#queue.size === 1) this.#timer.ref()
    return () => this.#cancel(entry)
  }

  #cancel(entry: Deadline): void {
    if (this.#queue.delete(entry) && this.#queue.size === 0) this.#timer?.unref()
  }

  #fire(): void {
    this.#timer = undefined
    const now = performance.now()
    for (const entry of this.#queue) {
      if (entry.due > now) {
        this.#timer = setTimeout(() => this.#fire(), entry.due - now)
        return
      }
      this.#queue.delete(entry)
      entry.expire()
    }
  }
}

interface Deadline {
  readonly due: number
  readonly expire: () => void
}
