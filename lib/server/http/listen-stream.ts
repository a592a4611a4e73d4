/**
 * A legacy session's GET: resume a stream by Last-Event-ID (from this replica's buffer, or the
 * shared copy when the stream was another replica's), or open the session's one standalone stream,
 * where server→client traffic outside any request goes (2025-11-25 basic/transports.mdx
 * "Listening for Messages from the Server", "Resumability and Redelivery"). A new standalone
 * stream replaces the previous one.
 */
import { hasFeature, HEADER } from '../../wire/index.ts'
import type { HandlerContext, LegacySession } from './handler-context.ts'
import { openSseStream, replayClosedStream, resumeSseStream } from './sse-stream.ts'

export async function openListenStream(
  ctx: HandlerContext,
  request: Request,
  sessionId: string,
  session: LegacySession,
  lastEventId: string | undefined,
): Promise<Response> {
  const { settings, options } = ctx
  const headers = { [HEADER.SESSION_ID]: sessionId }
  if (lastEventId !== undefined) {
    const resumed = resumeSseStream(session.events, lastEventId, {
      headers,
      signal: request.signal,
      sseKeepAliveMs: settings.sseKeepAliveMs,
    })
    if (resumed) return resumed.response
    // A stream of another replica (this one rebuilt the session): replay its events from the shared copy.
    const missed = session.adopted && options.sharedEvents ? await options.sharedEvents.after(sessionId, lastEventId) : []
    if (missed.length > 0) return replayClosedStream(missed, { headers, signal: request.signal, sseKeepAliveMs: settings.sseKeepAliveMs })
  }
  session.standalone?.end()
  const stream = openSseStream({
    sseKeepAliveMs: settings.sseKeepAliveMs,
    retryMs: settings.sseRetryMs,
    store: hasFeature(session.revision, 'ssePolling') ? session.events : undefined,
    headers,
    signal: request.signal,
  })
  session.standalone = stream
  session.connection.unsolicited = { send: (m) => void (stream.ended ? undefined : stream.send(m)) }
  return stream.response
}
