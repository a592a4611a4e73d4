/** The transport room: the Transport contract and its ends (stdio, Streamable HTTP, HTTP+SSE). */
export type { AuthProvider, Transport, TransportHandlers, TransportKind, SendOptions } from './types.ts'
export { createLineFramer, encodeFrame, type LineFramer, type LineFramerOptions, type OversizeFrame } from './line-framer.ts'
export { decodeMessages, type Decoded } from './decode-messages.ts'
export { createStdioTransport, type StdioServerParams, type StdioTransport } from './stdio-client.ts'
export { createSseParser, type SseEvent, type SseParser, type SseParserOptions } from './sse-parser.ts'
