/**
 * The shapes of the session room: how a request is sent (deadline, cancellation, progress,
 * headers), how incoming requests and notifications are handled, and the Peer's options.
 */
import type { JsonRpcMessage, JsonRpcNotification, RequestId } from '../wire/index.ts'

/** How a request is cancelled when its signal aborts or its deadline passes. */
export type CancelMode =
  /**
   * Send `notifications/cancelled` (every legacy transport; 2026 stdio, which has no per-request stream to close:
   * 2026-07-28 basic/patterns/cancellation.mdx).
   */
  | 'notify'
  /** Abort the request's own stream (2026-07-28 basic/transports/streamable-http.mdx "Cancellation": closing the stream is the cancel). */
  | 'abort'
  /** Neither: e.g. `initialize` (MUST NOT be cancelled) or an era probe to a server not yet initialized. */
  | 'none'

export interface ProgressUpdate {
  progressToken: string | number
  progress: number
  total?: number
  message?: string
}

export interface RequestOptions {
  signal?: AbortSignal
  /** Overrides the peer's default deadline; 0 = none. */
  timeoutMs?: number
  /** When set, a progressToken is added to `params._meta` and matching notifications come here. */
  onProgress?: (update: ProgressUpdate) => void
  /** Extra HTTP headers for this message (merged over `headersFor`). */
  headers?: Record<string, string>
  cancel?: CancelMode
  /** Told the JSON-RPC id before the request is sent (2026 listen: the id is the subscription id). */
  onId?: (id: RequestId) => void
}

export interface IncomingRequestContext {
  id: RequestId
  method: string
  /** Aborted when the peer cancels this request or the transport closes. */
  signal: AbortSignal
}

export type RequestHandler = (
  params: Record<string, unknown>,
  context: IncomingRequestContext,
) => Promise<Record<string, unknown>> | Record<string, unknown>
export type NotificationListener = (params: Record<string, unknown>, notification: JsonRpcNotification) => void

export interface PeerOptions {
  /** Default deadline for requests this peer sends (Settings.requestTimeoutMs); 0 = none. */
  requestTimeoutMs: number
  /** Default cancel mode for requests (per-request `cancel` overrides). */
  cancelMode?: CancelMode
  /** Reset a request's deadline whenever progress arrives for it (2025-11-25 basic/lifecycle.mdx "Timeouts": MAY). */
  resetTimeoutOnProgress?: boolean
  /** Per-message HTTP headers (era headers, Mcp-Method…); stdio transports ignore them. */
  headersFor?: (message: JsonRpcMessage) => Record<string, string> | undefined
  /** Called with every message before dispatch; return true to consume it. */
  intercept?: (message: JsonRpcMessage) => boolean
  /**
   * Whether incoming requests get an answer at all (default yes). A 2026 client MUST NOT send
   * JSON-RPC responses (2026-07-28 basic/transports/stdio.mdx and streamable-http.mdx), so it drops them instead.
   */
  answerRequests?: () => boolean
}
