/** The wire room: JSON-RPC envelope, spec constants, revision matrix, param schemas, per-revision shaping, header codec. Pure. */
export * from './constants.ts'
export * from './jsonrpc.ts'
export { keepRawIds, restoreRawIds } from './raw-ids.ts'
export {
  resourceNotFound,
  unsupportedVersion,
  headerMismatch,
  missingCapability,
  methodNotFound,
  invalidParams,
  urlElicitationRequired,
  httpStatusOf,
} from './rpc-errors.ts'
export { encodeHeaderValue, decodeHeaderValue, headerMatchesValue, MAX_HEADER_INTEGER } from './header-codec.ts'
export {
  HTTP_TOKEN,
  findHeaderParams,
  requestHeaders,
  mcpNameSource,
  requiresMcpName,
  valueAt,
  type HeaderParam,
  type HeaderParamsResult,
  type HeaderTool,
} from './header-params.ts'
export { SUBSCHEMA_LIST, SUBSCHEMA_MAP, SUBSCHEMA_ONE } from './schema-keywords.ts'
export {
  METHODS,
  EXTENSION_METHODS,
  methodExists,
  isRequestMethod,
  isRemovedIn,
  introducedIn,
  isSpecMethod,
  type Direction,
  type RevisionMethods,
  type ExtensionMethods,
  type MethodQuery,
} from './matrix/methods.ts'
export { TYPE_FIELDS, projectFields, hasField, inSpan, type Span, type SpecTypeName, type TypeFields } from './matrix/fields.ts'
export { shapeResult, withCacheHints, CACHEABLE_METHODS, type CacheHints } from './shape/result.ts'
export { shapeNotification, type OutgoingNotification, type Shaped } from './shape/notification.ts'
export { shapeRequest, shapeSamplingContent, type OutgoingRequest } from './shape/request.ts'
export { upgradeResult, isResourceNotFoundError, isKnownResultType, malformedResult, withContentBlocks } from './shape/upgrade.ts'
export { shapeClientRequest } from './shape/client-request.ts'
export {
  shapeTool,
  shapeResource,
  shapeResourceTemplate,
  shapePrompt,
  shapePromptMessage,
  shapeContentBlock,
  shapeResourceContents,
  shapeImplementation,
  shapeServerCapabilities,
  shapeClientCapabilities,
  shapeRoot,
} from './shape/entities.ts'
export { shapeMeta, MODERN_META_KEYS } from './shape/meta.ts'
export { legacyTask, modernTask } from './shape/tasks.ts'
export { capabilitiesForHosts, listProblems } from './shape/typed-fields.ts'
export { describedWithRule, hostSafeInputSchema, modelRuleProblems } from './shape/model-rules.ts'
export { modelToolName } from './tool-names.ts'
export {
  PROTOCOL_MATRIX,
  PROTOCOL_ERROR_CODES,
  HEADERS_BY_REVISION,
  HTTP_TRANSPORTS,
  FEATURES,
  hasFeature,
  type ProtocolMatrix,
  type ErrorCodeEntry,
  type FeatureEntry,
  type FeatureName,
} from './matrix/protocol.ts'
export { parseParams, type ParamsByMethod } from './params/parse.ts'
export {
  ImplementationSchema,
  ClientCapabilitiesSchema,
  ModernRequestMetaSchema,
  LogLevelSchema,
  RequestIdSchema,
  ProgressTokenSchema,
  type Implementation,
  type ClientCapabilities,
  type ModernRequestMeta,
} from './params/common.ts'
export type {
  InitializeParams,
  PaginatedParams,
  CallToolParams,
  ReadResourceParams,
  ResourceUriParams,
  GetPromptParams,
  CompleteParams,
  SetLevelParams,
  ListenParams,
  TaskIdParams,
  TaskUpdateParams,
  CancelledParams,
  ProgressParams,
  TaskStatusParams,
  EmptyParams,
} from './params/client.ts'
export type { CreateMessageParams, ElicitParams } from './params/server.ts'
export { scanBatch, scanEnvelope, type Envelope } from './envelope-scan.ts'
