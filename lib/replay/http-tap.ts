/**
 * HTTP-level recording: a `fetch` wrapper that records each exchange with its framing — request
 * method and the headers that matter, response status and headers, and, for SSE responses, every
 * event's id, type and `retry:` (recorded as the caller reads the stream, unchanged). Exchanges with
 * no message (a GET stream opening, DELETE, 202 Accepted, an empty error) become `http` entries.
 * Web standards only; any HTTP client that takes a `fetch` can be recorded this way.
 */
import { createSseParser } from '../transport/index.ts'
import { MIME } from '../wire/index.ts'
import type { HttpFraming } from './format.ts'
import type { Recorder } from './writer.ts'

const REQUEST_HEADERS = [
  'mcp-protocol-version',
  'mcp-session-id',
  'mcp-method',
  'mcp-name',
  'last-event-id',
  'content-type',
  'accept',
  'authorization',
  'cookie',
]
const RESPONSE_HEADERS = ['content-type', 'mcp-session-id', 'allow', 'www-authenticate', 'retry-after', 'set-cookie']

type Fetch = (input: string | URL | Request, init?: BunFetchRequestInit) => Promise<Response>

/** A fetch that records into `recorder` (as role `client`) and otherwise behaves like `base`. */
export function recordingFetch(recorder: Recorder, base: Fetch = fetch): Fetch {
  return async (input, init) => {
    const request = new Request(input, init)
    const sent: HttpFraming = { method: request.method, headers: pick(request.headers, REQUEST_HEADERS, true) }
    const outgoing = request.body === null ? [] : messagesIn(await request.clone().text())
    if (outgoing.length === 0) recorder.http('to-server', sent)
    for (const message of outgoing) recorder.message('to-server', message, sent)

    // Bun's own fetch options (`timeout: false`: no idle timer on a quiet SSE stream) do not survive
    // the Request constructor, so they ride along with it.
    const response = await base(request, bunOptions(init))
    const received: HttpFraming = { status: response.status, headers: pick(response.headers, RESPONSE_HEADERS, false) }
    const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
    if (type === MIME.SSE && response.body !== null) {
      recorder.http('to-client', received)
      const tapped = response.body.pipeThrough(eventTap(recorder, received.status))
      return new Response(tapped, { status: response.status, statusText: response.statusText, headers: response.headers })
    }
    const incoming = messagesIn(await response.clone().text())
    if (incoming.length === 0) recorder.http('to-client', received)
    for (const message of incoming) recorder.message('to-client', message, received)
    return response
  }
}

// Each chunk is parsed (and its events recorded) before the caller sees it, so the recording
// keeps the order in which the caller observed the traffic.
function eventTap(recorder: Recorder, status: number | undefined): TransformStream<Uint8Array, Uint8Array> {
  let retry: number | undefined
  const parser = createSseParser({
    onRetry: (ms) => void (retry = ms),
    onEvent(event) {
      const sse = {
        ...(event.id !== '' && { id: event.id }),
        ...(event.event !== 'message' && { event: event.event }),
        ...(retry !== undefined && { retry }),
      }
      retry = undefined
      const framing: HttpFraming = { ...(status !== undefined && { status }), sse }
      const messages = messagesIn(event.data)
      // A priming event (id, empty data) or a non-JSON event keeps only its framing.
      if (messages.length === 0) recorder.http('to-client', framing)
      for (const message of messages) recorder.message('to-client', message, framing)
    },
  })
  return new TransformStream({
    transform(chunk, controller) {
      parser.push(chunk)
      controller.enqueue(chunk)
    },
    flush() {
      parser.end()
    },
  })
}

function bunOptions(init: BunFetchRequestInit | undefined): BunFetchRequestInit | undefined {
  return init?.timeout === undefined ? undefined : { timeout: init.timeout }
}

function messagesIn(text: string): Record<string, unknown>[] {
  if (text.trim() === '') return []
  try {
    const value = JSON.parse(text) as unknown
    const list = Array.isArray(value) ? value : [value]
    return list.filter((m): m is Record<string, unknown> => typeof m === 'object' && m !== null && !Array.isArray(m))
  } catch {
    return []
  }
}

function pick(headers: Headers, names: readonly string[], withParams: boolean): Record<string, string> {
  const out: Record<string, string> = {}
  for (const name of names) {
    const value = headers.get(name)
    if (value !== null) out[name] = value
  }
  if (withParams) for (const [name, value] of headers) if (name.startsWith('mcp-param-')) out[name] = value
  return out
}
