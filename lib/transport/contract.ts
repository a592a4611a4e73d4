/**
 * The transport contract: moves whole JSON-RPC messages; knows no MCP method and no era beyond the
 * headers a caller hands it. Handlers come in with start(), so no message can arrive before they exist.
 */
import type { McpxError } from '../errors/index.ts'
import type { JsonRpcMessage } from '../wire/index.ts'

export type TransportKind = 'stdio' | 'streamable-http' | 'http+sse'

export interface TransportHandlers {
  onMessage(message: JsonRpcMessage): void
  /** Called exactly once, including after close(); `reason` is set when the close was not asked for. */
  onClose(reason?: McpxError): void
  /**
   * Optional: a non-fatal problem with incoming data (an unparseable or oversized frame, a broken
   * SSE event). The transport keeps running; `error.code` is PROTOCOL, `error.data` says what.
   */
  onError?(error: McpxError): void
}

export interface SendOptions {
  /** Per-message HTTP headers (2026 mirrors body fields into Mcp-* headers); stdio ignores them. */
  headers?: Record<string, string>
  /** Aborting closes the message's own stream where the transport has one (2026 HTTP cancellation). */
  signal?: AbortSignal
}

export interface Transport {
  readonly kind: TransportKind
  start(handlers: TransportHandlers): Promise<void>
  /** Settles once the message is handed on; SENT itself when it was at once (nothing can fail later). */
  send(message: JsonRpcMessage, options?: SendOptions): Promise<void>
  close(): Promise<void>
}

/**
 * What send() returns for a message written at once (stdio with room in its pipe): one settled
 * promise for all, so a caller can tell that nothing is left to wait for without a reaction.
 */
export const SENT: Promise<void> = Promise.resolve()

/**
 * How an HTTP transport gets credentials without knowing OAuth: lib/auth implements this for
 * OAuth 2.1 upstreams; static `headers` from config need no provider.
 */
export interface AuthProvider {
  /** Authorization header value for the next request, if any (e.g. `Bearer …`). */
  authorization(): Promise<string | undefined>
  /**
   * Called with a 401 or 403 response. Resolves 'retry' when new credentials were obtained and the
   * request should be sent again (the transport bounds the retries), 'fail' otherwise.
   */
  onAuthChallenge(response: Response, request: { url: string; method: string }): Promise<'retry' | 'fail'>
  /**
   * Optional: headers besides Authorization for one request, asked right after authorization()
   * (e.g. a fresh RFC 9449 `DPoP` proof bound to this URL and method).
   */
  requestHeaders?(request: { url: string; method: string }): Promise<Record<string, string>>
}
