/**
 * One downstream connection as the engine sees it: a stdio process or a legacy HTTP session (a
 * modern HTTP request gets a throwaway one). It holds the legacy handshake state, the in-flight
 * requests (for notifications/cancelled), and the server→client requests awaiting an answer
 * (legacy elicitation/sampling/roots, sent on the asking call's own stream before its response).
 */
import { RPC, RpcError } from '../errors/index.ts'
import type { JsonRpcMessage, JsonRpcResponse, LegacyRevision, LogLevel, RequestId } from '../wire/index.ts'
import { makeRequest } from '../wire/index.ts'
import type { Implementation, JsonObject } from './server-definition.ts'

/** Where the messages of one stream go (stdout, a POST's SSE response, a GET stream, a listen stream). */
export interface Outlet {
  send(message: JsonRpcMessage): void
}

/** What stops a request being answered: its handler's AbortController, or a relayed call (relay.ts). */
export interface Cancellable {
  abort(reason?: unknown): void
}

/** State negotiated by `initialize` (legacy era). */
export interface LegacyState {
  revision: LegacyRevision
  clientCapabilities: JsonObject
  clientInfo?: Implementation
  initialized: boolean
  logLevel?: LogLevel
  subscriptions: Set<string>
}

/**
 * Why a request still running when its server stops is answered with an error (not left silent,
 * not a bare 202): every request gets exactly one answer, and the caller learns the outcome is
 * unknown rather than re-sending a call that may have had its effect.
 */
export class ShutdownError extends RpcError {
  constructor(why: string) {
    super(RPC.INTERNAL_ERROR, `${why}: the request was stopped before it finished and may or may not have run`, {
      mcpxCode: 'CONNECT',
      shutdown: true,
    })
  }
}

export class Connection {
  legacy?: LegacyState
  /** Unsolicited legacy messages (list_changed, resources/updated): stdout, or the session's GET stream. */
  unsolicited?: Outlet
  readonly inflight = new Map<RequestId, Cancellable>()
  private readonly pending = new Map<RequestId, { resolve(result: JsonObject): void; reject(error: unknown): void }>()
  private nextId = 0
  private closed = false

  /** `id` numbers the connection within its engine (engine.ts): server→client request ids carry it. */
  constructor(
    readonly kind: 'stdio' | 'http',
    readonly id: number,
  ) {}

  /** Send a server→client request on `outlet` and await the client's response (legacy era only). */
  request(method: string, params: JsonObject | undefined, outlet: Outlet, signal: AbortSignal): Promise<JsonObject> {
    if (this.closed) return Promise.reject(new RpcError(RPC.INTERNAL_ERROR, 'connection closed'))
    const id = `mcpx-${this.id}-${++this.nextId}`
    return new Promise<JsonObject>((resolve, reject) => {
      const onAbort = () => {
        this.pending.delete(id)
        outlet.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'request cancelled' } })
        reject(signal.reason ?? new RpcError(RPC.INTERNAL_ERROR, 'cancelled'))
      }
      if (signal.aborted) return onAbort()
      signal.addEventListener('abort', onAbort)
      this.pending.set(id, {
        resolve: (r) => (signal.removeEventListener('abort', onAbort), resolve(r)),
        reject: (e) => (signal.removeEventListener('abort', onAbort), reject(e)),
      })
      outlet.send(makeRequest(id, method, params))
    })
  }

  /** A response from the client: settle the matching server→client request. False if unknown. */
  settle(response: JsonRpcResponse): boolean {
    if (response.id === null) return false
    const waiter = this.pending.get(response.id)
    if (!waiter) return false
    this.pending.delete(response.id)
    if ('error' in response) waiter.reject(RpcError.fromWire(response.error))
    else waiter.resolve(response.result)
    return true
  }

  /** notifications/cancelled: abort the named in-flight request's handler. */
  cancel(requestId: unknown, reason?: unknown): void {
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return
    this.inflight.get(requestId)?.abort(new RpcError(RPC.INTERNAL_ERROR, typeof reason === 'string' ? reason : 'cancelled by client'))
  }

  /** End the connection; requests still running are aborted with `reason` (a ShutdownError answers them). */
  close(reason: RpcError = new RpcError(RPC.INTERNAL_ERROR, 'connection closed')): void {
    if (this.closed) return
    this.closed = true
    for (const controller of this.inflight.values()) controller.abort(reason)
    for (const waiter of this.pending.values()) waiter.reject(new RpcError(RPC.INTERNAL_ERROR, 'connection closed'))
    this.pending.clear()
  }

  get isClosed(): boolean {
    return this.closed
  }
}
