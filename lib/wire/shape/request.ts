/**
 * Server-to-client requests (legacy JSON-RPC requests; 2026 MRTR `inputRequests` entries) spelled
 * down to the peer's revision: elicitation schema features (titled/multi-select enums, defaults:
 * 2025-11-25 changelog), URL mode, sampling tools (SEP-1577) and content blocks the peer cannot read.
 */
import { McpxError } from '../../errors/index.ts'
import { atLeast, isModernRevision, type Revision } from '../constants.ts'
import { methodExists } from '../matrix/methods.ts'
import { shapeMeta } from './meta.ts'
import { isRecord, type JsonObject } from '../jsonrpc.ts'
import { shapeContentBlock } from './entities.ts'
import { textBlockOf } from './typed-fields.ts'

export interface OutgoingRequest {
  method: string
  params?: JsonObject
  [key: string]: unknown
}

const SAMPLING_PARAMS_2024 = [
  'includeContext',
  'maxTokens',
  'messages',
  'metadata',
  'modelPreferences',
  'stopSequences',
  'systemPrompt',
  'temperature',
]

/**
 * Shape a request mcpx sends to a client. Under 2026-07-28 the result is an MRTR input request
 * (`{method, params}`, no id, no `_meta`: 2026-07-28 schema/schema.json InputRequest). Throws ERA when the method does not
 * exist for the peer (e.g. elicitation/create to 2025-03-26, URL elicitation to 2025-06-18).
 */
export function shapeRequest(revision: Revision, request: OutgoingRequest): OutgoingRequest {
  if (!methodExists(revision, request.method, 'server-to-client')) {
    throw new McpxError('ERA', `${request.method} cannot be sent to a ${revision} client`)
  }
  const params: JsonObject = { ...(request.params ?? {}) }
  const out: JsonObject = { ...request }
  if (isModernRevision(revision)) {
    delete out.jsonrpc
    delete out.id
    delete params._meta
    delete params.task
  } else {
    const meta = shapeMeta(revision, params._meta)
    if (meta === undefined) delete params._meta
    else params._meta = meta
  }
  switch (request.method) {
    case 'elicitation/create':
      out.params = shapeElicitParams(revision, params)
      break
    case 'sampling/createMessage':
      out.params = shapeSamplingParams(revision, params)
      break
    default:
      if (request.params !== undefined || Object.keys(params).length > 0) out.params = params
  }
  return out as OutgoingRequest
}

function shapeElicitParams(revision: Revision, params: JsonObject): JsonObject {
  const mode = params.mode ?? 'form'
  if (mode === 'url') {
    if (!atLeast(revision, '2025-11-25')) throw new McpxError('ERA', `URL-mode elicitation cannot be sent to a ${revision} client`)
    // 2025-11-25 requires elicitationId (client/elicitation.mdx); 2026 removed it (changelog).
    if (isModernRevision(revision)) delete params.elicitationId
    else params.elicitationId ??= crypto.randomUUID()
    return params
  }
  if (!atLeast(revision, '2025-11-25')) {
    delete params.mode
    delete params.task
  }
  if (isRecord(params.requestedSchema) && isRecord(params.requestedSchema.properties) && !atLeast(revision, '2025-11-25')) {
    const properties: JsonObject = {}
    for (const [name, schema] of Object.entries(params.requestedSchema.properties)) properties[name] = legacyPrimitiveSchema(schema)
    params.requestedSchema = { ...params.requestedSchema, properties }
  }
  return params
}

/**
 * 2025-06-18 PrimitiveSchemaDefinition: string/number/boolean/EnumSchema `{enum, enumNames?}`.
 * Defaults exist only on booleans; titled and multi-select enums become enum + enumNames (a
 * multi-select degrades to choosing one value).
 */
function legacyPrimitiveSchema(schema: unknown): unknown {
  if (!isRecord(schema)) return schema
  const base: JsonObject = {}
  for (const key of ['title', 'description']) if (typeof schema[key] === 'string') base[key] = schema[key]
  const options = enumOptions(schema.type === 'array' && isRecord(schema.items) ? schema.items : schema)
  if (options !== undefined) {
    const out: JsonObject = { ...base, type: 'string', enum: options.map((o) => o.value) }
    if (options.some((o) => o.title !== undefined)) out.enumNames = options.map((o) => o.title ?? o.value)
    return out
  }
  if (schema.type === 'boolean') return schema
  const { default: _dropped, ...rest } = schema
  return rest
}

function enumOptions(schema: JsonObject): { value: string; title?: string }[] | undefined {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : []
    return schema.enum.map((value, i) => ({ value: String(value), ...(typeof names[i] === 'string' ? { title: names[i] as string } : {}) }))
  }
  const choices = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined
  if (choices === undefined) return undefined
  return choices.filter(isRecord).map((c) => ({ value: String(c.const), ...(typeof c.title === 'string' ? { title: c.title } : {}) }))
}

function shapeSamplingParams(revision: Revision, params: JsonObject): JsonObject {
  let out = params
  if (!atLeast(revision, '2025-11-25')) {
    // Sampling with tools (tools, toolChoice, tool_use/tool_result) arrived in 2025-11-25 (SEP-1577).
    out = Object.fromEntries(Object.entries(params).filter(([key]) => SAMPLING_PARAMS_2024.includes(key) || key === '_meta'))
  }
  if (Array.isArray(out.messages)) {
    out.messages = out.messages.map((message) => {
      if (!isRecord(message)) return message
      const shaped: JsonObject = { role: message.role, content: shapeSamplingContent(revision, message.content) }
      if (atLeast(revision, '2025-11-25') && message._meta !== undefined) shaped._meta = message._meta
      return shaped
    })
  }
  return out
}

/**
 * Sampling message content: one block before 2025-11-25 (text, image, audio from 2025-03-26);
 * a block or an array with tool_use/tool_result from 2025-11-25. Several blocks for an older peer
 * collapse into one text block.
 */
export function shapeSamplingContent(revision: Revision, content: unknown): unknown {
  if (atLeast(revision, '2025-11-25')) {
    const shapeOne = (block: unknown) =>
      isRecord(block) && (block.type === 'tool_use' || block.type === 'tool_result') ? block : shapeContentBlock(revision, block)
    return Array.isArray(content) ? content.map(shapeOne) : shapeOne(content)
  }
  const blocks = (Array.isArray(content) ? content : [content]).map((block) => samplingBlock(revision, block))
  if (blocks.length === 1) return blocks[0]
  return { type: 'text', text: blocks.map((b) => (b.type === 'text' ? String(b.text) : JSON.stringify(b))).join('\n') }
}

function samplingBlock(revision: Revision, block: unknown): JsonObject {
  const shaped = shapeContentBlock(revision, block)
  // Before 2025-11-25 a SamplingMessage holds text, image or (2025-03-26+) audio only.
  return ['text', 'image', 'audio'].includes(String(shaped.type)) ? shaped : textBlockOf(block)
}
