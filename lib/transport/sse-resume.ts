/**
 * A Streamable HTTP client's SSE stream read to its end and resumed (2025-11-25 basic/transports.mdx
 * "Resumability and Redelivery"): when the server closes it while the stream is still owed something,
 * the client waits the server's `retry` and GETs it again from the last event id it saw. A stream
 * that keeps ending without a new event, or whose server cannot be reached again, is given up
 * after `sseMaxReconnects`.
 */
import { McpxError } from '../errors/index.ts'
import type { Settings } from '../settings/index.ts'
import { HTTP_STATUS } from '../wire/index.ts'
import { abortableSleep } from './http-fetch.ts'
import { type SseEvent, readEventStream } from './sse-parser.ts'

export interface ResumingStream {
  readonly url: string
  /** Names the stream in errors: `stream of tools/call (id 3)`, `standalone GET stream`. */
  readonly describe: string
  readonly signal: AbortSignal
  readonly settings: Pick<Settings, 'maxFrameBytes' | 'sseMaxReconnects' | 'sseRetryMs'>
  onEvent(event: SseEvent): void
  /** Whether the stream is still owed something once it ended (it may throw why it cannot be resumed). */
  more(lastEventId: string): boolean
  report(error: McpxError): void
  /** The transport was closed: nothing is resumed. */
  isClosed(): boolean
  /** GET the stream again from `lastEventId`; 405 when the server does not offer GET. */
  reopen(lastEventId: string | undefined): Promise<Response | typeof HTTP_STATUS.METHOD_NOT_ALLOWED>
}

export async function readResumingStream(first: Response, stream: ResumingStream): Promise<void> {
  const { settings, signal, describe, url } = stream
  let body: ReadableStream<Uint8Array> | null = first.body
  if (!body) return
  let lastEventId = ''
  let retryMs: number | undefined
  let idleReconnects = 0
  /** Why the last reconnect found no server (a restart under way), kept for the give-up message. */
  let unreachable: McpxError | undefined
  for (;;) {
    let sawEvent = false
    if (body) {
      const end = await readEventStream(body, {
        maxEventChars: settings.maxFrameBytes,
        onEvent(event) {
          sawEvent = true
          stream.onEvent(event)
        },
        onRetry: (ms) => (retryMs = ms),
        onOversize: (chars) =>
          stream.report(
            new McpxError(
              'PROTOCOL',
              `${describe}: SSE event of ${chars} characters exceeds maxFrameBytes (${settings.maxFrameBytes}); skipped`,
              { chars, maxFrameBytes: settings.maxFrameBytes },
            ),
          ),
      })
      if (end.lastEventId !== '') lastEventId = end.lastEventId
    }
    if (signal.aborted || stream.isClosed() || !stream.more(lastEventId)) return
    idleReconnects = sawEvent ? 1 : idleReconnects + 1
    if (idleReconnects > settings.sseMaxReconnects) {
      const last = unreachable === undefined ? '' : ` (the last: ${unreachable.message})`
      throw new McpxError(
        'CONNECT',
        `${describe}: gave up after ${settings.sseMaxReconnects} reconnects without a new event${last}`,
        { url, lastEventId },
        { cause: unreachable },
      )
    }
    // 2025-11-25 basic/transports.mdx "Sending Messages to the Server": the client MUST respect `retry`
    // before reconnecting. A server not there (restarting) is given at least sseRetryMs, twice as long each time.
    const waitMs =
      unreachable === undefined ? (retryMs ?? settings.sseRetryMs) : Math.max(retryMs ?? 0, settings.sseRetryMs) * 2 ** (idleReconnects - 2)
    await abortableSleep(waitMs, signal)
    if (signal.aborted || stream.isClosed()) return
    let next: Response | typeof HTTP_STATUS.METHOD_NOT_ALLOWED
    try {
      next = await stream.reopen(lastEventId || undefined)
    } catch (error) {
      if (!notThereYet(error)) throw error
      unreachable = error
      body = null
      continue
    }
    if (next === HTTP_STATUS.METHOD_NOT_ALLOWED)
      throw new McpxError('CONNECT', `${describe}: the server closed the stream and does not offer GET to resume it (405)`, {
        url,
        httpStatus: HTTP_STATUS.METHOD_NOT_ALLOWED,
      })
    if (!next.body) return
    body = next.body
    unreachable = undefined
  }
}

/** A server that is not there to answer (no connection, or a proxy saying so): try again later. */
function notThereYet(error: unknown): error is McpxError {
  if (!(error instanceof McpxError) || error.code !== 'CONNECT') return false
  const status = error.data?.httpStatus
  return status === undefined || PROXY_UNAVAILABLE.has(status as number)
}

/** A gateway or proxy in front of a server that is down or restarting. */
const PROXY_UNAVAILABLE = new Set<number>([HTTP_STATUS.BAD_GATEWAY, HTTP_STATUS.SERVICE_UNAVAILABLE, HTTP_STATUS.GATEWAY_TIMEOUT])
