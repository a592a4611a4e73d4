/**
 * A Transport decorator that records: everything sent and received through the wrapped transport
 * goes to a Recorder, in the order it crossed the wrapper, then passes through unchanged. Works on
 * either end (`role: 'client'` wraps a transport mcpx uses to call a server; `'server'` wraps one
 * a client calls mcpx through). Over HTTP the per-message headers given to send() are kept.
 */
import type { JsonRpcMessage } from '../wire/index.ts'
import type { SendOptions, Transport, TransportHandlers } from '../transport/index.ts'
import type { Direction } from './format.ts'
import type { Recorder } from './writer.ts'

export interface RecordingTransport extends Transport {
  readonly inner: Transport
  readonly recorder: Recorder
}

export interface RecordTransportOptions {
  /**
   * Close the recording when this transport closes (default true). False when one recording spans
   * several transports (a client probing one era, then falling back to the other).
   */
  readonly closeRecorder?: boolean
}

/** Wrap `inner` so all its traffic is recorded; closing it writes the recording's close line. */
export function recordTransport(
  inner: Transport,
  recorder: Recorder,
  role: 'client' | 'server',
  options: RecordTransportOptions = {},
): RecordingTransport {
  const outgoing: Direction = role === 'client' ? 'to-server' : 'to-client'
  const incoming: Direction = role === 'client' ? 'to-client' : 'to-server'
  const http = inner.kind !== 'stdio'
  return {
    kind: inner.kind,
    inner,
    recorder,
    start(handlers: TransportHandlers) {
      return inner.start({
        onMessage(message: JsonRpcMessage) {
          recorder.message(incoming, message)
          handlers.onMessage(message)
        },
        onClose(reason) {
          if (options.closeRecorder !== false) recorder.close(reason?.message)
          handlers.onClose(reason)
        },
        ...(handlers.onError !== undefined && { onError: (error) => handlers.onError?.(error) }),
      })
    },
    send(message: JsonRpcMessage, options?: SendOptions) {
      const headers = options?.headers
      recorder.message(
        outgoing,
        message,
        http && role === 'client' ? { method: 'POST', ...(headers !== undefined && { headers }) } : undefined,
      )
      return inner.send(message, options)
    },
    close() {
      return inner.close()
    },
  }
}
