/**
 * The HTTP ends of lib/transport (Streamable HTTP, both eras, and the 2024-11-05 HTTP+SSE end),
 * require()d by open-transport.ts with the first HTTP upstream: a daemon pooling only stdio servers
 * never loads their 23 KB of JavaScript (README "Start-up and memory"). require() of an ES module is
 * a chunk of its own that loads at the call (bun build --splitting), and importing the door
 * statically here keeps the transports out of the chunks every client loads.
 */
export { createHttpTransport, createSseTransport } from '../transport/index.ts'
