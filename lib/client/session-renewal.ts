/**
 * A legacy Streamable HTTP session the server refused as expired is replaced by a new one
 * (2025-11-25 basic/transports.mdx "Session Management": the client MUST start a new session with
 * a fresh initialize). Once, shared by every request that saw it refused and by the standalone GET
 * stream that found it so while nothing was asked; then that stream follows the new session, and
 * whoever owns the client hears of it: the server may have restarted with other lists, and it
 * holds nothing the old session set up. A new session that cannot be set up ends the connection.
 */
import { log } from '../log/index.ts'
import type { Peer } from '../session/index.ts'
import { sessionControl } from './open-transport.ts'

export class SessionRenewal {
  #generation = 0
  #pending?: Promise<void>
  readonly #listeners = new Set<() => void>()

  constructor(
    private readonly peer: Peer,
    /** The handshake of the new session (the session id itself is the transport's). */
    private readonly initialize: () => Promise<void>,
  ) {
    sessionControl(peer.transport)?.onSessionRefused?.(() => {
      this.renew(this.#generation).catch((error: unknown) => log.debug(`new session after a refused one failed: ${error}`))
    })
  }

  /**
   * The new session's handshake while it runs, settled either way (renew()'s caller hears how): a
   * request sent meanwhile would carry no session id (the transport dropped the old one) and be
   * refused as made before initialize, so it waits for this and goes as the connection then stands.
   */
  get handshake(): Promise<void> | undefined {
    return this.#pending?.catch(() => undefined)
  }

  /** Read before a request; renew() with it replaces only the session that request was sent in. */
  get generation(): number {
    return this.#generation
  }

  renew(generation: number): Promise<void> {
    if (generation !== this.#generation) return Promise.resolve()
    this.#pending ??= (async () => {
      const session = sessionControl(this.peer.transport)
      session?.resetSession()
      try {
        await this.initialize()
      } catch (error) {
        // No session is left to send in: the connection is lost, and its owner connects anew
        // (upstream.ts restarts it) instead of sending every later request without one.
        await this.peer.close()
        throw error
      }
      this.#generation++
      session?.renewListenStream?.()
      for (const listener of this.#listeners) listener()
    })().finally(() => {
      this.#pending = undefined
    })
    return this.#pending
  }

  /** Call `listener` after each replacement; returns what stops that. */
  onRenewed(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => void this.#listeners.delete(listener)
  }
}
