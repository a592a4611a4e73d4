/**
 * Send conservatively, for the lists a host parses whole: the official SDKs check every item of a
 * tools/list, resources/list, resources/templates/list or prompts/list against the schema, so one
 * upstream item with a field of the wrong type would cost the host the whole list, every server's
 * items with it. Each item is passed on with the fields its type in every revision's schema.json
 * requires, of the types it requires: a field of another type is left out, a missing display name
 * is taken from what identifies the item, and an item without its identity is not listed.
 */
import { isRecord, type JsonObject } from '../jsonrpc.ts'

type FieldTypes = Readonly<Record<string, 'string' | 'number' | 'boolean'>>

const DISPLAY_FIELDS: FieldTypes = { title: 'string', description: 'string' }
const RESOURCE_FIELDS: FieldTypes = { ...DISPLAY_FIELDS, mimeType: 'string', size: 'number' }
const ARGUMENT_FIELDS: FieldTypes = { ...DISPLAY_FIELDS, required: 'boolean' }

/** Leave out each field of `types` whose value is of another type. */
function keepTyped(out: JsonObject, types: FieldTypes): void {
  for (const key in types) if (key in out && typeof out[key] !== types[key]) delete out[key]
}

/** Resource: `uri` identifies it, `name` (required) defaults to it. */
export function resourceForHosts(out: JsonObject): JsonObject | undefined {
  if (typeof out.uri !== 'string') return undefined
  if (typeof out.name !== 'string') out.name = out.uri
  keepTyped(out, RESOURCE_FIELDS)
  return out
}

/** ResourceTemplate: `uriTemplate` identifies it, `name` defaults to it. */
export function templateForHosts(out: JsonObject): JsonObject | undefined {
  if (typeof out.uriTemplate !== 'string') return undefined
  if (typeof out.name !== 'string') out.name = out.uriTemplate
  keepTyped(out, RESOURCE_FIELDS)
  return out
}

/** Prompt: `name` identifies it; its arguments are those with a name, their fields typed. */
export function promptForHosts(out: JsonObject): JsonObject | undefined {
  if (typeof out.name !== 'string') return undefined
  keepTyped(out, DISPLAY_FIELDS)
  if (!('arguments' in out)) return out
  if (!Array.isArray(out.arguments)) {
    delete out.arguments
    return out
  }
  out.arguments = out.arguments
    .filter((arg): arg is JsonObject => isRecord(arg) && typeof arg.name === 'string')
    .map((arg) => {
      const typed = { ...arg }
      keepTyped(typed, ARGUMENT_FIELDS)
      return typed
    })
  return out
}

/**
 * Tool: `inputSchema` an object schema (absent or unusable: `{type: "object"}`, which takes any
 * arguments; its property schemas objects, `required` names), annotation hints booleans. The
 * upstream's own schema, which mcpx checks arguments against, is not touched. (A tool without a
 * string name is never in a gateway's catalog.)
 */
export function toolFieldsForHosts(out: JsonObject): void {
  out.inputSchema = isObjectSchema(out.inputSchema) ? objectSchemaForHosts(out.inputSchema as JsonObject) : { type: 'object' }
  keepTyped(out, DISPLAY_FIELDS)
  if (!('annotations' in out)) return
  if (!isRecord(out.annotations)) return void delete out.annotations
  let annotations = out.annotations
  for (const [key, value] of Object.entries(annotations)) {
    const fits = key === 'title' ? typeof value === 'string' : !TOOL_HINTS.has(key) || typeof value === 'boolean'
    if (fits) continue
    if (annotations === out.annotations) annotations = { ...annotations }
    delete annotations[key]
  }
  out.annotations = annotations
}

const TOOL_HINTS = new Set(['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'])

/** `schema` with `properties` a map of schemas and `required` a list of names (copied only when one is not). */
function objectSchemaForHosts(schema: JsonObject): JsonObject {
  let out = schema
  const { properties, required } = schema
  if ('properties' in schema && !(isRecord(properties) && Object.values(properties).every(isRecord))) {
    out = { ...schema }
    // JSON Schema's boolean schemas, spelled as objects: true takes anything, false nothing.
    if (isRecord(properties))
      out.properties = Object.fromEntries(
        Object.entries(properties).map(([name, sub]) => [name, isRecord(sub) ? sub : sub === false ? { not: {} } : {}]),
      )
    else delete out.properties
  }
  if ('required' in schema && !(Array.isArray(required) && required.every((name) => typeof name === 'string'))) {
    if (out === schema) out = { ...schema }
    if (Array.isArray(required)) out.required = required.filter((name) => typeof name === 'string')
    else delete out.required
  }
  return out
}

/** A JSON Schema whose root is `type: "object"` (what Tool.inputSchema must be in every revision). */
export function isObjectSchema(schema: unknown): boolean {
  return isRecord(schema) && schema.type === 'object'
}

/**
 * Does a content block of a known type hold what its type requires (schema.json TextContent,
 * ImageContent, AudioContent, EmbeddedResource, ResourceLink)? Unknown types are the caller's.
 */
export function contentBlockFits(block: JsonObject): boolean {
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string'
    case 'image':
    case 'audio':
      return typeof block.data === 'string' && typeof block.mimeType === 'string'
    case 'resource': {
      const resource = block.resource
      return (
        isRecord(resource) && typeof resource.uri === 'string' && (typeof resource.text === 'string' || typeof resource.blob === 'string')
      )
    }
    case 'resource_link':
      return typeof block.uri === 'string' && typeof block.name === 'string'
    default:
      return true
  }
}
