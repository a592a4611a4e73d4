/**
 * Incoming text (a stdio line, an HTTP JSON body, an SSE `data` payload) → JSON-RPC messages.
 * A 2025-03-26 batch (a JSON array: 2025-03-26 basic/transports.mdx, "MAY be batched") is split into its members.
 * Failures become PROTOCOL errors naming the source and quoting the start of the text; they never
 * throw, so one bad frame cannot stop a read loop.
 */
import { McpxError, RpcError } from '../errors/index.ts'
import { type JsonRpcMessage, isRecord, parseJson, parseMessage, recoverId } from '../wire/index.ts'

/** How much of a bad frame is quoted in its error. */
const QUOTE_CHARS = 200

export interface Decoded {
  messages: JsonRpcMessage[]
  errors: McpxError[]
}

export function decodeMessages(text: string, source: string): Decoded {
  const out: Decoded = { messages: [], errors: [] }
  readMessages(
    text,
    source,
    (message) => out.messages.push(message),
    (error) => out.errors.push(error),
  )
  return out
}

/**
 * decodeMessages for a reader that takes each message (or error) as it is decoded: a stdio line
 * is usually one message, and gets no arrays.
 */
export function readMessages(
  text: string,
  source: string,
  onMessage: (message: JsonRpcMessage) => void,
  onError: (error: McpxError) => void,
): void {
  let value: unknown
  try {
    value = parseJson(text)
  } catch (error) {
    return onError(protocolError(`${source}: not JSON (${reason(error)})`, text))
  }
  if (!Array.isArray(value)) return readMessage(value, text, source, onMessage, onError)
  for (const item of value) readMessage(item, text, source, onMessage, onError)
}

function readMessage(
  item: unknown,
  text: string,
  source: string,
  onMessage: (message: JsonRpcMessage) => void,
  onError: (error: McpxError) => void,
): void {
  let message: JsonRpcMessage
  try {
    message = parseMessage(item)
  } catch (error) {
    const id = recoverId(item)
    // A response (no method; a result or an error) names the request it answers: the caller can
    // fail that request now instead of leaving it to its deadline.
    const answers = id !== null && isRecord(item) && !('method' in item) && ('result' in item || 'error' in item)
    const extra = id === null ? {} : answers ? { id, response: true } : { id }
    return onError(protocolError(`${source}: not a JSON-RPC message (${reason(error)})`, text, extra))
  }
  onMessage(message)
}

/** Quote the start of some peer text for an error message or error data. */
export function quote(text: string, chars = QUOTE_CHARS): string {
  return text.length > chars ? `${text.slice(0, chars)}…` : text
}

/**
 * A peer's text (an HTTP error body, or a message quoting one) as one line for an error message: an
 * HTML page (a framework's or a proxy's error page) reduced to its text, whitespace collapsed, the
 * start quoted. The body itself stays whole in the error's data.
 */
export function bodyLine(text: string, chars?: number): string {
  const plain = /<(!doctype|html)[\s>]/i.test(text) ? text.replace(/<[^>]*>/g, ' ') : text
  return quote(plain.replace(/\s+/g, ' ').trim(), chars)
}

function protocolError(message: string, text: string, extra: Record<string, unknown> = {}): McpxError {
  return new McpxError('PROTOCOL', message, { frame: quote(text), ...extra })
}

function reason(error: unknown): string {
  return error instanceof RpcError || error instanceof Error ? error.message : String(error)
}
