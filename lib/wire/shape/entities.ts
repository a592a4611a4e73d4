/**
 * Spell one spec object (tool, resource, prompt, content block, capabilities...) down to a peer's
 * revision. Inputs are newest-shape objects; fields are dropped per matrix/fields.ts and content
 * types the peer cannot parse are rewritten (the content types each revision's schema/schema.json defines). Pure: inputs are
 * never mutated.
 */
import { EXTENSION, atLeast, isModernRevision, type Revision } from '../constants.ts'
import { hasField, projectFields, type SpecTypeName } from '../matrix/fields.ts'
import { withShapedMeta } from './meta.ts'
import {
  capabilitiesForHosts,
  contentBlockFits,
  isObjectSchema,
  promptForHosts,
  resourceForHosts,
  templateForHosts,
  textBlockOf,
  toolFieldsForHosts,
} from './typed-fields.ts'
import { isRecord, type JsonObject } from '../jsonrpc.ts'

function shapeObject(revision: Revision, typeName: SpecTypeName, value: JsonObject): JsonObject {
  const out = withShapedMeta(revision, projectFields(revision, typeName, { ...value }))
  // `annotations` is an object wherever a type has it; one spelt otherwise would fail the host's parser.
  if ('annotations' in out && !isRecord(out.annotations)) delete out.annotations
  else if (isRecord(out.annotations) && typeName !== 'Tool') out.annotations = projectFields(revision, 'Annotations', out.annotations)
  return out
}

/** One content block of a tool result or prompt message (`ContentBlock`). */
export function shapeContentBlock(revision: Revision, block: unknown): JsonObject {
  if (!isRecord(block)) return textBlockOf(block)
  // The everyday block has nothing any revision lacks: it goes out as it came.
  if (block.type === 'text' && isBareText(block)) return block
  // A known block missing what its type requires would fail the host's parser with the whole result: shown as text instead.
  if (!contentBlockFits(block)) return textBlockOf(block)
  switch (block.type) {
    case 'text':
      return shapeObject(revision, 'TextContent', block)
    case 'image':
      return shapeObject(revision, 'ImageContent', block)
    case 'audio':
      // AudioContent arrived in 2025-03-26 (changelog); older peers get a text placeholder.
      return atLeast(revision, '2025-03-26') ? shapeObject(revision, 'AudioContent', block) : audioAsText(block)
    case 'resource':
      return { ...shapeObject(revision, 'EmbeddedResource', block), resource: shapeResourceContents(revision, block.resource) }
    case 'resource_link':
      // ResourceLink arrived in 2025-06-18; older peers get the link as text.
      return atLeast(revision, '2025-06-18') ? shapeObject(revision, 'ResourceLink', block) : resourceLinkAsText(block)
    default:
      // A legacy peer cannot parse an unknown content type (the union is closed); keep it readable.
      return isModernRevision(revision) ? { ...block } : textBlockOf(block)
  }
}

export function isBareText(block: JsonObject): boolean {
  for (const key in block) if (key !== 'type' && key !== 'text') return false
  return typeof block.text === 'string'
}

/** `TextResourceContents` | `BlobResourceContents`. */
export function shapeResourceContents(revision: Revision, contents: unknown): JsonObject {
  if (!isRecord(contents)) return { uri: '', text: JSON.stringify(contents) }
  // A string `uri` and a string `text` or `blob` (schema.json Text/BlobResourceContents); anything
  // else would fail the host's parser with the whole read, so it is shown as text holding its JSON.
  if (typeof contents.uri !== 'string' || (typeof contents.text !== 'string' && typeof contents.blob !== 'string'))
    return { uri: typeof contents.uri === 'string' ? contents.uri : '', text: JSON.stringify(contents) }
  return shapeObject(revision, typeof contents.blob === 'string' ? 'BlobResourceContents' : 'TextResourceContents', contents)
}

export function shapeTool(revision: Revision, tool: JsonObject): JsonObject {
  const out = shapeObject(revision, 'Tool', tool)
  toolFieldsForHosts(out)
  if (isRecord(out.annotations)) {
    const annotations = projectFields(revision, 'ToolAnnotations', { ...out.annotations })
    // 2025-03-26 has no Tool.title; keep the display name where that revision looks for it.
    if (typeof tool.title === 'string' && out.title === undefined && annotations.title === undefined) annotations.title = tool.title
    out.annotations = annotations
  }
  // 2025-06-18/2025-11-25 require outputSchema.type "object"; 2026 allows any schema (changelog).
  if (!isModernRevision(revision) && 'outputSchema' in out && !isObjectSchema(out.outputSchema)) delete out.outputSchema
  return out
}

/** A listed resource, or undefined for one no host could use (typed-fields.ts). */
export function shapeResource(revision: Revision, resource: JsonObject): JsonObject | undefined {
  return resourceForHosts(shapeObject(revision, 'Resource', resource))
}

export function shapeResourceTemplate(revision: Revision, template: JsonObject): JsonObject | undefined {
  return templateForHosts(shapeObject(revision, 'ResourceTemplate', template))
}

export function shapePrompt(revision: Revision, prompt: JsonObject): JsonObject | undefined {
  const out = promptForHosts(shapeObject(revision, 'Prompt', prompt))
  if (out !== undefined && Array.isArray(out.arguments))
    out.arguments = out.arguments.map((arg) => projectFields(revision, 'PromptArgument', { ...(arg as JsonObject) }))
  return out
}

export function shapePromptMessage(revision: Revision, message: unknown): JsonObject {
  if (!isRecord(message)) return { role: 'assistant', content: shapeContentBlock(revision, message) }
  const out: JsonObject = {
    ...projectFields(revision, 'PromptMessage', { ...message }),
    content: shapeContentBlock(revision, message.content),
  }
  // Role is "user" or "assistant" in every revision's schema; MCP has no "system" role, and a
  // message spelt with one (or none) would fail the host's parser with the whole prompt: it is the user's.
  if (out.role !== 'user' && out.role !== 'assistant') out.role = 'user'
  return out
}

export function shapeImplementation(revision: Revision, implementation: unknown): JsonObject {
  return isRecord(implementation) ? projectFields(revision, 'Implementation', { ...implementation }) : { name: 'unknown', version: '0' }
}

/**
 * Server capabilities written in the newest shape, spelled for `revision`: fields it never defined
 * are dropped, and served tasks (the 2026 extension, SEP-2663) become the 2025-11-25 core `tasks`
 * capability (2025-11-25 basic/utilities/tasks.mdx "Capabilities").
 */
export function shapeServerCapabilities(revision: Revision, capabilities: unknown): JsonObject {
  if (!isRecord(capabilities)) return {}
  const out = projectFields(revision, 'ServerCapabilities', { ...capabilities })
  capabilitiesForHosts(out)
  const extensions = capabilities.extensions
  if (
    out.tasks === undefined &&
    hasField(revision, 'ServerCapabilities', 'tasks') &&
    isRecord(extensions) &&
    isRecord(extensions[EXTENSION.TASKS])
  ) {
    out.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } }
  }
  return out
}

export function shapeClientCapabilities(revision: Revision, capabilities: unknown): JsonObject {
  if (!isRecord(capabilities)) return {}
  const out = projectFields(revision, 'ClientCapabilities', { ...capabilities })
  // The one extension a legacy peer is told of: MCP Apps is defined for every revision (the MCP Apps
  // specification's own initialize example is 2024-11-05), and servers register their UI tools by it.
  const extensions = capabilities.extensions
  if (out.extensions === undefined && isRecord(extensions) && isRecord(extensions[EXTENSION.UI]))
    out.extensions = { [EXTENSION.UI]: extensions[EXTENSION.UI] }
  // Before 2025-11-25 elicitation was `{}` (form only); 2026 dropped roots.listChanged (2026-07-28 schema/schema.json ClientCapabilities).
  if (!atLeast(revision, '2025-11-25') && isRecord(out.elicitation)) out.elicitation = {}
  if (isModernRevision(revision) && isRecord(out.roots)) out.roots = {}
  return out
}

export function shapeRoot(revision: Revision, root: unknown): JsonObject {
  return isRecord(root) ? shapeObject(revision, 'Root', root) : { uri: String(root) }
}

function audioAsText(block: JsonObject): JsonObject {
  const bytes = typeof block.data === 'string' ? Math.floor((block.data.length * 3) / 4) : 0
  return { type: 'text', text: `[audio ${String(block.mimeType ?? 'unknown type')}, ${bytes} bytes: needs MCP 2025-03-26 or later]` }
}

function resourceLinkAsText(block: JsonObject): JsonObject {
  const label = typeof block.title === 'string' ? block.title : String(block.name ?? block.uri)
  const description = typeof block.description === 'string' ? ` (${block.description})` : ''
  return { type: 'text', text: `${label}: ${String(block.uri)}${description}` }
}
