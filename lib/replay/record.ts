/**
 * Ways to produce a recording. `recordingTransports` wraps the client's transport factory so every
 * transport a connect() opens (probe, fallback) writes into one recording. `recordProxy` is
 * `mcpx record`: mcpx serves a host on stdio and relays each message unchanged to the upstream,
 * recording the upstream side; over HTTP it adds the request headers the revision needs
 * (MCP-Protocol-Version; 2026: Mcp-Method, Mcp-Name, Mcp-Param-* from the tools it has seen listed).
 */
import { type TransportFactory, defaultTransports } from '../client/index.ts'
import type { McpxError } from '../errors/index.ts'
import { type Transport, createHttpTransport } from '../transport/index.ts'
import { recordTransport } from './decorator.ts'
import { HeaderMirror } from './header-mirror.ts'
import { recordingFetch } from './http-tap.ts'
import type { Recorder } from './writer.ts'

/**
 * A factory whose transports all record into `recorder` (close the recorder yourself). With the
 * default factory, Streamable HTTP is recorded at the fetch level (recordingFetch: response status,
 * SSE ids and retry, bare 202s and GETs); other transports through the decorator.
 */
export function recordingTransports(base: TransportFactory, recorder: Recorder): TransportFactory {
  return {
    stdio: (target, settings) => recordTransport(base.stdio(target, settings), recorder, 'client', { closeRecorder: false }),
    http(kind, target, settings, auth) {
      if (kind === 'streamable-http' && base === defaultTransports) {
        return createHttpTransport({ url: target.url, headers: target.headers, auth, fetch: recordingFetch(recorder) }, settings)
      }
      return recordTransport(base.http(kind, target, settings, auth), recorder, 'client', { closeRecorder: false })
    },
  }
}

export interface RecordProxyOptions {
  /** The host's side: a stdio server transport. */
  readonly downstream: Transport
  /** The recorded server: already wrapped with recordTransport (role client). */
  readonly upstream: Transport
}

/**
 * Relay messages both ways until either side closes; resolves then (after closing the other side).
 * The host ending its stdin closes the server's, and the relay ends only once the server is done:
 * what it answers meanwhile (requests the host sent just before EOF) is relayed and recorded.
 * Rejects only if a transport fails to start.
 */
export async function recordProxy(options: RecordProxyOptions): Promise<McpxError | undefined> {
  const { downstream, upstream } = options
  const http = upstream.kind !== 'stdio'
  const mirror = new HeaderMirror()
  let finished!: (reason?: McpxError) => void
  const done = new Promise<McpxError | undefined>((resolve) => (finished = resolve))

  await upstream.start({
    onMessage(message) {
      mirror.received(message)
      void downstream.send(message).catch(() => {})
    },
    onClose(reason) {
      void downstream.close()
      finished(reason)
    },
  })
  await downstream.start({
    onMessage(message) {
      mirror.sent(message)
      const headers = http ? mirror.headersFor(message) : undefined
      void upstream.send(message, headers === undefined ? undefined : { headers }).catch(() => {})
    },
    onClose() {
      // upstream's onClose (its process exited, its pipes drained) ends the relay; close() always gets there.
      void upstream.close().finally(() => finished())
    },
  })
  return done
}
