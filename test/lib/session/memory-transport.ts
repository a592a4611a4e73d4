/**
 * An in-memory Transport pair for engine tests: what one end sends, the other receives (after a
 * microtask, like a real pipe). Records every send with its options so tests can see headers and
 * abort signals; `sever(reason)` closes both ends as an unexpected close would.
 */
import type { McpxError } from '../../../lib/errors/index.ts'
import type { SendOptions, Transport, TransportHandlers, TransportKind } from '../../../lib/transport/index.ts'
import type { JsonRpcMessage } from '../../../lib/wire/index.ts'

export interface MemoryEnd extends Transport {
  readonly sent: { message: JsonRpcMessage; options?: SendOptions }[]
  sever(reason?: McpxError): void
}

export function memoryPair(kind: TransportKind = 'stdio'): [MemoryEnd, MemoryEnd] {
  const a = makeEnd(kind)
  const b = makeEnd(kind)
  a.peerEnd = b
  b.peerEnd = a
  return [a, b]
}

interface End extends MemoryEnd {
  peerEnd?: End
  deliver(message: JsonRpcMessage): void
  finish(reason?: McpxError): void
}

function makeEnd(kind: TransportKind): End {
  let handlers: TransportHandlers | undefined
  let closed = false
  const end: End = {
    kind,
    sent: [],
    peerEnd: undefined,
    async start(h: TransportHandlers) {
      handlers = h
    },
    async send(message: JsonRpcMessage, options?: SendOptions) {
      if (closed) throw new Error('closed')
      end.sent.push({ message, options })
      const target = end.peerEnd
      queueMicrotask(() => target?.deliver(structuredClone(message)))
    },
    deliver(message: JsonRpcMessage) {
      if (!closed) handlers?.onMessage(message)
    },
    finish(reason?: McpxError) {
      if (closed) return
      closed = true
      handlers?.onClose(reason)
    },
    async close() {
      end.finish()
      end.peerEnd?.finish()
    },
    sever(reason?: McpxError) {
      end.finish(reason)
      end.peerEnd?.finish(reason)
    },
  }
  return end
}
