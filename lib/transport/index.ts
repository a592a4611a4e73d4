/** The transport room: the Transport contract and its ends (stdio, Streamable HTTP, HTTP+SSE). */
export type { AuthProvider, Transport, TransportHandlers, TransportKind, SendOptions } from './contract.ts'
export { SENT } from './contract.ts'
export { createLineFramer, encodeFrame, type LineFramer, type LineFramerOptions, type OversizeFrame } from './line-framer.ts'
export { bodyLine, decodeMessages, type Decoded } from './decode-messages.ts'
export { createStdioTransport, type StdioServerParams, type StdioTransport } from './stdio-client.ts'
export {
  createSseParser,
  readEventStream,
  type EventStreamEnd,
  type SseEvent,
  type SseParser,
  type SseParserOptions,
} from './sse-parser.ts'
export { createHttpTransport, type HttpTransport, type HttpTransportParams } from './http-client.ts'
export { createStdioServerTransport, type ByteSource, type StdioServerOptions, type StdioServerTransport } from './stdio-server.ts'
export { createSseTransport, type SseTransport, type SseTransportParams } from './sse-client.ts'
export { acceptsConnections } from './tcp-probe.ts'
