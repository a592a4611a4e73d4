/**
 * Builders for the JSON-RPC errors whose code, `data` shape or HTTP status depend on the revision.
 * Call sites never pick -32002 vs -32602 or a 2026-only code themselves (a code chosen by hand goes stale when the
 * revision changes); they call
 * these with the peer's revision. Codes come from lib/errors RPC, each cited there.
 */
import { RPC, RpcError } from '../errors/index.ts'
import { HTTP_STATUS, isModernRevision, type Revision } from './constants.ts'

/**
 * The one table of HTTP statuses the spec fixes for a JSON-RPC error on 2026-07-28 Streamable HTTP:
 * an unknown method is 404 (basic/transports/streamable-http.mdx), a header mismatch, a missing
 * client capability and an unsupported version are 400 (streamable-http.mdx "Server Validation",
 * basic/index.mdx, basic/versioning.mdx). Every other error rides a 200 unless its builder says so.
 */
const HTTP_STATUS_OF_CODE: Readonly<Record<number, number>> = {
  [RPC.METHOD_NOT_FOUND]: HTTP_STATUS.NOT_FOUND,
  [RPC.HEADER_MISMATCH]: HTTP_STATUS.BAD_REQUEST,
  [RPC.MISSING_CLIENT_CAPABILITY]: HTTP_STATUS.BAD_REQUEST,
  [RPC.UNSUPPORTED_PROTOCOL_VERSION]: HTTP_STATUS.BAD_REQUEST,
}

/** The HTTP status a modern (2026-07-28) answer carrying this error code must have, if the spec fixes one. */
export function httpStatusOf(code: number): number | undefined {
  return HTTP_STATUS_OF_CODE[code]
}

/**
 * Resource not found: -32002 up to 2025-11-25 (server/resources.mdx "Error Handling"); 2026-07-28
 * reserves -32002 and uses -32602 (2026-07-28 server/resources.mdx "Error Handling"). `data.uri` both ways.
 */
export function resourceNotFound(revision: Revision, uri: string): RpcError {
  const code = isModernRevision(revision) ? RPC.INVALID_PARAMS : RPC.RESOURCE_NOT_FOUND_LEGACY
  return new RpcError(code, `Resource not found: ${uri}`, { uri })
}

/** UnsupportedProtocolVersionError (2026-07-28 basic/versioning.mdx): -32022, HTTP 400. */
export function unsupportedVersion(supported: readonly string[], requested: string): RpcError {
  return new RpcError(
    RPC.UNSUPPORTED_PROTOCOL_VERSION,
    `Unsupported protocol version: ${requested} (supported: ${supported.join(', ')})`,
    { supported: [...supported], requested },
    httpStatusOf(RPC.UNSUPPORTED_PROTOCOL_VERSION),
  )
}

/*
 * -32020, -32021 and -32601 are built only here (pinned by test/lib/wire-builders.test.ts): the code,
 * the data's shape and the HTTP status are the builder's; a call site may word the message.
 */

/** HeaderMismatchError (2026-07-28 streamable-http.mdx "Server Validation"): -32020, HTTP 400. */
export function headerMismatch(message: string, data?: Record<string, unknown>): RpcError {
  return new RpcError(RPC.HEADER_MISMATCH, `Header mismatch: ${message}`, data, httpStatusOf(RPC.HEADER_MISMATCH))
}

/** MissingRequiredClientCapabilityError (2026-07-28 basic/index.mdx): -32021, `data.requiredCapabilities`, HTTP 400. */
export function missingCapability(required: Record<string, unknown>, message?: string): RpcError {
  return new RpcError(
    RPC.MISSING_CLIENT_CAPABILITY,
    message ?? `Missing required client capability: ${Object.keys(required).join(', ') || '(none named)'}`,
    { requiredCapabilities: required },
    httpStatusOf(RPC.MISSING_CLIENT_CAPABILITY),
  )
}

/**
 * -32601; 2026-07-28 streamable-http.mdx: a server's answer to an unknown method is HTTP 404
 * (`revision` is the answering server's; a client answering a server's request passes none: its
 * answer rides no status of its own). `refusal` words a known method's refusal (a tool refusing
 * the task mode, a recording without the request) with its own message and data.
 */
export function methodNotFound(
  method: string,
  revision?: Revision,
  refusal?: { message: string; data?: Record<string, unknown> },
): RpcError {
  return new RpcError(
    RPC.METHOD_NOT_FOUND,
    refusal ? refusal.message : `Method not found: ${method}`,
    refusal ? refusal.data : { method },
    revision !== undefined && isModernRevision(revision) ? httpStatusOf(RPC.METHOD_NOT_FOUND) : undefined,
  )
}

/**
 * -32602. `malformedRequest` marks the 2026 cases that MUST be HTTP 400 (missing required `_meta`
 * keys, 2026-07-28 basic/index.mdx "`_meta`"); other invalid params carry no prescribed status.
 */
export function invalidParams(message: string, data?: Record<string, unknown>, malformedRequest = false): RpcError {
  return new RpcError(RPC.INVALID_PARAMS, message, data, malformedRequest ? HTTP_STATUS.BAD_REQUEST : undefined)
}

/** URLElicitationRequiredError (2025-11-25 only; reserved in 2026): -32042 with `data.elicitations`. */
export function urlElicitationRequired(elicitations: readonly Record<string, unknown>[]): RpcError {
  return new RpcError(RPC.URL_ELICITATION_REQUIRED, 'URL elicitation required', { elicitations: [...elicitations] })
}
