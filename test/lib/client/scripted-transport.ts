/**
 * A scripted Transport for client engine tests: every message the client sends is handed to
 * `respond`, which may answer with messages (delivered asynchronously, like a server's reply) or
 * throw (the send rejects, as an HTTP transport does on a non-JSON-RPC error status).
 * Records what was sent, with headers, so tests can assert on the wire.
 */
import type { SendOptions, Transport, TransportHandlers, TransportKind } from '../../../lib/transport/index.ts'
import { type JsonRpcMessage, type JsonRpcRequest, isRequest, makeError, makeResult } from '../../../lib/wire/index.ts'

export type Responder = (
  message: JsonRpcMessage,
  options: SendOptions | undefined,
  transport: ScriptedTransport,
) => JsonRpcMessage[] | undefined | void

export class ScriptedTransport implements Transport {
  readonly sent: { message: JsonRpcMessage; headers: Record<string, string> }[] = []
  handlers?: TransportHandlers
  sessionId?: string
  resets = 0
  closed = false

  constructor(
    readonly kind: TransportKind,
    private readonly respond: Responder,
  ) {}

  async start(handlers: TransportHandlers): Promise<void> {
    this.handlers = handlers
  }
  async send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    if (this.closed) throw new Error('closed')
    this.sent.push({ message, headers: options?.headers ?? {} })
    const replies = this.respond(message, options, this) ?? []
    for (const reply of replies) queueMicrotask(() => this.handlers?.onMessage(reply))
  }
  /** Push a server-initiated message. */
  push(message: JsonRpcMessage): void {
    this.handlers?.onMessage(message)
  }
  resetSession(): void {
    this.sessionId = undefined
    this.resets++
  }
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.handlers?.onClose()
  }
  requests(method?: string): JsonRpcRequest[] {
    return this.sent.map((s) => s.message).filter((m): m is JsonRpcRequest => isRequest(m) && (method === undefined || m.method === method))
  }
}

export const ok = (request: JsonRpcRequest, result: Record<string, unknown>) => [makeResult(request.id, result)]
export const fail = (request: JsonRpcRequest, code: number, message: string, data?: unknown) => [
  makeError(request.id, data === undefined ? { code, message } : { code, message, data }),
]
