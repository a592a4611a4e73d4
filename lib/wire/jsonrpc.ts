/**
 * JSON-RPC 2.0 envelope types and the edge parser. Incoming frames are validated here so nothing
 * past the edge sees a malformed message: bad JSON is -32700, a wrong envelope is -32600.
 * Ids may be strings or numbers everywhere (JSON-RPC 2.0 section 4), server-initiated requests included: an
 * elicitation/create may arrive with `"id": "abc"`.
 */
import type * as v from 'valibot'
import { RPC, RpcError } from '../errors/index.ts'
import { JSONRPC_VERSION } from './constants.ts'
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-bytes.ts'

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
  /** null only when the request id could not be determined (JSON-RPC 2.0 section 5). */
  id: RequestId | null
  error: JsonRpcErrorObject
}
export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse

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
/** A JSON object as mcpx passes it around (members unchecked until a schema or a shaper reads them); the one name for it. */
export type JsonObject = Record<string, unknown>
/** Any JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }

export function isRecord(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Parse JSON text into a value, or throw RpcError(-32700). */
export function parseJson(text: string, maxDepth = 0): unknown {
  if (maxDepth > 0) checkDepth(text, maxDepth)
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new RpcError(RPC.PARSE_ERROR, `Parse error: ${(error as Error).message}`)
  }
}

/**
 * Refuse JSON nested deeper than `maxDepth` (setting maxJsonDepth) before it is parsed: a frame a
 * few hundred kilobytes long can nest 200,000 deep and stall a parser or any walk over the value.
 * One pass over the text, strings skipped; text shorter than the bound, or with fewer `{` and `[`
 * than it, cannot exceed it.
 */
export function checkDepth(text: string, maxDepth: number): void {
  if (text.length <= maxDepth || openersAtMost(text, maxDepth)) return
  let depth = 0
  for (let i = 0, n = text.length; i < n; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i)
        if (d === BACKSLASH) i++
        else if (d === QUOTE) break
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > maxDepth)
        throw new RpcError(
          RPC.PARSE_ERROR,
          `Parse error: JSON nested deeper than ${maxDepth} levels (setting maxJsonDepth, MCPX_MAX_JSON_DEPTH)`,
          { maxJsonDepth: maxDepth },
        )
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--
  }
}

/**
 * True when `text` holds at most `limit` `{` and `[` in all (inside strings too): it cannot nest
 * deeper than that, and the scan is not needed. Found by indexOf, at native speed, for the usual
 * message that has a handful.
 */
function openersAtMost(text: string, limit: number): boolean {
  let count = 0
  for (let at = text.indexOf('{'); at !== -1; at = text.indexOf('{', at + 1)) if (++count > limit) return false
  for (let at = text.indexOf('['); at !== -1; at = text.indexOf('[', at + 1)) if (++count > limit) return false
  return true
}

/**
 * Validate one JSON-RPC message. Throws RpcError(-32600) naming what is wrong; the error's data
 * carries the request id when one could be read, so the reply can still be correlated. Every frame
 * of every transport passes here, so the envelope is checked by hand (a schema library's union
 * builds an issue object for each branch it rejects, on the success path too). The result is a
 * fresh envelope holding only the JSON-RPC members; params, result and error are objects, never
 * arrays (MCP never passes positional params).
 */
export function parseMessage(value: unknown): JsonRpcMessage {
  if (!isRecord(value)) throw new RpcError(RPC.INVALID_REQUEST, 'Invalid Request: a JSON-RPC message must be a JSON object')
  const problem = envelopeProblem(value)
  if (problem !== undefined) throw new RpcError(RPC.INVALID_REQUEST, `Invalid Request: ${problem}`, undefined)
  const { jsonrpc, id, method, params, result, error } = value as Record<string, never>
  if (method !== undefined) {
    const message: Record<string, unknown> = id === undefined ? { jsonrpc, method } : { jsonrpc, id, method }
    if (params !== undefined) message.params = params
    return message as unknown as JsonRpcMessage
  }
  if (error !== undefined) return { jsonrpc, id, error: errorObject(error) }
  return { jsonrpc, id, result }
}

function isId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value))
}

/** Why `obj` is no JSON-RPC 2.0 request, notification or response (`path: what`), or undefined. */
function envelopeProblem(obj: Record<string, unknown>): string | undefined {
  if (obj.jsonrpc !== JSONRPC_VERSION) return `jsonrpc: expected "${JSONRPC_VERSION}" but received ${describe(obj.jsonrpc)}`
  if ('method' in obj) {
    if (typeof obj.method !== 'string') return `method: expected a string but received ${describe(obj.method)}`
    if (obj.params !== undefined && !isRecord(obj.params)) return `params: expected an object but received ${describe(obj.params)}`
    if ('id' in obj && !isId(obj.id)) return `id: expected a string or an integer but received ${describe(obj.id)}`
    return undefined
  }
  if ('error' in obj) {
    if (obj.id !== null && !isId(obj.id)) return `id: expected a string, an integer or null but received ${describe(obj.id)}`
    const error = obj.error
    if (!isRecord(error)) return `error: expected an object but received ${describe(error)}`
    if (typeof error.code !== 'number' || !Number.isInteger(error.code))
      return `error.code: expected an integer but received ${describe(error.code)}`
    if (typeof error.message !== 'string') return `error.message: expected a string but received ${describe(error.message)}`
    return undefined
  }
  if (!('result' in obj)) return 'no method, result or error: a request or notification has a method, a response a result or an error'
  if (!isId(obj.id)) return `id: expected a string or an integer but received ${describe(obj.id)}`
  if (!isRecord(obj.result)) return `result: expected an object but received ${describe(obj.result)}`
  return undefined
}

function errorObject(error: Record<string, unknown>): JsonRpcErrorObject {
  const { code, message, data } = error as { code: number; message: string; data?: unknown }
  return data === undefined ? { code, message } : { code, message, data }
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (Array.isArray(value)) return 'an array'
  return value === null || typeof value !== 'object' ? JSON.stringify(value) : 'an object'
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
