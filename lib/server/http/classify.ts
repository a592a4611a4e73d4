/**
 * Which era and revision one HTTP request at a dual-era endpoint belongs to (2026-07-28 basic/versioning.mdx
 * "Backward Compatibility with Initialization-Based Versions"); pure.
 * Order: GET/DELETE → legacy; modern header or `_meta` → modern; array → 2025-03-26 batch; `initialize`
 * → handshake; `Mcp-Session-Id` → that session; legacy header → legacy; no header → 2025-03-26 unless
 * the body carries modern `_meta` (-32020); unknown header value → -32022.
 */
import { RPC, RpcError } from '../../errors/index.ts'
import { rpcErrorResponse } from './body.ts'
import {
  HTTP_STATUS,
  HEADER,
  HTTP_DEFAULT_LEGACY_REVISION,
  META,
  REVISIONS,
  headerMismatch,
  isLegacyRevision,
  isModernRevision,
  isRevision,
  recoverId,
  unsupportedVersion,
  type LegacyRevision,
  type ModernRevision,
  type RequestId,
  type Revision,
} from '../../wire/index.ts'

export interface ClassifyInput {
  /** HTTP method (upper case as fetch gives it). */
  readonly method: string
  readonly headers: Headers
  /** Parsed JSON body of a POST (readJsonBody); ignored for other methods. */
  readonly body?: unknown
  /** Revisions this endpoint serves (default: all five). */
  readonly supported?: readonly Revision[]
  /** The revision negotiated by the session the request names, when the caller found one. */
  readonly sessionRevision?: LegacyRevision
  /** settings.maxBatchLength. */
  readonly maxBatchLength?: number
  /** The session id header as the caller already read it with headerValue (absent: read here). */
  readonly sessionId?: string | undefined
}

export type HttpVerdict =
  /** Legacy standalone SSE stream, or a resume when `lastEventId` is set (2025-11-25 "Resumability"). */
  | { readonly kind: 'legacy-get'; readonly sessionId?: string; readonly lastEventId?: string; readonly revision: LegacyRevision }
  /** Legacy session termination (2025-11-25 "Session Management" 5). */
  | { readonly kind: 'legacy-delete'; readonly sessionId?: string }
  /** `initialize` over legacy Streamable HTTP: negotiate among legacy revisions only. */
  | { readonly kind: 'legacy-initialize'; readonly message: Record<string, unknown> }
  /** One legacy message (request, notification or response) under `revision`. */
  | { readonly kind: 'legacy'; readonly revision: LegacyRevision; readonly sessionId?: string; readonly message: Record<string, unknown> }
  /** A 2025-03-26 JSON-RPC batch (2025-03-26 basic/transports.mdx; removed in 2025-06-18). */
  | { readonly kind: 'legacy-batch'; readonly revision: '2025-03-26'; readonly sessionId?: string; readonly messages: unknown[] }
  /** Stateless 2026 request: validate Mcp-* headers (modern-headers.ts) and `_meta` next. */
  | { readonly kind: 'modern'; readonly revision: ModernRevision; readonly message: Record<string, unknown> }
  /** Refuse: answer `status` with `error` (echoing `id` when one could be read). */
  | { readonly kind: 'reject'; readonly status: number; readonly error: RpcError; readonly id?: RequestId; readonly allow?: string }

/** Classify one request. Never throws; a refusal is a `reject` verdict. */
export function classifyHttpRequest(input: ClassifyInput): HttpVerdict {
  const supported = input.supported ?? REVISIONS
  const servesLegacy = servesLegacyOf(supported)
  const sessionId = 'sessionId' in input ? input.sessionId : headerValue(input.headers, HEADER.SESSION_ID)
  const versionHeader = headerValue(input.headers, HEADER.PROTOCOL_VERSION)

  const body = input.method === 'POST' ? input.body : undefined
  const isStreamMethod = input.method === 'GET' || input.method === 'DELETE'
  // 2026-07-28 streamable-http.mdx "Backward Compatibility": a modern-only server answers 405.
  if ((isStreamMethod && !servesLegacy) || (!isStreamMethod && input.method !== 'POST')) {
    return methodNotAllowed(servesLegacy ? 'GET, POST, DELETE' : 'POST')
  }
  // A header naming a revision this endpoint does not serve: 400 (2025-11-25 "Protocol Version
  // Header": MUST), with the 2026 error so modern clients can pick from `supported`.
  if (versionHeader !== undefined && (!isRevision(versionHeader) || !supported.includes(versionHeader))) {
    return reject(HTTP_STATUS.BAD_REQUEST, unsupportedVersion(supported, versionHeader), body)
  }

  if (isStreamMethod) {
    // GET streams and DELETE are legacy-only mechanisms; a 2026 request has none (2026-07-28
    // basic/transports/streamable-http.mdx "Backward Compatibility").
    if (isModernRevision(versionHeader)) return methodNotAllowed('GET, POST, DELETE')
    if (input.method === 'DELETE') return { kind: 'legacy-delete', ...(sessionId && { sessionId }) }
    const lastEventId = headerValue(input.headers, HEADER.LAST_EVENT_ID)
    const revision = input.sessionRevision ?? legacyHeaderRevision(versionHeader) ?? HTTP_DEFAULT_LEGACY_REVISION
    return { kind: 'legacy-get', revision, ...(sessionId && { sessionId }), ...(lastEventId && { lastEventId }) }
  }

  if (Array.isArray(body)) return classifyBatch(input, body, versionHeader, sessionId)
  if (typeof body !== 'object' || body === null) {
    return reject(
      HTTP_STATUS.BAD_REQUEST,
      new RpcError(RPC.INVALID_REQUEST, 'Invalid Request: the body must be a JSON-RPC message object'),
      body,
    )
  }
  const message = body as Record<string, unknown>
  const metaVersion = bodyProtocolVersion(message)

  if (isModernRevision(versionHeader)) return { kind: 'modern', revision: versionHeader, message }
  if (versionHeader === undefined && metaVersion !== undefined) {
    // 2026-07-28 streamable-http.mdx "Server Validation": a required header is missing.
    return reject(
      HTTP_STATUS.BAD_REQUEST,
      headerMismatch(`the ${HEADER.PROTOCOL_VERSION} header is required (body _meta names ${JSON.stringify(metaVersion)})`),
      body,
    )
  }
  if (!servesLegacy) {
    // A modern-only server MUST reject a request without the header (streamable-http.mdx).
    return reject(HTTP_STATUS.BAD_REQUEST, headerMismatch(`the ${HEADER.PROTOCOL_VERSION} header is required`), body)
  }
  if (message.method === 'initialize') return { kind: 'legacy-initialize', message }
  if (sessionId !== undefined) {
    const revision = input.sessionRevision ?? legacyHeaderRevision(versionHeader) ?? HTTP_DEFAULT_LEGACY_REVISION
    return { kind: 'legacy', revision, sessionId, message }
  }
  if (metaVersion !== undefined && metaVersion !== versionHeader) {
    // The body says modern, the header says legacy: the body is the source of truth (2026-07-28
    // basic/transports/index.mdx), so the pair is a HeaderMismatch, not a legacy request.
    return reject(
      HTTP_STATUS.BAD_REQUEST,
      headerMismatch(`${HEADER.PROTOCOL_VERSION} ${JSON.stringify(versionHeader)} does not match _meta ${JSON.stringify(metaVersion)}`),
      body,
    )
  }
  // 2025-11-25 "Protocol Version Header": absent and no other way to tell → assume 2025-03-26.
  const revision = legacyHeaderRevision(versionHeader) ?? HTTP_DEFAULT_LEGACY_REVISION
  return { kind: 'legacy', revision, message }
}

/** A `reject` verdict echoing the body's id when one can be read (read only for a refusal). */
function reject(status: number, error: RpcError, body: unknown): HttpVerdict {
  const id = recoverId(body) ?? undefined
  return { kind: 'reject', status, error, ...(id !== undefined && { id }) }
}

/** Whether a list of served revisions has a legacy one, per list: a handler passes the same list on every request. */
const SERVES_LEGACY = new WeakMap<readonly Revision[], boolean>()
function servesLegacyOf(supported: readonly Revision[]): boolean {
  let serves = SERVES_LEGACY.get(supported)
  if (serves === undefined) SERVES_LEGACY.set(supported, (serves = supported.some(isLegacyRevision)))
  return serves
}

function classifyBatch(
  input: ClassifyInput,
  body: unknown[],
  versionHeader: string | undefined,
  sessionId: string | undefined,
): HttpVerdict {
  const revision = isModernRevision(versionHeader)
    ? versionHeader
    : (input.sessionRevision ?? legacyHeaderRevision(versionHeader) ?? HTTP_DEFAULT_LEGACY_REVISION)
  if (revision !== '2025-03-26') {
    return reject(
      HTTP_STATUS.BAD_REQUEST,
      new RpcError(RPC.INVALID_REQUEST, `Invalid Request: JSON-RPC batches are not supported in revision ${revision} (only 2025-03-26)`),
      body,
    )
  }
  // JSON-RPC 2.0 section 6: an empty array is a single Invalid Request.
  if (body.length === 0) return reject(HTTP_STATUS.BAD_REQUEST, new RpcError(RPC.INVALID_REQUEST, 'Invalid Request: empty batch'), body)
  if (input.maxBatchLength !== undefined && body.length > input.maxBatchLength) {
    return reject(
      HTTP_STATUS.BAD_REQUEST,
      new RpcError(
        RPC.INVALID_REQUEST,
        `Invalid Request: batch of ${body.length} messages exceeds ${input.maxBatchLength} (maxBatchLength)`,
      ),
      body,
    )
  }
  // 2025-03-26 basic/lifecycle.mdx: the initialize request MUST NOT be part of a batch.
  if (body.some((m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize')) {
    return reject(
      HTTP_STATUS.BAD_REQUEST,
      new RpcError(RPC.INVALID_REQUEST, 'Invalid Request: initialize must not be part of a batch'),
      body,
    )
  }
  return { kind: 'legacy-batch', revision: '2025-03-26', messages: body, ...(sessionId && { sessionId }) }
}

/** The body's `_meta["io.modelcontextprotocol/protocolVersion"]` when it is a string. */
function bodyProtocolVersion(message: Record<string, unknown>): string | undefined {
  const params = message.params
  if (typeof params !== 'object' || params === null) return undefined
  const meta = (params as { _meta?: unknown })._meta
  if (typeof meta !== 'object' || meta === null) return undefined
  const value = (meta as Record<string, unknown>)[META.PROTOCOL_VERSION]
  return typeof value === 'string' ? value : undefined
}

/** A header value with RFC 9110 optional whitespace removed; undefined when absent or empty. */
export function headerValue(headers: Headers, name: string): string | undefined {
  const value = headers.get(name)?.trim()
  return value === undefined || value === '' ? undefined : value
}

function legacyHeaderRevision(value: string | undefined): LegacyRevision | undefined {
  return isLegacyRevision(value) ? value : undefined
}

/** The Response for a `reject` verdict (id echoed when known; `Allow` on 405). */
export function rejectResponse(verdict: Extract<HttpVerdict, { kind: 'reject' }>): Response {
  return rpcErrorResponse(verdict.status, verdict.error, verdict.id, verdict.allow === undefined ? undefined : { allow: verdict.allow })
}

function methodNotAllowed(allow: string): HttpVerdict {
  return { kind: 'reject', status: HTTP_STATUS.METHOD_NOT_ALLOWED, error: new RpcError(RPC.INVALID_REQUEST, 'Method Not Allowed'), allow }
}
