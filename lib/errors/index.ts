/**
 * The one error tree of mcpx. `McpxError.code` is the stable string scripts branch on; `RpcError`
 * is a JSON-RPC error received from or sent to a peer and keeps its numeric code. Local failures
 * (timeouts, spawn) never wear a JSON-RPC code (2026-07-28 basic/index.mdx "local errors").
 */
import type { ErrorCode } from './codes.ts'
import { RPC } from './rpc-codes.ts'

export { ERROR_CODES, type ErrorCode } from './codes.ts'
export { RPC, type RpcCode } from './rpc-codes.ts'

/** Base of every error mcpx raises on purpose. */
export class McpxError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly data?: Record<string, unknown>,
    options?: ErrorOptions,
  ) {
    super(message, options)
    this.name = new.target.name
  }

  toJSON(): McpxErrorJson {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data }
  }
}

/** An McpxError as JSON (the CLI's error line, the daemon's /v1 error bodies); `rpcCode` for a peer's JSON-RPC error. */
export interface McpxErrorJson {
  code: ErrorCode
  message: string
  rpcCode?: number
  data?: Record<string, unknown>
}

/** A JSON-RPC error from or to a peer. `rpcData` is the error object's `data` member verbatim. */
export class RpcError extends McpxError {
  constructor(
    readonly rpcCode: number,
    message: string,
    readonly rpcData?: unknown,
    /** Transport status to use when this error is answered over HTTP (2026 mandates 400/404 for some). */
    readonly httpStatus?: number,
  ) {
    super('PEER', message, rpcData !== undefined && isRecord(rpcData) ? rpcData : rpcData === undefined ? undefined : { value: rpcData })
  }

  /** Its JSON keeps the numeric code: a script (or the CLI across the daemon's /v1) can tell -32601 from -32602. */
  override toJSON(): McpxErrorJson {
    const { code, message, data } = super.toJSON()
    return data === undefined ? { code, message, rpcCode: this.rpcCode } : { code, message, rpcCode: this.rpcCode, data }
  }

  /** The JSON-RPC `error` member for this error. */
  toRpc(): { code: number; message: string; data?: unknown } {
    return this.rpcData === undefined
      ? { code: this.rpcCode, message: this.message }
      : { code: this.rpcCode, message: this.message, data: this.rpcData }
  }

  /** Rebuild from a received JSON-RPC error object (by shape, never by message text). */
  static fromWire(error: { code: number; message?: string; data?: unknown }): RpcError {
    return new RpcError(error.code, error.message ?? `JSON-RPC error ${error.code}`, error.data)
  }
}

/**
 * Map any thrown value to the JSON-RPC error mcpx answers with when acting as a server.
 * RpcError keeps its code; USAGE/NOT_FOUND-like caller mistakes are -32602; everything else is
 * -32603 with `data.mcpxCode` so clients can still branch on the stable code.
 */
export function toRpcError(error: unknown): RpcError {
  if (error instanceof RpcError) return error
  if (error instanceof McpxError) {
    const data = { ...error.data, mcpxCode: error.code }
    if (error.code === 'USAGE' || error.code === 'NOT_FOUND') return new RpcError(RPC.INVALID_PARAMS, error.message, data)
    return new RpcError(RPC.INTERNAL_ERROR, error.message, data)
  }
  const message = error instanceof Error ? error.message : String(error)
  return new RpcError(RPC.INTERNAL_ERROR, `internal error: ${message}`, { mcpxCode: 'INTERNAL' })
}

/** Wrap an unknown thrown value as an McpxError, keeping the original as `cause`. */
export function asMcpxError(error: unknown, fallback: ErrorCode = 'INTERNAL'): McpxError {
  if (error instanceof McpxError) return error
  const message = error instanceof Error ? error.message : String(error)
  return new McpxError(fallback, message, undefined, { cause: error })
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
