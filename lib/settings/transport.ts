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
  httpBusyRetries: {
    default: 2,
    env: 'MCPX_HTTP_BUSY_RETRIES',
    doc: 'Times an upstream HTTP request answered 429 or 503 (the server did not take it) is sent again, after the Retry-After it names',
  },
  httpBusyRetryMaxWaitMs: {
    default: 10_000,
    env: 'MCPX_HTTP_BUSY_RETRY_MAX_WAIT_MS',
    doc: 'Longest Retry-After waited out before sending a 429/503-refused request again; a longer one fails the request at once',
  },
  httpBusyRetryDelayMs: {
    default: 1_000,
    env: 'MCPX_HTTP_BUSY_RETRY_DELAY_MS',
    doc: 'Wait before sending again a request refused 429/503 without a Retry-After, twice as long each time',
  },
  httpMaxRedirects: {
    default: 5,
    env: 'MCPX_HTTP_MAX_REDIRECTS',
    doc: 'Most HTTP redirects an upstream request follows (a POST stays a POST through 301 and 302)',
  },
  sseEndpointTimeoutMs: {
    default: 10_000,
    env: 'MCPX_SSE_ENDPOINT_TIMEOUT_MS',
    doc: 'HTTP+SSE (2024-11-05): wait this long for the endpoint event after connecting',
  },
})
