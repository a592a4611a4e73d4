/** The transport room: the Transport contract and its ends (stdio, Streamable HTTP, HTTP+SSE). */
export type { AuthProvider, Transport, TransportHandlers, TransportKind, SendOptions } from './types.ts'
