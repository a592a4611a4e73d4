/**
 * The standalone GET stream of a legacy Streamable HTTP session (2025-11-25 basic/transports.mdx
 * "Listening for Messages from the Server"): requests and notifications the server sends outside
 * any POST arrive only there. It belongs to one session: after a new session started, the stream is
 * opened again with the new id; and a stream that finds its session refused while nothing was asked
 * tells the client, which starts the new one (client/session-renewal.ts).
 */
import { McpxError } from '../errors/index.ts'
import { HTTP_STATUS } from '../wire/index.ts'

/** What the stream needs of its transport (http-client.ts). */
export interface ListenStreamHost {
  readonly url: string
  readonly lifetime: AbortSignal
  isOpen(): boolean
  /** GET the stream under the current session; 405 when the server does not offer it. */
  getStream(signal: AbortSignal): Promise<Response | typeof HTTP_STATUS.METHOD_NOT_ALLOWED>
  /** Read it (and its resumptions) until it ends for good. */
  read(signal: AbortSignal, first: Response): Promise<void>
  /** A background task whose failure is reported. */
  track(task: Promise<void>): void
}

export interface ListenStream {
  open(options?: { signal?: AbortSignal }): Promise<boolean>
  renew(): void
  onSessionRefused(listener: () => void): void
}

export function createListenStream(host: ListenStreamHost): ListenStream {
  // What the stream was asked to be opened with (kept to open it again for a new session), the
  // controller of the one open now, and who hears of a refused session.
  let wanted: { signal?: AbortSignal } | undefined
  let current: AbortController | undefined
  let refused: (() => void) | undefined

  const stream: ListenStream = {
    async open(options) {
      if (!host.isOpen()) throw new McpxError('CONNECT', `HTTP transport to ${host.url} is not open`, { url: host.url })
      current?.abort()
      const own = (current = new AbortController())
      wanted = options ?? {}
      const signal = AbortSignal.any([own.signal, host.lifetime, ...(options?.signal ? [options.signal] : [])])
      const response = await host.getStream(signal)
      if (response === HTTP_STATUS.METHOD_NOT_ALLOWED) {
        wanted = undefined
        return false
      }
      host.track(
        host.read(signal, response).catch((error: unknown) => {
          if (signal.aborted || !host.isOpen()) return
          // Nothing was being asked when the stream found the session gone: the client starts a new one now.
          if (refused !== undefined && error instanceof McpxError && error.data?.sessionExpired === true) return refused()
          throw error
        }),
      )
      return true
    },
    renew() {
      // The old stream belongs to the lost session: the server sends the new one's messages only on
      // a stream opened with the new id.
      if (wanted === undefined || !host.isOpen() || wanted.signal?.aborted) return
      host.track(
        stream.open(wanted).then(
          () => {},
          (error: unknown) => (host.isOpen() ? Promise.reject(error) : undefined),
        ),
      )
    },
    onSessionRefused(listener) {
      refused = listener
    },
  }
  return stream
}
