/**
 * JSON-RPC 2.0 envelope types and the edge parser. Incoming frames are validated here so nothing
 * past the edge sees a malformed message: bad JSON is -32700, a wrong envelope is -32600.
 * Ids may be strings or numbers everywhere (JSON-RPC 2.0 §4; TR-44).
 */
import * as v from 'valibot'
import { RPC, RpcError } from '../errors/index.ts'
import { JSONRPC_VERSION } from './constants.ts'

export type RequestId = string | number

export interface JsonRpcRequest {
  jsonrpc: '2.0'
  id: RequestId
  method: string
  params?: Record<string, unknown>
}
export interface JsonRpcNotification {
  jsonrpc: '2.0'
  method: string
  params?: Record<string, unknown>
}
export interface JsonRpcResultResponse {
  jsonrpc: '2.0'
  id: RequestId
  result: Record<string, unknown>
}
export interface JsonRpcErrorObject {
  code: number
  message: string
  data?: unknown
}
export interface JsonRpcErrorResponse {
  jsonrpc: '2.0'
  /** null only when the request id could not be determined (JSON-RPC 2.0 §5). */
  id: RequestId | null
  error: JsonRpcErrorObject
}
export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse

const IdSchema = v.union([v.string(), v.pipe(v.number(), v.integer())])
const ParamsSchema = v.optional(v.record(v.string(), v.unknown()))
const RequestSchema = v.object({ jsonrpc: v.literal(JSONRPC_VERSION), id: IdSchema, method: v.string(), params: ParamsSchema })
const NotificationSchema = v.object({ jsonrpc: v.literal(JSONRPC_VERSION), method: v.string(), params: ParamsSchema })
const ResultSchema = v.object({ jsonrpc: v.literal(JSONRPC_VERSION), id: IdSchema, result: v.record(v.string(), v.unknown()) })
const ErrorSchema = v.object({
  jsonrpc: v.literal(JSONRPC_VERSION),
  id: v.nullable(IdSchema),
  error: v.object({ code: v.pipe(v.number(), v.integer()), message: v.string(), data: v.optional(v.unknown()) }),
})

export function isRequest(m: JsonRpcMessage): m is JsonRpcRequest {
  return 'method' in m && 'id' in m && m.id !== undefined
}
export function isNotification(m: JsonRpcMessage): m is JsonRpcNotification {
  return 'method' in m && !('id' in m)
}
export function isResponse(m: JsonRpcMessage): m is JsonRpcResponse {
  return !('method' in m) && ('result' in m || 'error' in m)
}
export function isErrorResponse(m: JsonRpcMessage): m is JsonRpcErrorResponse {
  return isResponse(m) && 'error' in m
}

/** A JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Parse JSON text into a value, or throw RpcError(-32700). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new RpcError(RPC.PARSE_ERROR, `Parse error: ${(error as Error).message}`)
  }
}

/**
 * Validate one JSON-RPC message. Throws RpcError(-32600) naming what is wrong; the error's data
 * carries the request id when one could be read, so the reply can still be correlated.
 */
export function parseMessage(value: unknown): JsonRpcMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new RpcError(RPC.INVALID_REQUEST, 'Invalid Request: a JSON-RPC message must be a JSON object')
  }
  const obj = value as Record<string, unknown>
  const schema = 'method' in obj ? ('id' in obj ? RequestSchema : NotificationSchema) : 'error' in obj ? ErrorSchema : ResultSchema
  const parsed = v.safeParse(schema, obj)
  if (parsed.success) return parsed.output as JsonRpcMessage
  throw new RpcError(RPC.INVALID_REQUEST, `Invalid Request: ${describeIssues(parsed.issues)}`, undefined)
}

/** The id of a (possibly malformed) message when it is a usable JSON-RPC id, else null. */
export function recoverId(value: unknown): RequestId | null {
  if (typeof value !== 'object' || value === null) return null
  const id = (value as { id?: unknown }).id
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null
}

/** One line per valibot issue: `path: message`. */
export function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues
    .map((issue) => {
      const path = issue.path?.map((p) => String(p.key)).join('.')
      return path ? `${path}: ${issue.message}` : issue.message
    })
    .join('; ')
}

export function makeRequest(id: RequestId, method: string, params?: Record<string, unknown>): JsonRpcRequest {
  return params === undefined ? { jsonrpc: JSONRPC_VERSION, id, method } : { jsonrpc: JSONRPC_VERSION, id, method, params }
}
export function makeNotification(method: string, params?: Record<string, unknown>): JsonRpcNotification {
  return params === undefined ? { jsonrpc: JSONRPC_VERSION, method } : { jsonrpc: JSONRPC_VERSION, method, params }
}
export function makeResult(id: RequestId, result: Record<string, unknown>): JsonRpcResultResponse {
  return { jsonrpc: JSONRPC_VERSION, id, result }
}
export function makeError(id: RequestId | null, error: JsonRpcErrorObject): JsonRpcErrorResponse {
  return { jsonrpc: JSONRPC_VERSION, id, error }
}
