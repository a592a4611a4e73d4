/**
 * `mcpx replay FILE --serve`: the recording becomes the server. A ReplayEngine stands in for the
 * server engine behind lib/server's own stdio and Streamable HTTP front ends, so the transport
 * rules (Origin, sessions, SSE, 2026 header checks) are the real ones; only the answers come from
 * the file. Each request is matched (matcher.ts) and answered with the recorded notifications and
 * server requests, in order, then the recorded response under the caller's id. Legacy recordings
 * serve legacy clients (initialize opens the session), modern recordings modern clients.
 */
import { RPC, RpcError } from '../errors/index.ts'
import { Engine, serveHttp, serveStdio, type Answer, type Channel, type HttpServer, type StdioServer } from '../server/index.ts'
import type { Settings } from '../settings/index.ts'
import {
  HTTP_STATUS,
  META,
  httpStatusOf,
  isRequest,
  isResponse,
  makeError,
  methodNotFound,
  unsupportedVersion,
  type Era,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../wire/index.ts'
import { formatDifferences } from './diff.ts'
import type { MessageEntry, Recording } from './format.ts'
import { Matcher, type Exchange } from './matcher.ts'
import { volatileFields } from './volatile.ts'

export interface ReplayServeOptions {
  /** Extra volatile fields (`--volatile`), added to volatile.ts's declaration. */
  readonly volatile?: readonly string[]
}

export class ReplayEngine extends Engine {
  readonly #recording: Recording
  readonly #matcher: Matcher

  constructor(recording: Recording, settings: Settings, options: ReplayServeOptions = {}) {
    const name = recording.peer?.name ?? 'mcpx-replay'
    super({ info: { name, version: recording.peer?.version ?? '0.0.0' }, tasks: false }, settings)
    this.#recording = recording
    this.#matcher = new Matcher(recording, volatileFields(options.volatile))
  }

  override async answer(message: JsonRpcMessage, channel: Channel): Promise<Answer> {
    if (isResponse(message)) {
      channel.connection.settle(message)
      return { httpStatus: HTTP_STATUS.ACCEPTED }
    }
    // Client notifications (initialized, cancelled, roots changed) need no recorded answer; a
    // cancellation releases a listen stream held open (#hold).
    if (!isRequest(message)) {
      if (message.method === 'notifications/cancelled') channel.connection.cancel(message.params?.requestId, message.params?.reason)
      return { httpStatus: HTTP_STATUS.ACCEPTED }
    }
    const era = channel.era ?? eraOfMessage(message)
    const refused = this.#eraGate(message, era)
    if (refused !== undefined) return refused
    const match = this.#matcher.match({ method: message.method, params: message.params })
    if (!match.ok && message.method === 'server/discover' && this.#recording.era === 'modern') return this.#discover(message)
    if (!match.ok) return this.#unmatched(message, era, match.closest, match.differences)
    return this.#play(message, match.exchange, channel, era)
  }

  // A legacy recording cannot answer a modern client and vice versa; say so in a way each
  // client's fallback understands (2026-07-28 basic/versioning.mdx "Backward Compatibility").
  #eraGate(message: JsonRpcRequest, era: Era): Answer | undefined {
    const recorded = this.#recording.era
    const revision = this.#recording.revision
    if (recorded === 'modern' && era === 'legacy') {
      const requested = typeof message.params?.protocolVersion === 'string' ? message.params.protocolVersion : '(none)'
      const error = unsupportedVersion([revision ?? '2026-07-28'], requested)
      return { message: makeError(message.id, error.toRpc()), httpStatus: HTTP_STATUS.BAD_REQUEST }
    }
    if (recorded === 'legacy' && era === 'modern') {
      // Not a recognised 2026 error: a dual-era client falls back to initialize (streamable-http.mdx).
      const error = new RpcError(
        RPC.INVALID_REQUEST,
        `this recording is of a legacy server (${revision ?? 'unknown revision'}); start with initialize`,
      )
      return { message: makeError(message.id, error.toRpc()), httpStatus: HTTP_STATUS.BAD_REQUEST }
    }
    return undefined
  }

  async #play(message: JsonRpcRequest, exchange: Exchange, channel: Channel, era: Era): Promise<Answer> {
    const progressToken = message.params?._meta && (message.params._meta as Record<string, unknown>)[META.PROGRESS_TOKEN]
    for (const entry of exchange.answer) {
      const recorded = entry.message
      if (typeof recorded.method !== 'string') return this.#respond(message, entry, channel, era)
      if ('id' in recorded && recorded.id !== undefined) {
        // A recorded server→client request (legacy elicitation, sampling, roots): ask it again and
        // wait for the client's answer before going on, as the recorded server did.
        if (era === 'legacy') await this.#ask(recorded, channel)
        continue
      }
      channel.outlet.send(rewriteProgress(recorded as unknown as JsonRpcMessage, progressToken))
    }
    // A 2026 listen stream was still open when the recording ended: keep it open, as the recorded
    // server did, until the client cancels it or goes away (basic/patterns/subscriptions.mdx).
    if (exchange.method === 'subscriptions/listen') {
      await this.#hold(message, channel)
      return { httpStatus: HTTP_STATUS.OK }
    }
    const error = new RpcError(
      RPC.INTERNAL_ERROR,
      `the recording ends before the response to ${exchange.method} (recorded seq ${exchange.request.seq})`,
      { mcpxCode: 'NOT_FOUND', seq: exchange.request.seq },
    )
    return { message: makeError(message.id, error.toRpc()), httpStatus: HTTP_STATUS.OK }
  }

  // Held like any in-flight request: a cancellation or the connection closing releases it.
  async #hold(message: JsonRpcRequest, channel: Channel): Promise<void> {
    const controller = new AbortController()
    channel.connection.inflight.set(message.id, controller)
    try {
      await new Promise<void>((resolve) => {
        controller.signal.addEventListener('abort', () => resolve(), { once: true })
        channel.signal?.addEventListener('abort', () => resolve(), { once: true })
      })
    } finally {
      channel.connection.inflight.delete(message.id)
    }
  }

  async #ask(recorded: Record<string, unknown>, channel: Channel): Promise<void> {
    const timeoutMs = this.settings.requestTimeoutMs
    const signal = timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : new AbortController().signal
    const params = recorded.params as Record<string, unknown> | undefined
    await channel.connection.request(recorded.method as string, params, channel.outlet, signal).catch(() => undefined)
  }

  #respond(message: JsonRpcRequest, entry: MessageEntry, channel: Channel, era: Era): Answer {
    const response = { ...entry.message, id: message.id } as unknown as JsonRpcResponse
    if (message.method === 'initialize' && 'result' in response) {
      const result = response.result as Record<string, unknown>
      const params = message.params ?? {}
      channel.connection.legacy = {
        revision: result.protocolVersion as never,
        clientCapabilities: (params.capabilities as Record<string, unknown>) ?? {},
        ...(typeof params.clientInfo === 'object' && params.clientInfo !== null && { clientInfo: params.clientInfo as never }),
        initialized: false,
        subscriptions: new Set(),
      }
    }
    return { message: response, httpStatus: entry.http?.status ?? statusFor(response, era) }
  }

  /**
   * A modern recording without `server/discover`: the SDK 2.x stdio client probes on a disposable
   * sibling process, so the discover went to another `mcpx record` run. Answer from what the
   * recording shows: its revision, the capabilities its requests used, its server's identity.
   */
  #discover(message: JsonRpcRequest): Answer {
    const methods = new Set(this.#matcher.exchanges.map((e) => e.method.split('/')[0]))
    const capabilities: Record<string, object> = {}
    for (const area of ['tools', 'prompts', 'resources', 'completion', 'logging'] as const)
      if (methods.has(area)) capabilities[area === 'completion' ? 'completions' : area] = {}
    const peer = this.#recording.peer
    const result = {
      resultType: 'complete',
      supportedVersions: [this.#recording.revision ?? '2026-07-28'],
      capabilities,
      ...(peer?.name !== undefined && { _meta: { [META.SERVER_INFO]: { name: peer.name, version: peer.version ?? '0.0.0' } } }),
    }
    return { message: { jsonrpc: '2.0', id: message.id, result } as JsonRpcResponse, httpStatus: HTTP_STATUS.OK }
  }

  #unmatched(
    message: JsonRpcRequest,
    era: Era,
    closest: Exchange | undefined,
    differences: Parameters<typeof formatDifferences>[0],
  ): Answer {
    const known = this.#matcher.exchanges.some((e) => e.method === message.method)
    const where =
      closest === undefined
        ? 'the recording has no requests'
        : `closest recorded request is #${closest.request.seq} ${closest.method} ${JSON.stringify(closest.request.message.params ?? {})}${differences.length > 0 ? ` (${formatDifferences(differences.slice(0, 3)).join('; ')})` : ''}`
    const data = {
      mcpxCode: 'NOT_FOUND',
      ...(closest !== undefined && {
        closest: { seq: closest.request.seq, method: closest.method, params: closest.request.message.params ?? {} },
      }),
      differences,
    }
    const text = `no recorded ${message.method} request matches this one; ${where}`
    const error = known
      ? new RpcError(RPC.INVALID_PARAMS, text, data)
      : methodNotFound(message.method, era === 'modern' ? '2026-07-28' : '2025-11-25', { message: text, data })
    return { message: makeError(message.id, error.toRpc()), httpStatus: error.httpStatus ?? HTTP_STATUS.OK }
  }
}

/** Serve a recording on stdio (this process's stdin/stdout). */
export function serveRecordingStdio(recording: Recording, settings: Settings, options: ReplayServeOptions = {}): StdioServer {
  return serveStdio(new ReplayEngine(recording, settings, options), settings)
}

/** Serve a recording over Streamable HTTP on 127.0.0.1:`port` (0 = any free port) at /mcp. */
export function serveRecordingHttp(
  recording: Recording,
  settings: Settings,
  options: ReplayServeOptions & { port?: number } = {},
): HttpServer {
  return serveHttp(new ReplayEngine(recording, settings, options), settings, { port: options.port ?? 0 })
}

function eraOfMessage(message: JsonRpcRequest): Era {
  const meta = message.params?._meta
  return typeof meta === 'object' && meta !== null && META.PROTOCOL_VERSION in meta ? 'modern' : 'legacy'
}

function statusFor(response: JsonRpcResponse, era: Era): number {
  if (!('error' in response) || era !== 'modern') return HTTP_STATUS.OK
  return httpStatusOf(response.error.code) ?? HTTP_STATUS.OK
}

// The client picks its own progressToken; recorded progress notifications carry the old one.
function rewriteProgress(message: JsonRpcMessage, token: unknown): JsonRpcMessage {
  const params = (message as { params?: Record<string, unknown> }).params
  if (token === undefined || params === undefined || !('progressToken' in params)) return structuredClone(message)
  return { ...message, params: { ...params, progressToken: token } } as JsonRpcMessage
}
