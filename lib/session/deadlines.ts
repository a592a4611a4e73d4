/**
 * Deadlines of one bound on one timer. Every entry of a queue has the same bound, so entries come
 * due in the order they were added: the queue is that order, the timer is set for its oldest
 * entry, and an entry deleted leaves the queue without touching the timer (when the timer fires
 * it expires what is due and is set again for the next entry, if any). A timer per deadline costs
 * its allocation, its place in the event loop's timer heap and its clearing on every request; an
 * entry is the waiting object itself (a pending request, a body being read), so adding one
 * allocates nothing. The timer keeps the process alive only while some entry waits, as a timer of
 * its own would.
 */
export interface Deadline {
  /** Set by the queue when the entry is added: when it comes due (performance.now() time). */
  due: number
  /** Called once the deadline passed, unless the entry was deleted first. */
  expire(): void
}

export class DeadlineQueue {
  readonly #queue = new Set<Deadline>()
  #timer: ReturnType<typeof setTimeout> | undefined

  constructor(readonly ms: number) {}

  /** Entries waiting. */
  get size(): number {
    return this.#queue.size
  }

  /** Expire `entry` once `ms` have passed, unless it is deleted first. Adding it again restarts its deadline. */
  add(entry: Deadline): void {
    this.#queue.delete(entry)
    entry.due = performance.now() + this.ms
    this.#queue.add(entry)
    if (this.#timer === undefined) this.#timer = setTimeout(() => this.#fire(), this.ms)
    else if (this.#queue.size === 1) this.#timer.ref()
  }

  /** The entry no longer waits (its work ended); nothing happens for one not waiting. */
  delete(entry: Deadline): void {
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
