/**
 * Send conservatively, for what a host parses whole: the official SDKs check every item of a
 * tools/list, resources/list, resources/templates/list or prompts/list against the schema, and the
 * server's capabilities with the handshake, so one upstream item with a field of the wrong type
 * would cost the host the whole list (every server's items with it) or the connection. Each item
 * is passed on with the fields its type in every revision's schema.json requires, of the types it
 * requires: a field of another type is left out, a missing display name is taken from what
 * identifies the item, and an item without its identity is not listed. Each repair can be told to
 * a `Note`, which is how `mcpx probe` reports them to a server's author (listProblems).
 */
import { isRecord, type JsonObject } from '../jsonrpc.ts'

/** Told each repair, as one phrase ("`size` is a string, not a number"). */
export type Note = (problem: string) => void

const IGNORE: Note = () => {}

type FieldTypes = Readonly<Record<string, 'string' | 'number' | 'boolean'>>

const DISPLAY_FIELDS: FieldTypes = { title: 'string', description: 'string' }
const RESOURCE_FIELDS: FieldTypes = { ...DISPLAY_FIELDS, mimeType: 'string', size: 'number' }
const ARGUMENT_FIELDS: FieldTypes = { ...DISPLAY_FIELDS, required: 'boolean' }
const TOOL_HINTS = new Set(['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'])
const CAPABILITY_FLAGS = ['listChanged', 'subscribe']

/** A value as a text block holding its JSON: how a block no peer could parse is shown, nothing of it lost. */
export function textBlockOf(value: unknown): JsonObject {
  return { type: 'text', text: JSON.stringify(value) }
}

/**
 * The array each result of these methods carries (required by every revision's schema.json): what
 * upgrade.ts checks on receipt and listProblems reads for the probe.
 */
export const RESULT_LISTS: Readonly<Record<string, string>> = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'prompts/get': 'messages',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
  'resources/read': 'contents',
}

/** "a string", "an object", "null": what a value is, for a note or an error message. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

/** Leave out each field of `types` whose value is of another type. */
function keepTyped(out: JsonObject, types: FieldTypes, note: Note, prefix = ''): void {
  for (const key in types) {
    if (!(key in out) || typeof out[key] === types[key]) continue
    note(`\`${prefix}${key}\` is ${kindOf(out[key])}, not a ${types[key]}`)
    delete out[key]
  }
}

/** Resource: `uri` identifies it, `name` (required) defaults to it. */
export function resourceForHosts(out: JsonObject, note: Note = IGNORE): JsonObject | undefined {
  return listedBy(out, 'uri', RESOURCE_FIELDS, note)
}

/** ResourceTemplate: `uriTemplate` identifies it, `name` defaults to it. */
export function templateForHosts(out: JsonObject, note: Note = IGNORE): JsonObject | undefined {
  return listedBy(out, 'uriTemplate', RESOURCE_FIELDS, note)
}

function listedBy(out: JsonObject, identity: string, types: FieldTypes, note: Note): JsonObject | undefined {
  if (typeof out[identity] !== 'string') return void note(`no string \`${identity}\`, so it is not listed`)
  if (typeof out.name !== 'string') {
    note(`no string \`name\` (required), so it is named by its \`${identity}\``)
    out.name = out[identity]
  }
  keepTyped(out, types, note)
  return out
}

/** Prompt: `name` identifies it; its arguments are those with a name, their fields typed. */
export function promptForHosts(out: JsonObject, note: Note = IGNORE): JsonObject | undefined {
  if (typeof out.name !== 'string') return void note('no string `name`, so it is not listed')
  keepTyped(out, DISPLAY_FIELDS, note)
  if (!('arguments' in out)) return out
  if (!Array.isArray(out.arguments)) {
    note(`\`arguments\` is ${kindOf(out.arguments)}, not an array`)
    delete out.arguments
    return out
  }
  const kept: JsonObject[] = []
  for (const [index, arg] of out.arguments.entries()) {
    if (!isRecord(arg) || typeof arg.name !== 'string') {
      note(`\`arguments[${index}]\` has no string \`name\`, so it is left out`)
      continue
    }
    const typed = { ...arg }
    keepTyped(typed, ARGUMENT_FIELDS, note, `arguments[${index}].`)
    kept.push(typed)
  }
  out.arguments = kept
  return out
}

/**
 * Tool: `inputSchema` an object schema (without a `type`: with `type: "object"` added; absent or
 * unusable: `{type: "object"}`, which takes any arguments; its property schemas objects, `required`
 * names), annotation hints booleans. The
 * upstream's own schema, which mcpx checks arguments against, is not touched. (A tool without a
 * string name is never in a gateway's catalog.)
 */
export function toolFieldsForHosts(out: JsonObject, note: Note = IGNORE): void {
  if (isObjectSchema(out.inputSchema)) out.inputSchema = objectSchemaForHosts(out.inputSchema as JsonObject, note)
  else if (isRecord(out.inputSchema) && !('type' in out.inputSchema)) {
    // `{allOf: [...]}` and the like: the type it leaves implicit is said, the rest kept.
    note('`inputSchema` has no `type`, so it is offered with `type: "object"`')
    out.inputSchema = objectSchemaForHosts({ type: 'object', ...out.inputSchema }, note)
  } else {
    note(
      out.inputSchema === undefined
        ? 'no `inputSchema` (required), so it is offered as {"type":"object"}'
        : '`inputSchema` is not an object schema (`type: "object"`), so it is offered as {"type":"object"}',
    )
    out.inputSchema = { type: 'object' }
  }
  keepTyped(out, DISPLAY_FIELDS, note)
  if (!('annotations' in out)) return
  if (!isRecord(out.annotations)) {
    note(`\`annotations\` is ${kindOf(out.annotations)}, not an object`)
    return void delete out.annotations
  }
  let annotations = out.annotations
  for (const [key, value] of Object.entries(annotations)) {
    const type = key === 'title' ? 'string' : TOOL_HINTS.has(key) ? 'boolean' : undefined
    if (type === undefined || typeof value === type) continue
    note(`\`annotations.${key}\` is ${kindOf(value)}, not a ${type}`)
    if (annotations === out.annotations) annotations = { ...annotations }
    delete annotations[key]
  }
  out.annotations = annotations
}

/** `schema` with `properties` a map of schemas and `required` a list of names (copied only when one is not). */
function objectSchemaForHosts(schema: JsonObject, note: Note): JsonObject {
  let out = schema
  const { properties, required } = schema
  if ('properties' in schema && !(isRecord(properties) && Object.values(properties).every(isRecord))) {
    out = { ...schema }
    if (!isRecord(properties)) {
      note(`\`inputSchema.properties\` is ${kindOf(properties)}, not an object`)
      delete out.properties
    } else {
      // JSON Schema's boolean schemas, spelled as objects: true takes anything, false nothing.
      const spelled: JsonObject = {}
      for (const [name, sub] of Object.entries(properties)) {
        if (!isRecord(sub) && typeof sub !== 'boolean') note(`\`inputSchema.properties.${name}\` is ${kindOf(sub)}, not a schema`)
        spelled[name] = isRecord(sub) ? sub : sub === false ? { not: {} } : {}
      }
      out.properties = spelled
    }
  }
  if ('required' in schema && !(Array.isArray(required) && required.every((name) => typeof name === 'string'))) {
    note('`inputSchema.required` is not a list of property names')
    if (out === schema) out = { ...schema }
    if (Array.isArray(required)) out.required = required.filter((name) => typeof name === 'string')
    else delete out.required
  }
  return out
}

/**
 * Server capabilities, each an object in every revision's schema: `tools: true` means the server
 * has them (so {}), a false or empty one that it has not; their flags (`listChanged`, `subscribe`)
 * booleans, one spelt otherwise left out.
 */
export function capabilitiesForHosts(out: JsonObject, note: Note = IGNORE): void {
  for (const [name, value] of Object.entries(out)) {
    if (!isRecord(value)) {
      note(`capability \`${name}\` is ${kindOf(value)}, not an object`)
      if (value) out[name] = {}
      else delete out[name]
      continue
    }
    const wrong = CAPABILITY_FLAGS.filter((flag) => flag in value && typeof value[flag] !== 'boolean')
    if (wrong.length === 0) continue
    for (const flag of wrong) note(`capability \`${name}.${flag}\` is ${kindOf(value[flag])}, not a boolean`)
    out[name] = Object.fromEntries(Object.entries(value).filter(([key]) => !wrong.includes(key)))
  }
}

/** Each list method: what names an item in a note, and the item's repair (its array: RESULT_LISTS). */
const LISTS: Readonly<Record<string, readonly [string, (item: JsonObject, note: Note) => unknown]>> = {
  'tools/list': ['name', (item, note) => (typeof item.name !== 'string' ? note('no string `name`') : toolFieldsForHosts(item, note))],
  'resources/list': ['uri', resourceForHosts],
  'resources/templates/list': ['uriTemplate', templateForHosts],
  'prompts/list': ['name', promptForHosts],
}

/**
 * What in one page of a list result a host's parser would refuse, as mcpx repairs it for hosts:
 * one line per problem, naming the item (`tools/list: tool "x": …`). For `mcpx probe`.
 */
export function listProblems(method: string, result: JsonObject): string[] {
  const shape = LISTS[method]
  if (shape === undefined) return []
  const [identity, repair] = shape
  const key = RESULT_LISTS[method]!
  const list = result[key]
  if (!Array.isArray(list)) return [`${method}: \`${key}\` is ${kindOf(list)}, not an array`]
  const problems: string[] = []
  for (const [index, item] of list.entries()) {
    if (!isRecord(item)) {
      problems.push(`${method}: \`${key}[${index}]\` is ${kindOf(item)}, not an object`)
      continue
    }
    const label = typeof item[identity] === 'string' ? JSON.stringify(item[identity]) : `#${index}`
    repair({ ...item }, (problem) => problems.push(`${method}: ${label}: ${problem}`))
  }
  return problems
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
