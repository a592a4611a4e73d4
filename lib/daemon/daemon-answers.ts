/**
 * Reading what the daemon's /v1 API answers, for its client: the error body api-routes.ts writes
 * (back into the McpxError it described), a streamed operation's NDJSON lines (call-stream.ts) and
 * the event feed's SSE (events.ts).
 */
import { type ErrorCode, McpxError, RpcError } from '../errors/index.ts'
import { createSseParser } from '../transport/index.ts'
import type { CallStreamLine } from './call-stream.ts'
import type { DaemonEvent } from './events.ts'

/** Rebuild the McpxError a /v1 error body describes (api-routes.ts errorResponse writes it). */
export function errorFromBody(body: unknown, status: number): McpxError {
  const error = (body as { error?: { code?: unknown; message?: unknown; rpcCode?: unknown; data?: unknown } } | null)?.error
  if (error && typeof error.code === 'string' && typeof error.message === 'string') {
    const data = error.data !== null && typeof error.data === 'object' ? (error.data as Record<string, unknown>) : undefined
    // A peer's JSON-RPC error stays one (RpcError.toJSON wrote its numeric code).
    if (error.code === 'PEER' && typeof error.rpcCode === 'number') return new RpcError(error.rpcCode, error.message, data)
    return new McpxError(error.code as ErrorCode, error.message, data)
  }
  return new McpxError('INTERNAL', `daemon answered HTTP ${status} without an error body`)
}

/** One JSON object a line (a streamed operation's answer). */
export async function* ndjsonLines(body: ReadableStream<Uint8Array>): AsyncGenerator<CallStreamLine> {
  const decoder = new TextDecoder()
  let buffered = ''
  const reader = body.getReader()
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    buffered += decoder.decode(chunk.value, { stream: true })
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const text = buffered.slice(0, end)
      buffered = buffered.slice(end + 1)
      if (text.trim() !== '') yield JSON.parse(text) as CallStreamLine
    }
  }
}

/** The feed's events, parsed by the one SSE parser (lib/transport). */
export async function* parseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<DaemonEvent> {
  const ready: DaemonEvent[] = []
  const parser = createSseParser({ onEvent: (event) => event.data !== '' && ready.push(JSON.parse(event.data) as DaemonEvent) })
  const reader = body.getReader()
  for (;;) {
    const { value, done } = await reader.read()
    if (done) parser.end()
    else parser.push(value)
    while (ready.length > 0) yield ready.shift()!
    if (done) return
  }
}
