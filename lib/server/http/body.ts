/**
 * The HTTP edge of the MCP endpoint before any JSON-RPC is seen: Content-Type and Accept checks,
 * byte-capped body reading (`maxFrameBytes`, checked on Content-Length and while streaming) and
 * JSON parsing, plus the builders of JSON Responses the other http/ modules share: JSON-RPC errors
 * and JSON answers.
 * Requiring `application/json` also refuses CORS "simple" cross-site posts (text/plain, forms).
 */
import { RPC, RpcError } from '../../errors/index.ts'
import {
  hasFeature,
  HTTP_STATUS,
  JSONRPC_VERSION,
  MIME,
  checkDepth,
  isJsonMediaType,
  keepRawIds,
  restoreRawIds,
  type RequestId,
  type Revision,
} from '../../wire/index.ts'
import type { DeadlineQueue } from '../../session/index.ts'
import { BodyWait, withinBodyTimeout } from './timeouts.ts'

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

/** Stateless between calls (no `stream: true`), so one strict decoder serves every request. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

export interface ReadBodyOptions {
  /** settings.maxFrameBytes: the largest body accepted. */
  readonly maxFrameBytes: number
  /** settings.httpBodyTimeoutMs: longest the whole body may take to arrive (0 = unbounded). */
  readonly bodyTimeoutMs?: number
  /** The handler's deadline queue for those bounds (one timer for all its reads); else a timer per read. */
  readonly deadlines?: DeadlineQueue
  /** settings.maxJsonDepth: deeper nesting is refused before parsing (0 = unbounded). */
  readonly maxJsonDepth?: number
  /** The embedder's guard already refused non-JSON bodies (the daemon's security.ts, same isJsonMediaType rule). */
  readonly mediaTypeChecked?: boolean
}

export type ReadBodyResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly response: Response }

/**
 * Read and parse a POST body: 415 unless `Content-Type: application/json`, 413 past
 * `maxFrameBytes` (rejected from Content-Length before reading; a chunked body, which has none, is
 * counted while streaming so it cannot exceed it), 400 + -32700 for invalid UTF-8 or JSON.
 */
export async function readJsonBody(request: Request, options: ReadBodyOptions): Promise<ReadBodyResult> {
  if (!options.mediaTypeChecked && !isJsonMediaType(request.headers.get('content-type'))) {
    return fail(
      HTTP_STATUS.UNSUPPORTED_MEDIA_TYPE,
      RPC.INVALID_REQUEST,
      `Unsupported Media Type: POST bodies must be Content-Type: ${MIME.JSON}`,
    )
  }
  const read = await readBody(request, options)
  if (!read.ok) return read
  const bytes = read.value
  let text: string
  try {
    text = UTF8.decode(bytes)
  } catch {
    return fail(HTTP_STATUS.BAD_REQUEST, RPC.PARSE_ERROR, 'Parse error: body is not valid UTF-8')
  }
  try {
    if (options.maxJsonDepth) checkDepth(text, options.maxJsonDepth)
    return { ok: true, value: keepRawIds(text, JSON.parse(text)) }
  } catch (error) {
    if (error instanceof RpcError) return { ok: false, response: rpcErrorResponse(HTTP_STATUS.BAD_REQUEST, error) }
    return fail(HTTP_STATUS.BAD_REQUEST, RPC.PARSE_ERROR, `Parse error: ${(error as Error).message}`)
  }
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

/**
 * The body's bytes, capped at `maxFrameBytes` and bounded by `bodyTimeoutMs`: 413 past the cap
 * (from Content-Length before reading, else counted while streaming), 408 when it is late; both
 * close the connection (`Connection: close`), since the rest of the body is never read.
 */
export async function readBody(
  request: Request,
  options: ReadBodyOptions,
): Promise<{ readonly ok: true; readonly value: Uint8Array } | { readonly ok: false; readonly response: Response }> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > options.maxFrameBytes) return tooLarge(options.maxFrameBytes)
  // With a Content-Length (checked above) the server reads exactly that many bytes, so the whole
  // body is taken at once: Bun's buffered path, far cheaper than a stream reader.
  const reading = declared !== null ? request.bytes() : readCapped(request, options.maxFrameBytes)
  let bytes: Uint8Array | undefined | 'timeout'
  const { deadlines, bodyTimeoutMs = 0 } = options
  if (deadlines !== undefined && deadlines.ms !== bodyTimeoutMs)
    throw new RangeError(`a deadline queue of ${deadlines.ms} ms given for ${bodyTimeoutMs} ms`)
  try {
    if (deadlines === undefined || bodyTimeoutMs <= 0) bytes = await withinBodyTimeout(reading, bodyTimeoutMs)
    else {
      // The handler's queue (every POST comes here): the wait inline, with no async frame of its own.
      const wait = new BodyWait(reading)
      deadlines.add(wait)
      try {
        bytes = await wait.promise
      } finally {
        deadlines.delete(wait)
      }
    }
  } catch {
    return fail(HTTP_STATUS.BAD_REQUEST, RPC.INVALID_REQUEST, 'Bad Request: the body could not be read (the connection ended)', CLOSE)
  }
  if (bytes === 'timeout') {
    reading.catch(() => {})
    return fail(
      HTTP_STATUS.REQUEST_TIMEOUT,
      RPC.INVALID_REQUEST,
      `Request Timeout: the body did not arrive within ${options.bodyTimeoutMs} ms (httpBodyTimeoutMs)`,
      CLOSE,
    )
  }
  if (bytes === undefined) return tooLarge(options.maxFrameBytes)
  return { ok: true, value: bytes }
}

/** The rest of the request is never read: the connection cannot carry another one. */
const CLOSE = { connection: 'close' }

async function readCapped(request: Request, maxBytes: number): Promise<Uint8Array | undefined> {
  if (request.body === null) return new Uint8Array(0)
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > maxBytes) {
      await reader.cancel().catch(() => {})
      return undefined
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks, total)
}

function tooLarge(maxFrameBytes: number): { readonly ok: false; readonly response: Response } {
  return fail(
    HTTP_STATUS.PAYLOAD_TOO_LARGE,
    RPC.INVALID_REQUEST,
    `Payload Too Large: the body exceeds ${maxFrameBytes} bytes (maxFrameBytes)`,
    CLOSE,
  )
}

function fail(status: number, code: number, message: string, headers?: HeadersInit): { readonly ok: false; readonly response: Response } {
  return { ok: false, response: rpcErrorResponse(status, new RpcError(code, message), undefined, headers) }
}
