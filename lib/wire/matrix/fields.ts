/**
 * Which fields each spec type has in each revision, as data. Shaping drops a field for a peer whose
 * revision lies outside the field's span; fields absent from this table (extensions) pass through.
 * test/lib/wire/matrix.test.ts checks every entry against ../shared/spec/<rev>/schema/schema.json.
 */
import { REVISIONS, type Revision } from '../constants.ts'

/** Inclusive revision range `[first, last]` in which something exists. */
export type Span = readonly [Revision, Revision]

const FIRST: Revision = REVISIONS[0]
const LAST: Revision = REVISIONS[REVISIONS.length - 1] as Revision
const ALL: Span = [FIRST, LAST]
const since = (revision: Revision): Span => [revision, LAST]
const until = (revision: Revision): Span => [FIRST, revision]
const only = (revision: Revision): Span => [revision, revision]

export function inSpan(revision: Revision, span: Span): boolean {
  return revision >= span[0] && revision <= span[1]
}

export interface TypeFields {
  /** Revisions whose schema defines the type at all. */
  span: Span
  fields: Readonly<Record<string, Span>>
}

const R0618 = since('2025-06-18')
const R1125 = since('2025-11-25')
const R2026 = since('2026-07-28')
const annotated = { annotations: ALL, _meta: R0618 }

/** Object types whose fields changed between revisions (plus their stable siblings, for the proof). */
export const TYPE_FIELDS = {
  Tool: {
    span: ALL,
    fields: {
      name: ALL,
      description: ALL,
      inputSchema: ALL,
      annotations: since('2025-03-26'),
      _meta: R0618,
      title: R0618,
      outputSchema: R0618,
      icons: R1125,
      execution: only('2025-11-25'),
    },
  },
  ToolAnnotations: {
    span: since('2025-03-26'),
    fields: { title: ALL, readOnlyHint: ALL, destructiveHint: ALL, idempotentHint: ALL, openWorldHint: ALL },
  },
  Resource: {
    span: ALL,
    fields: { uri: ALL, name: ALL, description: ALL, mimeType: ALL, size: ALL, annotations: ALL, _meta: R0618, title: R0618, icons: R1125 },
  },
  ResourceTemplate: {
    span: ALL,
    fields: { uriTemplate: ALL, name: ALL, description: ALL, mimeType: ALL, annotations: ALL, _meta: R0618, title: R0618, icons: R1125 },
  },
  ResourceLink: {
    span: R0618,
    fields: {
      type: ALL,
      uri: ALL,
      name: ALL,
      description: ALL,
      mimeType: ALL,
      size: ALL,
      annotations: ALL,
      _meta: ALL,
      title: ALL,
      icons: R1125,
    },
  },
  Prompt: { span: ALL, fields: { name: ALL, description: ALL, arguments: ALL, _meta: R0618, title: R0618, icons: R1125 } },
  PromptArgument: { span: ALL, fields: { name: ALL, description: ALL, required: ALL, title: R0618 } },
  Implementation: { span: ALL, fields: { name: ALL, version: ALL, title: R0618, description: R1125, icons: R1125, websiteUrl: R1125 } },
  Annotations: { span: ALL, fields: { audience: ALL, priority: ALL, lastModified: R0618 } },
  TextContent: { span: ALL, fields: { type: ALL, text: ALL, ...annotated } },
  ImageContent: { span: ALL, fields: { type: ALL, data: ALL, mimeType: ALL, ...annotated } },
  AudioContent: { span: since('2025-03-26'), fields: { type: ALL, data: ALL, mimeType: ALL, ...annotated } },
  EmbeddedResource: { span: ALL, fields: { type: ALL, resource: ALL, ...annotated } },
  TextResourceContents: { span: ALL, fields: { uri: ALL, mimeType: ALL, text: ALL, _meta: R0618 } },
  BlobResourceContents: { span: ALL, fields: { uri: ALL, mimeType: ALL, blob: ALL, _meta: R0618 } },
  PromptMessage: { span: ALL, fields: { role: ALL, content: ALL } },
  Root: { span: ALL, fields: { uri: ALL, name: ALL, _meta: R0618 } },
  ServerCapabilities: {
    span: ALL,
    fields: {
      experimental: ALL,
      logging: ALL,
      prompts: ALL,
      resources: ALL,
      tools: ALL,
      completions: since('2025-03-26'),
      tasks: only('2025-11-25'),
      extensions: R2026,
    },
  },
  ClientCapabilities: {
    span: ALL,
    fields: { experimental: ALL, roots: ALL, sampling: ALL, elicitation: R0618, tasks: only('2025-11-25'), extensions: R2026 },
  },
  CallToolResult: { span: ALL, fields: { _meta: ALL, content: ALL, isError: ALL, structuredContent: R0618, resultType: R2026 } },
  InitializeResult: {
    span: until('2025-11-25'),
    fields: { _meta: ALL, protocolVersion: ALL, capabilities: ALL, serverInfo: ALL, instructions: ALL },
  },
  ListToolsResult: { span: ALL, fields: { _meta: ALL, nextCursor: ALL, tools: ALL, resultType: R2026, ttlMs: R2026, cacheScope: R2026 } },
  ListPromptsResult: {
    span: ALL,
    fields: { _meta: ALL, nextCursor: ALL, prompts: ALL, resultType: R2026, ttlMs: R2026, cacheScope: R2026 },
  },
  ListResourcesResult: {
    span: ALL,
    fields: { _meta: ALL, nextCursor: ALL, resources: ALL, resultType: R2026, ttlMs: R2026, cacheScope: R2026 },
  },
  ListResourceTemplatesResult: {
    span: ALL,
    fields: { _meta: ALL, nextCursor: ALL, resourceTemplates: ALL, resultType: R2026, ttlMs: R2026, cacheScope: R2026 },
  },
  ReadResourceResult: { span: ALL, fields: { _meta: ALL, contents: ALL, resultType: R2026, ttlMs: R2026, cacheScope: R2026 } },
  GetPromptResult: { span: ALL, fields: { _meta: ALL, description: ALL, messages: ALL, resultType: R2026 } },
  CompleteResult: { span: ALL, fields: { _meta: ALL, completion: ALL, resultType: R2026 } },
  ProgressNotificationParams: {
    span: ALL,
    fields: { _meta: R1125, progressToken: ALL, progress: ALL, total: ALL, message: since('2025-03-26') },
  },
  Task: {
    span: only('2025-11-25'),
    fields: { taskId: ALL, status: ALL, statusMessage: ALL, createdAt: ALL, lastUpdatedAt: ALL, ttl: ALL, pollInterval: ALL },
  },
} as const satisfies Record<string, TypeFields>

export type SpecTypeName = keyof typeof TYPE_FIELDS

/** Drop the fields of `typeName` that `revision` does not define; unknown (extension) fields stay. */
export function projectFields<T extends Record<string, unknown>>(revision: Revision, typeName: SpecTypeName, value: T): T {
  const fields: Readonly<Record<string, Span>> = TYPE_FIELDS[typeName].fields
  const out: Record<string, unknown> = {}
  for (const [key, field] of Object.entries(value)) {
    const span = fields[key]
    if (span === undefined || inSpan(revision, span)) out[key] = field
  }
  return out as T
}

/** True when `revision` defines `field` on `typeName`. */
export function hasField(revision: Revision, typeName: SpecTypeName, field: string): boolean {
  const span = (TYPE_FIELDS[typeName].fields as Readonly<Record<string, Span>>)[field]
  return span !== undefined && inSpan(revision, span)
}
