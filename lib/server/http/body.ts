/**
 * The HTTP edge of the MCP endpoint before any JSON-RPC is seen: the Accept check, plus the
 * builders of JSON Responses the other http/ modules share: JSON-RPC errors and JSON answers (the
 * body itself is read in body-read.ts).
 */
import { RPC, RpcError } from '../../errors/index.ts'
import { hasFeature, HTTP_STATUS, JSONRPC_VERSION, MIME, restoreRawIds, type RequestId, type Revision } from '../../wire/index.ts'

/**
 * A JSON-RPC error Response. `id` omitted → an id-less error object, which the spec allows for
 * transport-level refusals (2025-11-25 basic/transports.mdx: "a JSON-RPC error response that has
 * no id"); the schema's JSONRPCErrorResponse makes `id` optional in 2025-11-25 and 2026-07-28.
 */
export function rpcErrorResponse(status: number, error: RpcError, id?: RequestId | null, headers?: HeadersInit): Response {
  const body: Record<string, unknown> = { jsonrpc: JSONRPC_VERSION }
  if (id !== undefined && id !== null) body.id = id
  body.error = error.toRpc()
  const out = new Headers(headers)
  out.set('content-type', MIME.JSON)
  return new Response(restoreRawIds(JSON.stringify(body)), { status, headers: out })
}

/**
 * A JSON answer (a message or a batch's array); nothing to answer is 202 Accepted. `prebuilt`:
 * `headers` with the JSON Content-Type, built once by jsonHeaders for headers that do not change
 * between answers (a legacy session's id); Response copies them, and building a Response from a
 * Headers costs about half of building it from a fresh object.
 */
export function jsonResponse(body: unknown, status: number, headers: Record<string, string> = {}, prebuilt?: Headers): Response {
  if (body === undefined) return new Response(null, { status: HTTP_STATUS.ACCEPTED, headers })
  return new Response(restoreRawIds(JSON.stringify(body)), { status, headers: prebuilt ?? { ...headers, 'content-type': MIME.JSON } })
}

/** The headers of jsonResponse's JSON answers for `headers`, to build once and pass as its `prebuilt`. */
export function jsonHeaders(headers: Record<string, string>): Headers {
  return new Headers({ ...headers, 'content-type': MIME.JSON })
}

/**
 * Does the request's Accept admit `mime`? RFC 9110 section 12.5.1 media ranges: `type/subtype`,
 * `type/*` and `*\/*` match; `q=0` excludes. A missing Accept means "anything" (RFC 9110).
 */
export function accepts(request: Request, mime: string): boolean {
  const header = request.headers.get('accept')
  if (header === null || header.trim() === '') return true
  const [type, subtype] = mime.toLowerCase().split('/')
  let best: { specificity: number; q: number } | undefined
  for (const range of header.split(',')) {
    const [media, ...params] = range.split(';')
    const [rangeType, rangeSub] = (media ?? '').trim().toLowerCase().split('/')
    if (rangeType === undefined || rangeSub === undefined) continue
    const specificity =
      rangeType === type && rangeSub === subtype
        ? 2
        : rangeType === type && rangeSub === '*'
          ? 1
          : rangeType === '*' && rangeSub === '*'
            ? 0
            : -1
    if (specificity < 0) continue
    const qParam = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('q='))
    const q = qParam === undefined ? 1 : Number(qParam.slice(2))
    if (best === undefined || specificity > best.specificity) best = { specificity, q: Number.isFinite(q) ? q : 0 }
  }
  return best !== undefined && best.q > 0
}

/**
 * The Accept rule of each request shape, or a 406 Response:
 * - POST, 2025-03-26 and later (both eras): MUST list `application/json` and `text/event-stream`
 *   (2025-11-25 basic/transports.mdx "Sending Messages"; 2026-07-28 streamable-http.mdx).
 * - POST, 2024-11-05 (HTTP+SSE message endpoint): no Accept rule, so none is enforced.
 * - GET: MUST list `text/event-stream` (2025-11-25 "Listening for Messages").
 * Tolerance follows HTTP: wildcards count and an absent Accept admits everything.
 */
export function checkAccept(request: Request, revision: Revision, memo: AcceptMemo): Response | undefined {
  const rule = request.method === 'GET' ? ACCEPT_GET : hasFeature(revision, 'streamableHttp') ? ACCEPT_POST : undefined
  if (rule === undefined) return undefined
  // A host sends the same Accept on every request: the last value that passed is remembered.
  const header = request.headers.get('accept')
  if (header !== null && header === memo[rule.shape]) return undefined
  const missing = rule.needed.filter((mime) => !accepts(request, mime))
  if (missing.length === 0) {
    if (header !== null) memo[rule.shape] = header
    return undefined
  }
  return rpcErrorResponse(
    HTTP_STATUS.NOT_ACCEPTABLE,
    new RpcError(
      RPC.INVALID_REQUEST,
      `Not Acceptable: the Accept header must list ${rule.needed.join(' and ')} (missing ${missing.join(', ')})`,
    ),
  )
}

/** The media types one request shape must accept. */
interface AcceptRule {
  readonly shape: 'get' | 'post'
  readonly needed: readonly string[]
}
const ACCEPT_GET: AcceptRule = { shape: 'get', needed: [MIME.SSE] }
const ACCEPT_POST: AcceptRule = { shape: 'post', needed: [MIME.JSON, MIME.SSE] }

/** The last Accept value found to pass, per request shape: one per handler (createHttpHandler), never shared. */
export type AcceptMemo = { get?: string; post?: string }
