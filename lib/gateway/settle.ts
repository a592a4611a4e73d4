/**
 * `settle(start, done)`: what `try { return await start() } finally { done() }` says, as one
 * reaction on `start()`'s promise instead of an async frame around it. Every upstream call passes
 * through two of these (Broker.run, brokeredCall), so the hot path keeps the short form and the
 * threading lives here once. A synchronous throw from `start` is a rejection like any other, and
 * `done` runs exactly once, before the caller sees the outcome. `failure`, when given, turns the
 * error into the one the caller sees (a `.catch` after it would cost a reaction of its own).
 */
export function settle<T>(start: () => Promise<T>, done: () => void, failure?: (error: unknown) => unknown): Promise<T> {
  let running: Promise<T>
  try {
    running = start()
  } catch (error) {
    done()
    return Promise.reject(failure ? failure(error) : error)
  }
  return running.then(
    (value) => {
      done()
      return value
    },
    (error: unknown) => {
      done()
      throw failure ? failure(error) : error
    },
  )
}
