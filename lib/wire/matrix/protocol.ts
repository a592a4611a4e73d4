/**
 * PROTOCOL_MATRIX: everything mcpx knows about the five revisions as one JSON-serialisable value
 * (served by the daemon at GET /v1/protocol). Built from methods.ts and fields.ts, which are proven
 * against schema.json, plus transport facts cited from the spec text (each revision's basic/index.mdx error codes,
 * basic/transports, and the method pages), each entry naming its source in `cite`.
 */
import { RPC } from '../../errors/index.ts'
import { eraOf, HEADER, isModernRevision, LATEST_LEGACY, LATEST_MODERN, REVISIONS, type Era, type Revision } from '../constants.ts'
import { TYPE_FIELDS, inSpan, type Span, type SpecTypeName } from './fields.ts'
import { EXTENSION_METHODS, METHODS, isRemovedIn, type RevisionMethods } from './methods.ts'

export interface ErrorCodeEntry {
  code: number
  name: string
  /** Revisions in which a server may emit it. */
  span: Span
  cite: string
}

/** JSON-RPC error codes per revision (2026-07-28 schema/schema.json error definitions; 2026-07-28 basic/index.mdx "Error Codes"). */
export const PROTOCOL_ERROR_CODES: readonly ErrorCodeEntry[] = [
  { code: RPC.PARSE_ERROR, name: 'ParseError', span: ['2024-11-05', '2026-07-28'], cite: 'JSON-RPC 2.0 section 5.1' },
  { code: RPC.INVALID_REQUEST, name: 'InvalidRequest', span: ['2024-11-05', '2026-07-28'], cite: 'JSON-RPC 2.0 section 5.1' },
  {
    code: RPC.METHOD_NOT_FOUND,
    name: 'MethodNotFound',
    span: ['2024-11-05', '2026-07-28'],
    cite: 'JSON-RPC 2.0 section 5.1; 2026 HTTP 404 (streamable-http.mdx)',
  },
  {
    code: RPC.INVALID_PARAMS,
    name: 'InvalidParams',
    span: ['2024-11-05', '2026-07-28'],
    cite: 'JSON-RPC 2.0 section 5.1; 2026 also resource not found',
  },
  { code: RPC.INTERNAL_ERROR, name: 'InternalError', span: ['2024-11-05', '2026-07-28'], cite: 'JSON-RPC 2.0 section 5.1' },
  {
    code: RPC.RESOURCE_NOT_FOUND_LEGACY,
    name: 'ResourceNotFound',
    span: ['2024-11-05', '2025-11-25'],
    cite: 'server/resources.mdx "Error Handling"; reserved in 2026',
  },
  {
    code: RPC.URL_ELICITATION_REQUIRED,
    name: 'URLElicitationRequired',
    span: ['2025-11-25', '2025-11-25'],
    cite: '2025-11-25 client/elicitation.mdx; reserved in 2026',
  },
  {
    code: RPC.HEADER_MISMATCH,
    name: 'HeaderMismatch',
    span: ['2026-07-28', '2026-07-28'],
    cite: '2026-07-28 streamable-http.mdx "Server Validation" (HTTP 400)',
  },
  {
    code: RPC.MISSING_CLIENT_CAPABILITY,
    name: 'MissingRequiredClientCapability',
    span: ['2026-07-28', '2026-07-28'],
    cite: '2026-07-28 basic/index.mdx (HTTP 400)',
  },
  {
    code: RPC.UNSUPPORTED_PROTOCOL_VERSION,
    name: 'UnsupportedProtocolVersion',
    span: ['2026-07-28', '2026-07-28'],
    cite: '2026-07-28 basic/versioning.mdx (HTTP 400)',
  },
]

/** HTTP header names a revision uses (basic/transports.mdx of each revision). */
export const HEADERS_BY_REVISION: Readonly<Record<Revision, readonly string[]>> = {
  // HTTP+SSE: no MCP-specific headers.
  '2024-11-05': [],
  '2025-03-26': [HEADER.SESSION_ID, HEADER.LAST_EVENT_ID],
  '2025-06-18': [HEADER.PROTOCOL_VERSION, HEADER.SESSION_ID, HEADER.LAST_EVENT_ID],
  '2025-11-25': [HEADER.PROTOCOL_VERSION, HEADER.SESSION_ID, HEADER.LAST_EVENT_ID],
  // No sessions or resumability; request metadata mirrored into headers.
  '2026-07-28': [HEADER.PROTOCOL_VERSION, HEADER.METHOD, HEADER.NAME, `${HEADER.PARAM_PREFIX}{Name}`],
}

/** HTTP transports per revision (stdio exists in all). */
export const HTTP_TRANSPORTS: Readonly<Record<Revision, readonly string[]>> = {
  '2024-11-05': ['http+sse'],
  '2025-03-26': ['streamable-http'],
  '2025-06-18': ['streamable-http'],
  '2025-11-25': ['streamable-http'],
  '2026-07-28': ['streamable-http'],
}

export interface FeatureEntry {
  span: Span
  what: string
  cite: string
}

/** Protocol features by revision; the field-level ones restate fields.ts (schema-proven). */
const FEATURE_TABLE = {
  batching: {
    span: ['2025-03-26', '2025-03-26'],
    what: 'JSON-RPC batches (arrays) MUST be received',
    cite: '2025-03-26 basic/index.mdx; removed 2025-06-18',
  },
  sessions: {
    span: ['2025-03-26', '2025-11-25'],
    what: 'Mcp-Session-Id on streamable HTTP',
    cite: 'basic/transports.mdx "Session Management"',
  },
  initialize: { span: ['2024-11-05', '2025-11-25'], what: 'initialize handshake', cite: 'basic/lifecycle.mdx' },
  toolAnnotations: { span: ['2025-03-26', '2026-07-28'], what: 'Tool.annotations', cite: '2025-03-26 changelog' },
  audioContent: { span: ['2025-03-26', '2026-07-28'], what: 'AudioContent', cite: '2025-03-26 changelog' },
  progressMessage: { span: ['2025-03-26', '2026-07-28'], what: 'ProgressNotification.message', cite: '2025-03-26 changelog' },
  completionsCapability: { span: ['2025-03-26', '2026-07-28'], what: 'ServerCapabilities.completions', cite: '2025-03-26 changelog' },
  structuredContent: {
    span: ['2025-06-18', '2026-07-28'],
    what: 'CallToolResult.structuredContent, Tool.outputSchema',
    cite: '2025-06-18 changelog; any JSON value in 2026',
  },
  title: { span: ['2025-06-18', '2026-07-28'], what: 'BaseMetadata.title', cite: '2025-06-18 changelog' },
  resourceLink: { span: ['2025-06-18', '2026-07-28'], what: 'ResourceLink content', cite: '2025-06-18 changelog' },
  elicitation: { span: ['2025-06-18', '2026-07-28'], what: 'elicitation/create (form); MRTR only in 2026', cite: '2025-06-18 changelog' },
  protocolVersionHeader: { span: ['2025-06-18', '2026-07-28'], what: 'MCP-Protocol-Version header', cite: '2025-06-18 changelog' },
  icons: {
    span: ['2025-11-25', '2026-07-28'],
    what: 'icons on Implementation, Tool, Resource, ResourceTemplate, Prompt',
    cite: '2025-11-25 changelog',
  },
  urlElicitation: { span: ['2025-11-25', '2026-07-28'], what: 'URL-mode elicitation', cite: '2025-11-25 changelog' },
  enumTitlesAndMultiSelect: {
    span: ['2025-11-25', '2026-07-28'],
    what: 'titled/multi-select enums, defaults in elicitation',
    cite: '2025-11-25 changelog',
  },
  samplingTools: { span: ['2025-11-25', '2026-07-28'], what: 'sampling tools/toolChoice, tool_use/tool_result', cite: 'SEP-1577' },
  coreTasks: {
    span: ['2025-11-25', '2025-11-25'],
    what: 'tasks/*, params.task, Tool.execution, tasks capability',
    cite: '2025-11-25 basic/utilities/tasks.mdx',
  },
  tasksExtension: {
    span: ['2026-07-28', '2026-07-28'],
    what: 'io.modelcontextprotocol/tasks extension (resultType "task")',
    cite: 'SEP-2663',
  },
  resultType: {
    span: ['2026-07-28', '2026-07-28'],
    what: 'Result.resultType (complete | input_required)',
    cite: '2026-07-28 schema/schema.json Result',
  },
  cacheHints: {
    span: ['2026-07-28', '2026-07-28'],
    what: 'ttlMs and cacheScope on discover, lists, read',
    cite: 'server/utilities/caching.mdx',
  },
  inputRequired: {
    span: ['2026-07-28', '2026-07-28'],
    what: 'MRTR InputRequiredResult on tools/call, resources/read, prompts/get',
    cite: 'basic/patterns/mrtr.mdx',
  },
  requestMeta: {
    span: ['2026-07-28', '2026-07-28'],
    what: 'per-request _meta protocolVersion/clientCapabilities/clientInfo',
    cite: 'basic/index.mdx',
  },
  extensions: { span: ['2026-07-28', '2026-07-28'], what: 'capabilities.extensions', cite: 'basic/versioning.mdx' },
  streamableHttp: {
    span: ['2025-03-26', '2026-07-28'],
    what: 'Streamable HTTP (a POST must Accept application/json and text/event-stream)',
    cite: '2025-03-26 basic/transports.mdx "Streamable HTTP"',
  },
  ssePolling: {
    span: ['2025-11-25', '2025-11-25'],
    what: 'primed, numbered SSE events the server may close and the client resumes with GET + Last-Event-ID',
    cite: '2025-11-25 basic/transports.mdx "Resumability and Redelivery" (SEP-1699); 2026 has no resumability',
  },
  idlessErrors: {
    span: ['2025-11-25', '2026-07-28'],
    what: 'an error response without an id (JSONRPCErrorResponse.id optional)',
    cite: '2025-11-25 schema/schema.json JSONRPCErrorResponse',
  },
  rootsListChanged: {
    span: ['2024-11-05', '2025-11-25'],
    what: 'ClientCapabilities.roots.listChanged',
    cite: '2026-07-28 changelog: roots.listChanged removed',
  },
} satisfies Record<string, FeatureEntry>

export type FeatureName = keyof typeof FEATURE_TABLE
export const FEATURES: Readonly<Record<FeatureName, FeatureEntry>> = FEATURE_TABLE

/** Does `revision` have this protocol feature? The era facts call sites would otherwise restate as revision comparisons. */
export function hasFeature(revision: Revision, name: FeatureName): boolean {
  return inSpan(revision, FEATURES[name].span)
}

interface RevisionEntry {
  era: Era
  methods: RevisionMethods
  /** Core methods of earlier revisions that this one no longer has. */
  removed: string[]
  errorCodes: number[]
  headers: readonly string[]
  httpTransports: readonly string[]
  features: string[]
  capabilities: { client: string[]; server: string[] }
  /** Code of "resource not found" (-32002 legacy, -32602 in 2026: 2026-07-28 server/resources.mdx "Error Handling"). */
  resourceNotFoundCode: number
  /** Fields of each spec type in this revision (types the revision lacks are absent). */
  fields: Record<string, string[]>
}

function fieldsIn(revision: Revision, typeName: SpecTypeName): string[] {
  return Object.entries(TYPE_FIELDS[typeName].fields as Record<string, Span>)
    .filter(([, span]) => inSpan(revision, span))
    .map(([f]) => f)
}

function typesIn(revision: Revision): Record<string, string[]> {
  const names = (Object.keys(TYPE_FIELDS) as SpecTypeName[]).filter((name) => inSpan(revision, TYPE_FIELDS[name].span))
  return Object.fromEntries(names.map((name) => [name, fieldsIn(revision, name)]))
}

function revisionEntry(revision: Revision): RevisionEntry {
  const everMethods = new Set(REVISIONS.flatMap((r) => Object.values(METHODS[r]).flat() as string[]))
  return {
    era: eraOf(revision),
    methods: METHODS[revision],
    removed: [...everMethods].filter((m) => isRemovedIn(revision, m)).sort(),
    errorCodes: PROTOCOL_ERROR_CODES.filter((e) => inSpan(revision, e.span)).map((e) => e.code),
    headers: HEADERS_BY_REVISION[revision],
    httpTransports: HTTP_TRANSPORTS[revision],
    features: Object.entries(FEATURES)
      .filter(([, f]) => inSpan(revision, f.span))
      .map(([name]) => name),
    capabilities: { client: fieldsIn(revision, 'ClientCapabilities'), server: fieldsIn(revision, 'ServerCapabilities') },
    resourceNotFoundCode: isModernRevision(revision) ? RPC.INVALID_PARAMS : RPC.RESOURCE_NOT_FOUND_LEGACY,
    fields: typesIn(revision),
  }
}

/** The whole matrix, JSON-serialisable. */
export const PROTOCOL_MATRIX = {
  revisions: [...REVISIONS],
  latest: { legacy: LATEST_LEGACY, modern: LATEST_MODERN },
  byRevision: Object.fromEntries(REVISIONS.map((r) => [r, revisionEntry(r)])) as Record<Revision, RevisionEntry>,
  extensions: EXTENSION_METHODS,
  errorCodes: PROTOCOL_ERROR_CODES,
  features: FEATURES,
  types: TYPE_FIELDS,
}
export type ProtocolMatrix = typeof PROTOCOL_MATRIX
