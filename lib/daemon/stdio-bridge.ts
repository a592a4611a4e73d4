/**
 * `mcpx serve`: a stdio MCP endpoint for hosts that spawn their servers, relaying every message to
 * the daemon's /mcp over its Unix socket. The daemon answers every era; the bridge only carries
 * HTTP's per-message context (see bridgeStdio). If the daemon restarts, the bridge starts it again
 * and re-initializes the session with the host's own initialize, so the host never sees the seam
 * (TR-28/TR-29).
 */
import { RPC } from '../errors/index.ts'
import { log } from '../log.ts'
import type { Settings } from '../settings/index.ts'
import { createStdioServerTransport, readEventStream, type StdioServerOptions } from '../transport/index.ts'
import {
  HEADER, META, MIME, isModernRevision, isNotification, isRequest, makeError, requestHeaders,
  type JsonRpcMessage, type JsonRpcRequest, type RequestId, type Revision,
} from '../wire/index.ts'

export interface StdioBridgeOptions {
  readonly settings: Settings
  /** Unix socket of the daemon. */
  readonly socket: string
  /** Path and query on the daemon, e.g. `/mcp` or `/mcp?passthrough=github`. */
  readonly path: string
  /** (Re)start the daemon when its socket does not answer. */
  readonly ensureDaemon: () => Promise<void>
  readonly io?: Pick<StdioServerOptions, 'input' | 'output'>
}

export interface StdioBridge {
  readonly closed: Promise<void>
  close(): Promise<void>
}

const BASE = 'http://localhost'

/**
 * The per-message context carried: the legacy session id and negotiated version (captured from a
 * successful initialize), 2026 request headers (Mcp-Method/Mcp-Name/Mcp-Param-*, from tool schemas
 * seen in tools/list), SSE answers unrolled into lines, the legacy GET stream for unsolicited
 * notifications, and 2026 stdio cancellation as closing that request's stream.
 */
export function bridgeStdio(options: StdioBridgeOptions): StdioBridge {
  let sessionId: string | undefined
  let legacyRevision: Revision | undefined
  let initialize: JsonRpcRequest | undefined
  let reinit: Promise<void> | undefined
  const tools = new Map<string, { name: string; inputSchema?: unknown }>()
  const inflight = new Map<RequestId, AbortController>()
  const background = new AbortController()
  let resolveClosed!: () => void
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve))

  const transport = createStdioServerTransport({
    maxFrameBytes: options.settings.maxFrameBytes,
    ...options.io,
    onBatch: (items) => void relay(items),
  })
  const write = (message: unknown) => void transport.sendRaw(message)

  async function post(body: unknown, headers: Record<string, string>, signal?: AbortSignal): Promise<Response> {
    const init = {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'Content-Type': MIME.JSON, Accept: `${MIME.JSON}, ${MIME.SSE}`, ...headers },
      unix: options.socket,
      ...(signal && { signal }),
    }
    try {
      return await fetch(BASE + options.path, init)
    } catch (error) {
      if (signal?.aborted) throw error
      // The daemon went away (idle exit, restart): bring it back once and retry.
      await options.ensureDaemon()
      if (sessionId !== undefined && !(body as { method?: string }).method?.startsWith('initialize')) await reinitialize(sessionId)
      return fetch(BASE + options.path, { ...init, headers: { ...init.headers, ...sessionHeaders() } })
    }
  }

  function sessionHeaders(): Record<string, string> {
    const headers: Record<string, string> = {}
    if (sessionId) headers[HEADER.SESSION_ID] = sessionId
    if (legacyRevision) Object.assign(headers, requestHeaders(legacyRevision, 'ping'))
    return headers
  }

  function headersFor(message: JsonRpcMessage): Record<string, string> {
    if ('method' in message) {
      const meta = (message.params?._meta ?? {}) as Record<string, unknown>
      const revision = meta[META.PROTOCOL_VERSION]
      if (isModernRevision(revision)) {
        const name = message.method === 'tools/call' ? String(message.params?.name) : undefined
        return requestHeaders(revision, message.method, message.params, name ? tools.get(name) : undefined)
      }
      if (message.method === 'initialize') return {}
    }
    return sessionHeaders()
  }

  /** TR-29: the session is gone (daemon restarted): open a new one with the host's own initialize. */
  function reinitialize(stale: string): Promise<void> {
    if (sessionId !== stale) return Promise.resolve()
    reinit ??= (async () => {
      sessionId = undefined
      const response = await fetch(BASE + options.path, {
        method: 'POST',
        body: JSON.stringify({ ...initialize!, id: `mcpx-bridge-reinit-${Date.now()}` }),
        headers: { 'Content-Type': MIME.JSON, Accept: `${MIME.JSON}, ${MIME.SSE}` },
        unix: options.socket,
      })
      sessionId = response.headers.get(HEADER.SESSION_ID) ?? undefined
      await response.body?.cancel()
      await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionHeaders())
      openStandaloneStream()
    })().finally(() => (reinit = undefined))
    return reinit
  }

  async function relay(message: JsonRpcMessage | unknown[]): Promise<void> {
    const isBatch = Array.isArray(message)
    const request = !isBatch && isRequest(message as JsonRpcMessage) ? (message as JsonRpcRequest) : undefined
    if (!isBatch && isNotification(message as JsonRpcMessage) && (message as { method: string }).method === 'notifications/cancelled') {
      const id = (message as { params?: { requestId?: RequestId } }).params?.requestId
      const controller = id !== undefined ? inflight.get(id) : undefined
      // 2026 stdio cancellation becomes closing that request's stream (streamable-http.mdx).
      if (controller) return controller.abort()
    }
    const controller = new AbortController()
    if (request) inflight.set(request.id, controller)
    if (request?.method === 'initialize') initialize = request
    try {
      const headers = isBatch ? sessionHeaders() : headersFor(message as JsonRpcMessage)
      let response = await post(message, headers, controller.signal)
      if (response.status === 404 && sessionId !== undefined && request?.method !== 'initialize') {
        await response.body?.cancel()
        await reinitialize(sessionId)
        response = await post(message, { ...headers, ...sessionHeaders() }, controller.signal)
      }
      if (request?.method === 'initialize' && response.ok) {
        sessionId = response.headers.get(HEADER.SESSION_ID) ?? undefined
      }
      await deliver(response, request)
      if (!isBatch && (message as { method?: string }).method === 'notifications/initialized') openStandaloneStream()
    } catch (error) {
      if (controller.signal.aborted) return
      if (request) write(makeError(request.id, { code: RPC.INTERNAL_ERROR, message: `mcpx daemon unreachable: ${(error as Error).message}`, data: { mcpxCode: 'CONNECT' } }))
      else log.warn(`serve: could not relay ${(message as { method?: string }).method ?? 'message'}: ${(error as Error).message}`)
    } finally {
      if (request) inflight.delete(request.id)
    }
  }

  async function deliver(response: Response, request: JsonRpcRequest | undefined): Promise<void> {
    const type = response.headers.get('content-type') ?? ''
    if (type.startsWith(MIME.SSE) && response.body) {
      await readEventStream(response.body, { onEvent: (event) => event.data !== '' && forward(JSON.parse(event.data), request) })
      return
    }
    const text = await response.text()
    if (text !== '' && type.startsWith(MIME.JSON)) return forward(JSON.parse(text), request)
    if (request && response.status >= 400) {
      write(makeError(request.id, { code: RPC.INTERNAL_ERROR, message: `mcpx daemon answered HTTP ${response.status}: ${text.slice(0, 200)}`, data: { mcpxCode: 'CONNECT', httpStatus: response.status } }))
    }
  }

  function forward(message: unknown, request: JsonRpcRequest | undefined): void {
    const result = (message as { result?: Record<string, unknown> }).result
    if (request?.method === 'initialize' && typeof result?.protocolVersion === 'string') legacyRevision = result.protocolVersion as Revision
    if (request?.method === 'tools/list' && Array.isArray(result?.tools)) {
      for (const tool of result.tools as { name: string; inputSchema?: unknown }[]) tools.set(tool.name, tool)
    }
    write(message)
  }

  /** Legacy unsolicited notifications (list_changed, resources/updated) ride the session's GET stream. */
  function openStandaloneStream(): void {
    if (!sessionId) return
    const session = sessionId
    void fetch(BASE + options.path, { headers: { Accept: MIME.SSE, ...sessionHeaders() }, unix: options.socket, signal: background.signal })
      .then(async (response) => {
        if (!response.ok || !response.body) return void response.body?.cancel()
        await readEventStream(response.body, { onEvent: (event) => event.data !== '' && sessionId === session && write(JSON.parse(event.data)) })
      })
      .catch(() => {})
  }

  /** Following the daemon's event feed keeps it from idling out while this host is connected. */
  void fetch(`${BASE}/v1/events`, { unix: options.socket, signal: background.signal, headers: { Accept: MIME.SSE } })
    .then((response) => response.body?.pipeTo(new WritableStream()))
    .catch(() => {})

  void transport.start({
    onMessage: (message) => void relay(message),
    onClose: () => {
      background.abort()
      for (const controller of inflight.values()) controller.abort()
      if (sessionId) void fetch(BASE + options.path, { method: 'DELETE', headers: sessionHeaders(), unix: options.socket }).catch(() => {})
      resolveClosed()
    },
  })

  return {
    closed,
    close: async () => {
      await transport.close()
      await closed
    },
  }
}
