/**
 * 2026-07-28 request metadata headers checked against the body (SEP-2243; streamable-http.mdx
 * "Server Validation"): the body is the truth and every mirrored header must agree, else HTTP 400 +
 * -32020, so a proxy routing on headers and this server never act on different requests. Names are
 * case-insensitive; values are trimmed (RFC 9110 section 5.5) and base64-sentinel decoded before comparing.
 */
import { RpcError } from '../../errors/index.ts'
import {
  HTTP_STATUS,
  isRecord,
  HEADER,
  META,
  decodeHeaderValue,
  findHeaderParams,
  headerMatchesValue,
  headerMismatch,
  mcpNameSource,
  requiresMcpName,
  valueAt,
} from '../../wire/index.ts'
import { headerValue } from './classify.ts'

export interface ModernHeaderOptions {
  /**
   * For `tools/call`: the called tool's `inputSchema`, whose `x-mcp-header` properties define the
   * `Mcp-Param-*` headers to check. A schema with invalid annotations defines none (clients drop
   * such tools, streamable-http.mdx "Schema Extension"); the tool registry should refuse them.
   */
  readonly toolInputSchema?: unknown
}

export type ModernHeaderResult =
  | { readonly ok: true }
  /** `error` is -32020 with httpStatus 400; `header` names the offending header. */
  | { readonly ok: false; readonly status: typeof HTTP_STATUS.BAD_REQUEST; readonly header: string; readonly error: RpcError }

/** Validate `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` against `message`. */
export function validateModernHeaders(
  headers: Headers,
  message: Record<string, unknown>,
  options: ModernHeaderOptions = {},
): ModernHeaderResult {
  const method = typeof message.method === 'string' ? message.method : undefined
  const params = isRecord(message.params) ? message.params : undefined
  const isRequest = 'id' in message

  const version = headerValue(headers, HEADER.PROTOCOL_VERSION)
  const metaVersion = isRecord(params?._meta) ? params._meta[META.PROTOCOL_VERSION] : undefined
  if (version === undefined) return mismatch(HEADER.PROTOCOL_VERSION, `the ${HEADER.PROTOCOL_VERSION} header is required`)
  // A body without the _meta key is a -32602 "missing required _meta" for the engine to answer
  // (2026-07-28 basic/index.mdx), not a header problem.
  if (metaVersion !== undefined && metaVersion !== version) {
    return mismatch(
      HEADER.PROTOCOL_VERSION,
      `${HEADER.PROTOCOL_VERSION} header value ${JSON.stringify(version)} does not match body _meta value ${JSON.stringify(metaVersion)}`,
    )
  }

  // "Mcp-Method … Required For: All requests"; on a notification it is checked only when sent.
  const methodHeader = headerValue(headers, HEADER.METHOD)
  if (methodHeader === undefined) {
    if (isRequest) return mismatch(HEADER.METHOD, `the ${HEADER.METHOD} header is required`)
  } else if (methodHeader !== method) {
    return mismatch(
      HEADER.METHOD,
      `${HEADER.METHOD} header value ${JSON.stringify(methodHeader)} does not match body method ${JSON.stringify(method)}`,
    )
  }

  if (method !== undefined && requiresMcpName(method)) {
    const failure = compareMirrored(HEADER.NAME, headerValue(headers, HEADER.NAME), mcpNameSource(method, params), 'body value')
    if (failure !== undefined) return failure
  }

  if (method === 'tools/call' && options.toolInputSchema !== undefined) {
    const found = findHeaderParams(options.toolInputSchema)
    if ('ok' in found) {
      for (const param of found.ok) {
        const argument = valueAt(params?.arguments, param.path)
        const failure = compareMirrored(param.header, headerValue(headers, param.header), argument, `argument ${param.path.join('.')}`)
        if (failure !== undefined) return failure
      }
    }
  }
  return { ok: true }
}

// The streamable-http.mdx table: value present → header required and equal; value absent or null
// → header must not be expected, and a header with no body value to match is itself a mismatch.
function compareMirrored(header: string, raw: string | undefined, bodyValue: unknown, what: string): ModernHeaderResult | undefined {
  const absent = bodyValue === undefined || bodyValue === null
  if (raw === undefined) return absent ? undefined : mismatch(header, `the ${header} header is required when the ${what} is present`)
  if (absent) return mismatch(header, `${header} header is present but the ${what} is absent`)
  try {
    if (headerMatchesValue(raw, bodyValue)) return undefined
    return mismatch(
      header,
      `${header} header value ${JSON.stringify(decodeHeaderValue(raw))} does not match ${what} ${JSON.stringify(bodyValue)}`,
    )
  } catch (error) {
    // decodeHeaderValue throws -32020 for bad base64, bad padding, non-UTF-8 or bad characters.
    if (!(error instanceof RpcError)) throw error
    return { ok: false, status: HTTP_STATUS.BAD_REQUEST, header, error }
  }
}

function mismatch(header: string, message: string): ModernHeaderResult {
  return { ok: false, status: HTTP_STATUS.BAD_REQUEST, header, error: headerMismatch(message) }
}
