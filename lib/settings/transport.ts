/** Tunables of the client-side HTTP transports (lib/transport) beyond the shared protocol table. */
import { defineSettings } from './define.ts'

export const TRANSPORT_SETTINGS = defineSettings({
  httpCloseTimeoutMs: {
    default: 2_000,
    env: 'MCPX_HTTP_CLOSE_TIMEOUT_MS',
    doc: 'Bound on the DELETE that ends a legacy HTTP session when a client closes',
  },
  sseMaxReconnects: {
    default: 5,
    env: 'MCPX_SSE_MAX_RECONNECTS',
    doc: 'Most consecutive SSE reconnects (GET + Last-Event-ID) that bring no new event; a server not there (restarting) is tried again after sseRetryMs, then twice as long each time',
  },
  httpBodyReadBytes: {
    default: 64 * 1024,
    env: 'MCPX_HTTP_BODY_READ_BYTES',
    doc: 'Most of a non-stream HTTP answer body read (an error, or a 2024-11-05 POST answer) before it is cut off',
  },
  sseEndpointTimeoutMs: {
    default: 10_000,
    env: 'MCPX_SSE_ENDPOINT_TIMEOUT_MS',
    doc: 'HTTP+SSE (2024-11-05): wait this long for the endpoint event after connecting',
  },
})
