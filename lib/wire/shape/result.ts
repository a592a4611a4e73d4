/**
 * Results leave the server in the newest (2026-07-28) shape and are spelled down here for the
 * peer's revision, once, at the edge. Modern: every result carries `resultType` (2026-07-28 schema/schema.json Result) and
 * cacheable results carry `ttlMs`/`cacheScope` (server/utilities/caching.mdx). Legacy: those fields
 * go, 2026-only results (`input_required`, discover, listen) cannot be expressed and throw ERA.
 */
import { McpxError } from '../../errors/index.ts'
import { CACHE_SCOPE, isModernRevision, META, RESULT_TYPE, type Revision } from '../constants.ts'
import { isSpecMethod, methodExists } from '../matrix/methods.ts'
import { withShapedMeta } from './meta.ts'
import { isRecord, type JsonObject } from '../jsonrpc.ts'
import {
  isBareText,
  shapeContentBlock,
  shapeImplementation,
  shapePrompt,
  shapePromptMessage,
  shapeResource,
  shapeResourceContents,
  shapeResourceTemplate,
  shapeRoot,
  shapeServerCapabilities,
  shapeTool,
} from './entities.ts'
import { legacyTask } from './tasks.ts'
import { shapeRequest, shapeSamplingContent, type OutgoingRequest } from './request.ts'

/** 2026-07-28 server/utilities/caching.mdx: `complete` results of these methods carry cache hints. */
export const CACHEABLE_METHODS: readonly string[] = [
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
]
/** 2026-07-28 basic/patterns/mrtr.mdx: the only methods that may answer `input_required`. */
const INPUT_REQUIRED_METHODS: readonly string[] = ['tools/call', 'resources/read', 'prompts/get']
/**
 * Results of MRTR input requests are bare shapes in 2026 (no Result base, no `resultType`; 2026-07-28
 * schema/schema.json InputResponse).
 */
export const BARE_IN_MODERN: readonly string[] = ['sampling/createMessage', 'elicitation/create', 'roots/list']

export type CacheHints = {
  ttlMs: number
  cacheScope: (typeof CACHE_SCOPE)[keyof typeof CACHE_SCOPE]
}

/** Add 2026 cache hints to a result (negative ttl is clamped to 0, caching.mdx "ttlMs"). */
export function withCacheHints<T extends JsonObject>(result: T, hints: CacheHints): T & CacheHints {
  return { ...result, ttlMs: Math.max(0, Math.floor(hints.ttlMs)), cacheScope: hints.cacheScope }
}

/** Shape a newest-shape `result` of `method` for a peer speaking `revision`. Never mutates the input. */
export function shapeResult(revision: Revision, method: string, result: JsonObject): JsonObject {
  // A spec method the revision lacks cannot be answered; vendor methods get the generic treatment.
  if (isSpecMethod(method) && !methodExists(revision, method, undefined, { extensions: true })) {
    throw new McpxError('ERA', `${method} does not exist in ${revision}`)
  }
  if (isModernRevision(revision)) return shapeModern(revision, method, { ...result })
  // The everyday legacy tool result, text content and perhaps isError, has nothing any revision
  // lacks: it goes out as it came, with no copy (what follows would build the same object).
  if (method === 'tools/call' && isPlainToolResult(result)) return result

  // Legacy results have no resultType: copied without it rather than deleted afterwards (a deleted
  // property leaves the object in slow dictionary mode for the encoding that follows).
  const { resultType, ...out } = result
  if (resultType === RESULT_TYPE.INPUT_REQUIRED) {
    throw new McpxError('ERA', `${method}: an input_required result cannot be sent to a ${revision} peer (bridge it with real requests)`)
  }
  if (resultType === RESULT_TYPE.TASK) {
    if (revision !== '2025-11-25' || method !== 'tools/call')
      throw new McpxError('ERA', `${method}: a task result cannot be sent to a ${revision} peer`)
    // 2025-11-25 CreateTaskResult nests the task: `{task: Task}` (basic/utilities/tasks.mdx); here
    // `ttlMs` is the task's retention (SEP-2663), not a cache hint.
    const { _meta, ...task } = out
    return withShapedMeta(revision, { ...(_meta === undefined ? {} : { _meta }), task: legacyTask(task) })
  }
  // InitializeResult requires serverInfo; a newest-shape result may carry it only in `_meta`, as
  // `io.modelcontextprotocol/serverInfo` (2026-07-28 schema/schema.json).
  if (method === 'initialize' && out.serverInfo === undefined && isRecord(out._meta) && isRecord(out._meta[META.SERVER_INFO])) {
    out.serverInfo = out._meta[META.SERVER_INFO]
  }
  if (!method.startsWith('tasks/')) {
    if ('ttlMs' in out) delete out.ttlMs
    if ('cacheScope' in out) delete out.cacheScope
  }
  withShapedMeta(revision, out)
  return shapeBody(revision, method, out)
}

function isPlainToolResult(result: JsonObject): boolean {
  for (const key in result) if (key !== 'content' && key !== 'isError') return false
  const { content, isError } = result
  if (!Array.isArray(content) || (isError !== undefined && typeof isError !== 'boolean')) return false
  for (const block of content) if (!isRecord(block) || block.type !== 'text' || !isBareText(block)) return false
  return true
}

function shapeModern(revision: Revision, method: string, out: JsonObject): JsonObject {
  if (BARE_IN_MODERN.includes(method)) {
    delete out.resultType
    if (method !== 'sampling/createMessage') delete out._meta
    return shapeBody(revision, method, out)
  }
  out.resultType ??= RESULT_TYPE.COMPLETE
  if (out.resultType === RESULT_TYPE.INPUT_REQUIRED && !INPUT_REQUIRED_METHODS.includes(method)) {
    throw new McpxError('INTERNAL', `${method} may not answer input_required (basic/patterns/mrtr.mdx)`)
  }
  withShapedMeta(revision, out)
  if (out.resultType === RESULT_TYPE.INPUT_REQUIRED && isRecord(out.inputRequests)) {
    const inputRequests: JsonObject = {}
    for (const [key, request] of Object.entries(out.inputRequests)) {
      inputRequests[key] =
        isRecord(request) && typeof request.method === 'string' ? shapeRequest(revision, request as OutgoingRequest) : request
    }
    out.inputRequests = inputRequests
  }
  if (out.resultType !== RESULT_TYPE.COMPLETE) return out
  if (CACHEABLE_METHODS.includes(method)) {
    out.ttlMs = typeof out.ttlMs === 'number' ? Math.max(0, Math.floor(out.ttlMs)) : 0
    // Without a declared scope, never let a shared cache serve it across principals (caching.mdx).
    out.cacheScope ??= CACHE_SCOPE.PRIVATE
  }
  return shapeBody(revision, method, out)
}

function shapeBody(revision: Revision, method: string, out: JsonObject): JsonObject {
  switch (method) {
    case 'initialize':
      if ('capabilities' in out) out.capabilities = shapeServerCapabilities(revision, out.capabilities)
      if ('serverInfo' in out) out.serverInfo = shapeImplementation(revision, out.serverInfo)
      return out
    case 'server/discover':
      if ('capabilities' in out) out.capabilities = shapeServerCapabilities(revision, out.capabilities)
      return out
    case 'tools/list':
      return mapList(out, 'tools', (tool) => shapeTool(revision, tool))
    case 'tools/call':
    case 'tasks/result':
      return shapeCallToolResult(revision, out)
    case 'resources/list':
      return mapList(out, 'resources', (resource) => shapeResource(revision, resource))
    case 'resources/templates/list':
      return mapList(out, 'resourceTemplates', (template) => shapeResourceTemplate(revision, template))
    case 'resources/read':
      if (Array.isArray(out.contents)) out.contents = out.contents.map((c) => shapeResourceContents(revision, c))
      return out
    case 'prompts/list':
      return mapList(out, 'prompts', (prompt) => shapePrompt(revision, prompt))
    case 'prompts/get':
      if (Array.isArray(out.messages)) out.messages = out.messages.map((m) => shapePromptMessage(revision, m))
      return out
    case 'tasks/get':
    case 'tasks/cancel':
      return revision === '2025-11-25' ? { ...(out._meta === undefined ? {} : { _meta: out._meta }), ...legacyTask(out) } : out
    case 'tasks/list':
      return mapList(out, 'tasks', (task) => legacyTask(task))
    case 'sampling/createMessage':
      if ('content' in out) out.content = shapeSamplingContent(revision, out.content)
      return out
    case 'roots/list':
      return mapList(out, 'roots', (root) => shapeRoot(revision, root))
    case 'elicitation/create':
      // Multi-select answers (string arrays) exist from 2025-11-25; older servers get one string.
      if (revision < '2025-11-25' && isRecord(out.content)) {
        out.content = Object.fromEntries(Object.entries(out.content).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : v]))
      }
      return out
    default:
      return out
  }
}

function shapeCallToolResult(revision: Revision, out: JsonObject): JsonObject {
  // Null where the schema has an optional field (Go servers write nil so): absent, as the host's parser wants it.
  if (out.isError === null) delete out.isError
  const content = Array.isArray(out.content) ? out.content.map((block) => shapeContentBlock(revision, block)) : []
  if ('content' in out || !('structuredContent' in out)) out.content = content
  if (!('structuredContent' in out)) return out
  // 2025-06-18/2025-11-25 require an object; older revisions have no structuredContent at all.
  // tools.mdx: a tool returning structured content SHOULD also return it serialized in a text block.
  const keep = isModernRevision(revision) || (revision >= '2025-06-18' && isRecord(out.structuredContent))
  if (keep) return out
  const json = JSON.stringify(out.structuredContent)
  if (!content.some((block) => block.type === 'text' && block.text === json)) content.push({ type: 'text', text: json })
  out.content = content
  delete out.structuredContent
  return out
}

/** Each item of the list at `key` shaped; an item that is no object, or that `shape` drops (undefined), is not listed. */
function mapList(out: JsonObject, key: string, shape: (item: JsonObject) => JsonObject | undefined): JsonObject {
  const list = out[key]
  if (!Array.isArray(list)) return out
  const shaped: JsonObject[] = []
  for (const item of list) {
    const one = isRecord(item) ? shape(item) : undefined
    if (one !== undefined) shaped.push(one)
  }
  out[key] = shaped
  return out
}
