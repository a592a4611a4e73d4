/**
 * The client end of the 2024-11-05 HTTP+SSE transport (2024-11-05 basic/transports.mdx "HTTP with SSE"):
 * GET the SSE endpoint, wait for the `endpoint` event naming where to POST (resolved against the
 * SSE URL, same origin only), POST every message there, and take server messages from `message`
 * events. The stream is the connection: when the server ends it, the transport closes with CONNECT.
 */
import { McpxError } from '../errors/index.ts'
import { log } from '../log/index.ts'
import type { Settings } from '../settings/index.ts'
import { POST_ACCEPT_HEADER, MIME, isResponse, type JsonRpcMessage } from '../wire/index.ts'
import { decodeMessages, quote } from './decode-messages.ts'
import {
  type FetchPolicySettings,
  fetchPolicyOf,
  contentTypeOf,
  type FetchContext,
  fetchWithAuth,
  httpError,
  readTextCapped,
} from './http-fetch.ts'
import { readEventStream } from './sse-parser.ts'
import type { AuthProvider, SendOptions, Transport, TransportHandlers } from './contract.ts'

export interface SseTransportParams {
  /** The SSE (GET) endpoint. */
  url: string
  headers?: Record<string, string>
  auth?: AuthProvider
}

export interface SseTransport extends Transport {
  readonly kind: 'http+sse'
  readonly url: string
  /** Where messages are POSTed, once the endpoint event arrived. */
  readonly endpoint: string | undefined
}

type SseSettings = Pick<Settings, 'maxFrameBytes' | 'authMaxRetries' | 'sseEndpointTimeoutMs' | 'httpBodyReadBytes'> & FetchPolicySettings

export function createSseTransport(params: SseTransportParams, settings: SseSettings): SseTransport {
  const url = params.url
  const lifetime = new AbortController()
  let handlers: TransportHandlers | undefined
  let endpoint: string | undefined
  let closed = false
  let closing: Promise<void> | undefined
  let stream: Promise<void> | undefined

  function finish(reason?: McpxError): void {
    if (closed) return
    closed = true
    lifetime.abort()
    handlers?.onClose(reason)
  }

  function report(error: McpxError): void {
    log.warn(`${url}: ${error.message}`)
    handlers?.onError?.(error)
  }

  function deliverText(text: string, source: string): void {
    const { messages, errors } = decodeMessages(text, source)
    for (const error of errors) report(error)
    for (const message of messages) {
      try {
        handlers?.onMessage(message)
      } catch (error) {
        log.error(`${url}: message handler threw`, error)
      }
    }
  }

  /** Resolve the endpoint event's URI; a different origin is refused (it would leak the session). */
  function resolveEndpoint(data: string): string {
    let resolved: URL
    try {
      resolved = new URL(data.trim(), url)
    } catch {
      throw new McpxError('PROTOCOL', `${url}: endpoint event is not a URI: ${quote(data)}`, { url, endpoint: data })
    }
    if (resolved.origin !== new URL(url).origin) {
      throw new McpxError('CONNECT', `${url}: endpoint ${resolved.href} is on another origin; refused`, { url, endpoint: resolved.href })
    }
    return resolved.href
  }

  async function connect(): Promise<void> {
    const ctx: FetchContext = { url, auth: params.auth, authMaxRetries: settings.authMaxRetries, ...fetchPolicyOf(settings) }
    const headers = new Headers(params.headers)
    headers.set('Accept', MIME.SSE)
    const response = await fetchWithAuth(ctx, { method: 'GET', headers, signal: lifetime.signal })
    if (!response.ok || contentTypeOf(response) !== MIME.SSE) {
      const { text } = await readTextCapped(response, settings.httpBodyReadBytes)
      throw httpError({ url, method: 'GET' }, response, text ?? '', response.ok ? { reason: 'not an event stream' } : {})
    }
    let announced!: (error?: McpxError) => void
    const endpointKnown = new Promise<McpxError | undefined>((resolve) => (announced = resolve))
    stream = (async () => {
      const end = await readEventStream(response.body!, {
        maxEventChars: settings.maxFrameBytes,
        onEvent(event) {
          if (event.event === 'endpoint') {
            if (endpoint !== undefined) return
            try {
              endpoint = resolveEndpoint(event.data)
              announced()
            } catch (error) {
              announced(error as McpxError)
            }
          } else if (event.event === 'message' && event.data.trim() !== '') deliverText(event.data, 'SSE message event')
        },
        onOversize: (chars) =>
          report(
            new McpxError('PROTOCOL', `SSE event of ${chars} characters exceeds maxFrameBytes (${settings.maxFrameBytes}); skipped`, {
              chars,
              maxFrameBytes: settings.maxFrameBytes,
            }),
          ),
      })
      const why = end.failure ? `broke (${(end.failure as Error).message ?? String(end.failure)})` : 'was closed by the server'
      const error = new McpxError('CONNECT', `${url}: the SSE stream ${why}`, { url })
      announced(error)
      if (!lifetime.signal.aborted) finish(error)
    })()
    const timer = setTimeout(
      () =>
        announced(
          new McpxError('CONNECT', `${url}: no endpoint event within ${settings.sseEndpointTimeoutMs} ms`, {
            url,
            timeoutMs: settings.sseEndpointTimeoutMs,
          }),
        ),
      settings.sseEndpointTimeoutMs,
    )
    const failure = await endpointKnown
    clearTimeout(timer)
    if (failure) throw failure
  }

  async function send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    if (closed || endpoint === undefined)
      throw new McpxError('CONNECT', `HTTP+SSE transport to ${url} is ${closed ? 'closed' : 'not connected'}`, { url })
    if (options?.signal?.aborted) throw new McpxError('CANCELLED', `send to ${endpoint} cancelled before it started`, { url: endpoint })
    const signal = options?.signal ? AbortSignal.any([options.signal, lifetime.signal]) : lifetime.signal
    const headers = new Headers(params.headers)
    headers.set('Content-Type', MIME.JSON)
    headers.set('Accept', POST_ACCEPT_HEADER)
    for (const [name, value] of Object.entries(options?.headers ?? {})) headers.set(name, value)
    const ctx: FetchContext = { url: endpoint, auth: params.auth, authMaxRetries: settings.authMaxRetries }
    const response = await fetchWithAuth(ctx, { method: 'POST', headers, body: JSON.stringify(message), signal })
    const { text } = await readTextCapped(response, settings.httpBodyReadBytes)
    const body = text ?? ''
    // Answers travel on the SSE stream; a server that answers inline with JSON-RPC is honoured too.
    const inline = contentTypeOf(response) === MIME.JSON ? decodeMessages(body, 'POST answer').messages : []
    if (!response.ok) {
      if (inline.some((m) => isResponse(m) && m.id !== null)) return deliverText(body, `HTTP ${response.status} body`)
      throw httpError({ url: endpoint, method: 'POST' }, response, body)
    }
    if (inline.length > 0) deliverText(body, 'POST answer')
  }

  return {
    kind: 'http+sse',
    url,
    get endpoint() {
      return endpoint
    },
    async start(h) {
      if (handlers) throw new McpxError('INTERNAL', 'HTTP+SSE transport started twice')
      handlers = h
      try {
        await connect()
      } catch (error) {
        closed = true
        lifetime.abort()
        throw error
      }
    },
    send,
    close() {
      if (closing) return closing
      closing = (async () => {
        if (closed) return
        lifetime.abort()
        await stream
        finish()
      })()
      return closing
    },
  }
}
