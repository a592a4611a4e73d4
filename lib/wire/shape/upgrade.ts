/**
 * The client direction: a result received from an upstream speaking an older revision is lifted
 * into the newest (2026-07-28) shape so the rest of mcpx handles one shape. Absent `resultType`
 * means "complete" (2026-07-28 basic/index.mdx "ResultType"); absent cache hints mean ttl 0 (server/utilities/caching.mdx).
 */
import { McpxError, RPC } from '../../errors/index.ts'
import { CACHE_SCOPE, EXTENSION, RESULT_TYPE, type Revision } from '../constants.ts'
import { isRecord, type JsonObject } from '../jsonrpc.ts'
import { modernTask } from './tasks.ts'
import { RESULT_LISTS, kindOf, textBlockOf } from './typed-fields.ts'
import { BARE_IN_MODERN, CACHEABLE_METHODS } from './result.ts'

/** Lift `result` of `method`, received from a `revision` peer, into the newest shape. */
export function upgradeResult(revision: Revision, method: string, result: JsonObject): JsonObject {
  if (BARE_IN_MODERN.includes(method)) return { ...result }
  let out: JsonObject = { ...result }
  if (revision === '2025-11-25' && method === 'tools/call' && isRecord(out.task) && !('content' in out)) {
    // 2025-11-25 CreateTaskResult `{task}` → the extension's flat `resultType: "task"` (SEP-2663).
    const { task, ...rest } = out
    return { ...rest, ...modernTask(task), resultType: RESULT_TYPE.TASK }
  }
  if (revision === '2025-11-25' && (method === 'tasks/get' || method === 'tasks/cancel')) out = modernTask(out)
  if (revision === '2025-11-25' && method === 'tasks/list' && Array.isArray(out.tasks)) out.tasks = out.tasks.map(modernTask)
  out.resultType ??= RESULT_TYPE.COMPLETE
  // caching.mdx: absent ttlMs (older or non-compliant servers) means 0; no scope means never shared.
  if (out.resultType === RESULT_TYPE.COMPLETE && CACHEABLE_METHODS.includes(method)) {
    out.ttlMs ??= 0
    out.cacheScope ??= CACHE_SCOPE.PRIVATE
  }
  return out
}

/**
 * The error for a complete `result` of `method` (asked with `params`) received from a server that
 * mcpx cannot read without dropping part of it or guessing: its list (typed-fields.ts RESULT_LISTS)
 * not an array of objects, or a tools/call `isError` that is not a boolean (schema.json
 * CallToolResult: is it an error or not?). An absent or null list reads as empty, which loses
 * nothing; a tool result's `content` is read liberally instead (withContentBlocks). Undefined when
 * the result is fine; other fields are passed on as they are.
 */
export function malformedResult(method: string, params: JsonObject, result: JsonObject): McpxError | undefined {
  const problem = resultProblem(method, result)
  if (problem === undefined) return undefined
  // What was asked for, so the message says which call: a tool or prompt by name, a resource by URI.
  const subject = typeof params.name === 'string' ? ` ${params.name}` : typeof params.uri === 'string' ? ` ${params.uri}` : ''
  return new McpxError('PROTOCOL', `${method}${subject}: the server's result is malformed: ${problem}`, { method, problem })
}

function resultProblem(method: string, result: JsonObject): string | undefined {
  if (result.resultType !== undefined && result.resultType !== RESULT_TYPE.COMPLETE) return undefined
  if (method === 'tools/call')
    return result.isError === undefined || result.isError === null || typeof result.isError === 'boolean'
      ? undefined
      : `\`isError\` is ${kindOf(result.isError)}, not a boolean`
  const key = RESULT_LISTS[method]
  const list = key === undefined ? undefined : result[key]
  // Absent or null (how Go's encoding/json writes an empty slice) reads as empty: nothing is lost.
  if (list === undefined || list === null) return undefined
  if (!Array.isArray(list)) return `\`${key}\` is ${kindOf(list)}, not an array`
  const index = list.findIndex((item) => !isRecord(item))
  return index < 0 ? undefined : `\`${key}[${index}]\` is ${kindOf(list[index])}, not an object`
}

/**
 * A tool result whose `content` is not a list of typed blocks, read liberally and losslessly into
 * one (schema.json CallToolResult.content: ContentBlock[]): a string is one text block, one block
 * a list of it, and anything else (a block without a string `type`, a number, null inside the
 * list) a text block holding its JSON. The same result when nothing needs it (the usual case: no copy).
 */
export function withContentBlocks(result: JsonObject): JsonObject {
  const content = result.content
  if (content === undefined || content === null) return result
  if (Array.isArray(content)) {
    if (content.every(isTypedBlock)) return result
    return { ...result, content: content.map((item) => (isTypedBlock(item) ? item : textBlockOf(item))) }
  }
  return {
    ...result,
    content: [typeof content === 'string' ? { type: 'text', text: content } : isTypedBlock(content) ? content : textBlockOf(content)],
  }
}

function isTypedBlock(item: unknown): boolean {
  return isRecord(item) && typeof item.type === 'string'
}

/**
 * Is this JSON-RPC error a "resource not found"? -32002 from legacy servers (clients SHOULD still
 * accept it from older servers, 2026-07-28 server/resources.mdx "Error Handling") or -32602 carrying `data.uri`.
 */
export function isResourceNotFoundError(error: { code: number; data?: unknown }): boolean {
  if (error.code === RPC.RESOURCE_NOT_FOUND_LEGACY) return true
  return error.code === RPC.INVALID_PARAMS && isRecord(error.data) && typeof error.data.uri === 'string'
}

/**
 * 2026-07-28 basic/index.mdx "ResultType": an unrecognised `resultType` MUST be treated as invalid; extension values
 * ("task", SEP-2663) count only when that extension was negotiated. Absent means "complete".
 */
export function isKnownResultType(resultType: unknown, negotiatedExtensions: readonly string[] = []): boolean {
  if (resultType === undefined || resultType === RESULT_TYPE.COMPLETE || resultType === RESULT_TYPE.INPUT_REQUIRED) return true
  return resultType === RESULT_TYPE.TASK && negotiatedExtensions.includes(EXTENSION.TASKS)
}
