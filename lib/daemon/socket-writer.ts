/**
 * Writes to a Bun socket, which takes what fits and returns the count (it keeps no buffer of its
 * own, measured on Bun 1.4.5): the rest waits here, in order, until the socket's `drain`.
 */
import type { Socket } from 'bun'

export class SocketWriter {
  /** Set once the socket is gone: later writes are dropped. */
  closed = false
  #queue: Uint8Array[] = []
  #ending = false

  constructor(private readonly socket: Socket<any>) {}

  write(data: string | Uint8Array): void {
    if (this.closed || this.#ending) return
    if (this.#queue.length > 0) {
      this.#queue.push(typeof data === 'string' ? Buffer.from(data) : data)
      return
    }
    const written = Math.max(0, this.socket.write(data))
    // Outside a socket handler (an answer that came from an upstream's stdout) Bun holds written
    // bytes until a later turn of its loop — measured as ~5 ms per call — so push them out now.
    this.socket.flush()
    const total = typeof data === 'string' ? Buffer.byteLength(data) : data.length
    if (written < total) this.#queue.push((typeof data === 'string' ? Buffer.from(data) : data).subarray(written))
  }

  /** The socket's `drain` handler. */
  flush(): void {
    while (this.#queue.length > 0 && !this.closed) {
      const head = this.#queue[0]!
      const written = Math.max(0, this.socket.write(head))
      if (written < head.length) {
        this.#queue[0] = head.subarray(written)
        return
      }
      this.#queue.shift()
    }
    if (this.#ending && this.#queue.length === 0 && !this.closed) this.#finish()
  }

  /** Send what is queued, then end our side (`halfClose`: shutdown(2) SHUT_WR, still reading what the peer sends). */
  end(halfClose = false): void {
    if (this.#ending) return
    this.#ending = true
    this.#halfClose = halfClose
    if (this.#queue.length === 0 && !this.closed) this.#finish()
  }

  #halfClose = false

  #finish(): void {
    if (this.#halfClose) this.socket.shutdown()
    else this.socket.end()
  }
}
