/**
 * A POST body, read and parsed: 415 unless `Content-Type: application/json` (which also refuses
 * CORS "simple" cross-site posts: text/plain, forms), 413 past `maxFrameBytes` (from Content-Length
 * before reading; a chunked body, which has none, is counted while streaming so it cannot exceed
 * it), 408 past `bodyTimeoutMs`, 400 + -32700 for invalid UTF-8, JSON nested deeper than
 * `maxJsonDepth`, or no JSON at all. startBody begins the read and leaves its one wait to the
 * caller (the handler's own async frame: every POST comes here, and each frame and hop costs),
 * whose read's `bytes()` and then parseJsonBody finish it; readBody does the reading for callers
 * that need no such care (/v1).
 */
import { RPC, RpcError } from '../../errors/index.ts'
import type { Deadline, DeadlineQueue } from '../../session/index.ts'
import { HTTP_STATUS, MIME, checkDepth, isJsonMediaType, keepRawIds } from '../../wire/index.ts'
import { rpcErrorResponse } from './body.ts'

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

export type BodyFailure = { readonly ok: false; readonly response: Response }
export type ReadBodyResult = { readonly ok: true; readonly value: unknown } | BodyFailure
export type BodyBytes = { readonly ok: true; readonly value: Uint8Array } | BodyFailure

/** The rest of the request is never read: the connection cannot carry another one. */
const CLOSE = { connection: 'close' }

/** Begin reading a POST's body: a refusal now (media type when asked, declared size), or the read under way. */
export function startBody(request: Request, options: ReadBodyOptions, json = false): BodyRead | BodyFailure {
  if (json && !options.mediaTypeChecked && !isJsonMediaType(request.headers.get('content-type'))) {
    return fail(
      HTTP_STATUS.UNSUPPORTED_MEDIA_TYPE,
      RPC.INVALID_REQUEST,
      `Unsupported Media Type: POST bodies must be Content-Type: ${MIME.JSON}`,
    )
  }
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > options.maxFrameBytes) return tooLarge(options.maxFrameBytes)
  // With a Content-Length (checked above) the server reads exactly that many bytes, so the whole
  // body is taken at once: Bun's buffered path, far cheaper than a stream reader.
  return new BodyRead(declared !== null ? request.bytes() : readCapped(request, options.maxFrameBytes), options)
}

/**
 * One body being read, its own entry in the handler's deadline queue (or a timer of its own):
 * `settled` gives the bytes, 'timeout' once the entry comes due, or whatever the read failed with
 * (it never rejects). The caller awaits it once and hands what it gave to bytes().
 */
export class BodyRead implements Deadline {
  due = 0
  readonly settled: Promise<unknown>
  readonly #resolve: (outcome: unknown) => void
  #timer: ReturnType<typeof setTimeout> | undefined

  constructor(
    private readonly reading: Promise<Uint8Array | undefined>,
    private readonly options: ReadBodyOptions,
  ) {
    const { promise, resolve } = Promise.withResolvers<unknown>()
    this.settled = promise
    this.#resolve = resolve
    // A failed read settles with its error: no rejection, and no closure to tell it apart.
    reading.then(resolve, resolve)
    const ms = options.bodyTimeoutMs ?? 0
    if (ms <= 0) return
    const { deadlines } = options
    if (deadlines === undefined) this.#timer = setTimeout(resolve, ms, 'timeout')
    else if (deadlines.ms !== ms) throw new RangeError(`a deadline queue of ${deadlines.ms} ms given for ${ms} ms`)
    else deadlines.add(this)
  }

  expire(): void {
    this.#resolve('timeout')
  }

  /** What `settled` gave: the body's bytes, or the 408, 413 or 400 that answers it (408 and 413 close the connection). */
  bytes(outcome: unknown): BodyBytes {
    this.options.deadlines?.delete(this)
    clearTimeout(this.#timer)
    if (outcome instanceof Uint8Array) return { ok: true, value: outcome }
    if (outcome === undefined) return tooLarge(this.options.maxFrameBytes)
    if (outcome === 'timeout') {
      this.reading.catch(() => {})
      return fail(
        HTTP_STATUS.REQUEST_TIMEOUT,
        RPC.INVALID_REQUEST,
        `Request Timeout: the body did not arrive within ${this.options.bodyTimeoutMs} ms (httpBodyTimeoutMs)`,
        CLOSE,
      )
    }
    return fail(HTTP_STATUS.BAD_REQUEST, RPC.INVALID_REQUEST, 'Bad Request: the body could not be read (the connection ended)', CLOSE)
  }
}

/** The body's JSON: 400 + -32700 for invalid UTF-8, nesting past maxJsonDepth, or text that is no JSON. */
export function parseJsonBody(read: BodyBytes, options: ReadBodyOptions): ReadBodyResult {
  if (!read.ok) return read
  let text: string
  try {
    text = UTF8.decode(read.value)
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

/** The body's bytes (startBody, its wait, bytes()). */
export async function readBody(request: Request, options: ReadBodyOptions): Promise<BodyBytes> {
  const read = startBody(request, options)
  return read instanceof BodyRead ? read.bytes(await read.settled) : read
}

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

function tooLarge(maxFrameBytes: number): BodyFailure {
  return fail(
    HTTP_STATUS.PAYLOAD_TOO_LARGE,
    RPC.INVALID_REQUEST,
    `Payload Too Large: the body exceeds ${maxFrameBytes} bytes (maxFrameBytes)`,
    CLOSE,
  )
}

function fail(status: number, code: number, message: string, headers?: HeadersInit): BodyFailure {
  return { ok: false, response: rpcErrorResponse(status, new RpcError(code, message), undefined, headers) }
}
