/**
 * The host's requests the `mcpx serve` shim has sent and the daemon not yet answered, and the
 * JSON-RPC errors the host gets for them when the channel is lost: none is re-sent (a side effect
 * must not happen twice), and one that could not be sent at all says so.
 */
import { RPC } from '../errors/index.ts'

export class InFlight {
  readonly #ids = new Set<string>()

  add(id: string): void {
    this.#ids.add(id)
  }

  settle(id: string): void {
    this.#ids.delete(id)
  }

  /** The channel broke: each request in flight gets an error saying it may or may not have run. */
  failAll(writeHost: (line: string) => void): void {
    for (const id of this.#ids) {
      writeHost(
        errorLine(
          id,
          'the mcpx daemon went away while this request was in flight: it may or may not have run, and mcpx did not send it again',
          { inFlight: true },
        ),
      )
    }
    this.#ids.clear()
  }
}

/** The error for a request the shim could not send, the daemon being unreachable. */
export function unsentLine(id: string, reason: string): string {
  return errorLine(id, `mcpx daemon unreachable (the request was not sent): ${reason}`, { sent: false })
}

function errorLine(id: string, message: string, data: Record<string, unknown>): string {
  return `{"jsonrpc":"2.0","id":${id},"error":${JSON.stringify({ code: RPC.INTERNAL_ERROR, message, data: { mcpxCode: 'CONNECT', ...data } })}}\n`
}
