/**
 * Params of every client-to-server request and notification, all revisions (schema.json
 * ClientRequest / ClientNotification unions, plus the SEP-2663 tasks extension). One schema per
 * method covers every revision: fields a revision lacks are optional, so only the revision-specific
 * required fields are picked in schemaFor (parse.ts).
 */
import * as v from 'valibot'
import {
  baseParams,
  ClientCapabilitiesSchema,
  CursorSchema,
  ImplementationSchema,
  LogLevelSchema,
  mrtrParams,
  OpenObjectSchema,
  ProgressTokenSchema,
  RequestIdSchema,
  TaskMetadataSchema,
} from './common.ts'

export const EmptyParamsSchema = v.looseObject({ ...baseParams })
export type EmptyParams = v.InferOutput<typeof EmptyParamsSchema>

export const InitializeParamsSchema = v.looseObject({
  ...baseParams,
  protocolVersion: v.string(),
  capabilities: ClientCapabilitiesSchema,
  clientInfo: ImplementationSchema,
})
export type InitializeParams = v.InferOutput<typeof InitializeParamsSchema>

export const PaginatedParamsSchema = v.looseObject({ ...baseParams, cursor: v.optional(CursorSchema) })
export type PaginatedParams = v.InferOutput<typeof PaginatedParamsSchema>

export const CallToolParamsSchema = v.looseObject({
  ...baseParams,
  ...mrtrParams,
  name: v.string(),
  arguments: v.optional(v.record(v.string(), v.unknown())),
  task: v.optional(TaskMetadataSchema),
})
export type CallToolParams = v.InferOutput<typeof CallToolParamsSchema>

export const ReadResourceParamsSchema = v.looseObject({ ...baseParams, ...mrtrParams, uri: v.string() })
export type ReadResourceParams = v.InferOutput<typeof ReadResourceParamsSchema>

export const ResourceUriParamsSchema = v.looseObject({ ...baseParams, uri: v.string() })
export type ResourceUriParams = v.InferOutput<typeof ResourceUriParamsSchema>

export const GetPromptParamsSchema = v.looseObject({
  ...baseParams,
  ...mrtrParams,
  name: v.string(),
  arguments: v.optional(v.record(v.string(), v.string())),
})
export type GetPromptParams = v.InferOutput<typeof GetPromptParamsSchema>

const PromptRefSchema = v.looseObject({ type: v.literal('ref/prompt'), name: v.string(), title: v.optional(v.string()) })
const ResourceRefSchema = v.looseObject({ type: v.literal('ref/resource'), uri: v.string() })
export const CompleteParamsSchema = v.looseObject({
  ...baseParams,
  ref: v.variant('type', [PromptRefSchema, ResourceRefSchema]),
  argument: v.looseObject({ name: v.string(), value: v.string() }),
  // 2025-06-18 added context.arguments (CompleteRequest.params.context).
  context: v.optional(v.looseObject({ arguments: v.optional(v.record(v.string(), v.string())) })),
})
export type CompleteParams = v.InferOutput<typeof CompleteParamsSchema>

export const SetLevelParamsSchema = v.looseObject({ ...baseParams, level: LogLevelSchema })
export type SetLevelParams = v.InferOutput<typeof SetLevelParamsSchema>

/** 2026-07-28 SubscriptionFilter (basic/patterns/subscriptions.mdx). */
export const SubscriptionFilterSchema = v.looseObject({
  toolsListChanged: v.optional(v.boolean()),
  promptsListChanged: v.optional(v.boolean()),
  resourcesListChanged: v.optional(v.boolean()),
  resourceSubscriptions: v.optional(v.array(v.string())),
  // SEP-2663: task status pushes need the task ids in the filter.
  taskIds: v.optional(v.array(v.string())),
})
export const ListenParamsSchema = v.looseObject({ ...baseParams, notifications: SubscriptionFilterSchema })
export type ListenParams = v.InferOutput<typeof ListenParamsSchema>

export const TaskIdParamsSchema = v.looseObject({ ...baseParams, taskId: v.string() })
export type TaskIdParams = v.InferOutput<typeof TaskIdParamsSchema>

/** SEP-2663 tasks/update: answers to a task's outstanding input requests. */
export const TaskUpdateParamsSchema = v.looseObject({
  ...baseParams,
  taskId: v.string(),
  inputResponses: v.record(v.string(), v.unknown()),
})
export type TaskUpdateParams = v.InferOutput<typeof TaskUpdateParamsSchema>

/** notifications/cancelled: requestId is optional only in 2025-11-25 (tasks; 2025-11-25 schema/schema.json CancelledNotificationParams). */
export const CancelledParamsSchema = v.looseObject({ ...baseParams, requestId: RequestIdSchema, reason: v.optional(v.string()) })
export const CancelledParamsOptionalIdSchema = v.looseObject({
  ...baseParams,
  requestId: v.optional(RequestIdSchema),
  reason: v.optional(v.string()),
})
export type CancelledParams = v.InferOutput<typeof CancelledParamsOptionalIdSchema>

export const ProgressParamsSchema = v.looseObject({
  ...baseParams,
  progressToken: ProgressTokenSchema,
  progress: v.number(),
  total: v.optional(v.number()),
  message: v.optional(v.string()),
})
export type ProgressParams = v.InferOutput<typeof ProgressParamsSchema>

const TaskStatusSchema = v.picklist(['working', 'input_required', 'completed', 'failed', 'cancelled'])
/** 2025-11-25 notifications/tasks/status params = Task (basic/utilities/tasks.mdx). */
export const TaskStatusParamsSchema = v.looseObject({
  ...baseParams,
  taskId: v.string(),
  status: TaskStatusSchema,
  statusMessage: v.optional(v.string()),
  createdAt: v.string(),
  lastUpdatedAt: v.string(),
  ttl: v.nullable(v.number()),
  pollInterval: v.optional(v.number()),
})
export type TaskStatusParams = v.InferOutput<typeof TaskStatusParamsSchema>

export { OpenObjectSchema }
