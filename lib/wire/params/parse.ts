/**
 * parseParams: the edge check of incoming request and notification params, per revision. A method
 * the revision lacks is -32601 (HTTP 404 for modern); bad params are -32602 naming
 * `<method>: <path>: <problem>`; a 2026 request without the required `_meta` keys is -32602 with
 * HTTP 400 (2026-07-28 basic/index.mdx "`_meta`": a request missing required metadata MUST be 400 over HTTP).
 */
import * as v from 'valibot'
import { isModernRevision, type Revision } from '../constants.ts'
import { isRequestMethod, methodExists } from '../matrix/methods.ts'
import { invalidParams, methodNotFound } from '../rpc-errors.ts'
import { ModernRequestMetaSchema, OpenObjectSchema } from './common.ts'
// Param schemas by the side that sends them: client.ts (client→server requests), server.ts (server→client).
import * as fromClient from './client.ts'
import * as fromServer from './server.ts'
import { isRecord } from '../jsonrpc.ts'

type AnySchema = v.GenericSchema<unknown, unknown>

/** Output type of parseParams per method (the superset over revisions). */
export interface ParamsByMethod {
  initialize: fromClient.InitializeParams
  ping: fromClient.EmptyParams
  'server/discover': fromClient.EmptyParams
  'tools/list': fromClient.PaginatedParams
  'tools/call': fromClient.CallToolParams
  'resources/list': fromClient.PaginatedParams
  'resources/templates/list': fromClient.PaginatedParams
  'resources/read': fromClient.ReadResourceParams
  'resources/subscribe': fromClient.ResourceUriParams
  'resources/unsubscribe': fromClient.ResourceUriParams
  'prompts/list': fromClient.PaginatedParams
  'prompts/get': fromClient.GetPromptParams
  'completion/complete': fromClient.CompleteParams
  'logging/setLevel': fromClient.SetLevelParams
  'subscriptions/listen': fromClient.ListenParams
  'tasks/get': fromClient.TaskIdParams
  'tasks/result': fromClient.TaskIdParams
  'tasks/cancel': fromClient.TaskIdParams
  'tasks/list': fromClient.PaginatedParams
  'tasks/update': fromClient.TaskUpdateParams
  'notifications/initialized': fromClient.EmptyParams
  'notifications/cancelled': fromClient.CancelledParams
  'notifications/progress': fromClient.ProgressParams
  'notifications/roots/list_changed': fromClient.EmptyParams
  'notifications/tasks/status': fromClient.TaskStatusParams
  'sampling/createMessage': fromServer.CreateMessageParams
  'elicitation/create': fromServer.ElicitParams
  'roots/list': fromClient.EmptyParams
}

const FIXED: Record<string, AnySchema> = {
  initialize: fromClient.InitializeParamsSchema,
  ping: fromClient.EmptyParamsSchema,
  'server/discover': fromClient.EmptyParamsSchema,
  'tools/list': fromClient.PaginatedParamsSchema,
  'tools/call': fromClient.CallToolParamsSchema,
  'resources/list': fromClient.PaginatedParamsSchema,
  'resources/templates/list': fromClient.PaginatedParamsSchema,
  'resources/read': fromClient.ReadResourceParamsSchema,
  'resources/subscribe': fromClient.ResourceUriParamsSchema,
  'resources/unsubscribe': fromClient.ResourceUriParamsSchema,
  'prompts/list': fromClient.PaginatedParamsSchema,
  'prompts/get': fromClient.GetPromptParamsSchema,
  'completion/complete': fromClient.CompleteParamsSchema,
  'logging/setLevel': fromClient.SetLevelParamsSchema,
  'subscriptions/listen': fromClient.ListenParamsSchema,
  'tasks/get': fromClient.TaskIdParamsSchema,
  'tasks/result': fromClient.TaskIdParamsSchema,
  'tasks/cancel': fromClient.TaskIdParamsSchema,
  'tasks/list': fromClient.PaginatedParamsSchema,
  'tasks/update': fromClient.TaskUpdateParamsSchema,
  'notifications/initialized': fromClient.EmptyParamsSchema,
  'notifications/progress': fromClient.ProgressParamsSchema,
  'notifications/roots/list_changed': fromClient.EmptyParamsSchema,
  'notifications/tasks/status': fromClient.TaskStatusParamsSchema,
  'sampling/createMessage': fromServer.CreateMessageParamsSchema,
  'roots/list': fromClient.EmptyParamsSchema,
  // Server notifications a client receives.
  'notifications/message': v.looseObject({ level: v.string(), logger: v.optional(v.string()), data: v.unknown() }),
  'notifications/resources/updated': fromClient.ResourceUriParamsSchema,
  'notifications/resources/list_changed': fromClient.EmptyParamsSchema,
  'notifications/tools/list_changed': fromClient.EmptyParamsSchema,
  'notifications/prompts/list_changed': fromClient.EmptyParamsSchema,
  'notifications/subscriptions/acknowledged': v.looseObject({ notifications: fromClient.SubscriptionFilterSchema }),
  'notifications/elicitation/complete': v.looseObject({ elicitationId: v.string() }),
  'notifications/tasks': v.looseObject({ taskId: v.string(), status: v.string() }),
}

/** The params schema of `method` under `revision`, or undefined for a method without one. */
function paramsSchema(revision: Revision, method: string, params?: unknown): AnySchema | undefined {
  switch (method) {
    case 'notifications/cancelled':
      return revision === '2025-11-25' ? fromClient.CancelledParamsOptionalIdSchema : fromClient.CancelledParamsSchema
    case 'elicitation/create':
      if (isRecord(params) && params.mode === 'url' && revision >= '2025-11-25') {
        return revision === '2025-11-25' ? fromServer.ElicitUrlParams20251125Schema : fromServer.ElicitUrlParamsSchema
      }
      return fromServer.ElicitFormParamsSchema
    default:
      return FIXED[method]
  }
}

/**
 * Validate incoming `params` of `method` for a peer speaking `revision` and return them typed.
 * Unknown extra fields are kept (the spec allows extension). Throws RpcError.
 */
export function parseParams<M extends keyof ParamsByMethod>(revision: Revision, method: M, params: unknown): ParamsByMethod[M]
export function parseParams(revision: Revision, method: string, params: unknown): Record<string, unknown>
export function parseParams(revision: Revision, method: string, params: unknown): Record<string, unknown> {
  if (!methodExists(revision, method, undefined, { extensions: true })) throw methodNotFound(method, revision)
  if (params !== undefined && !isRecord(params)) throw invalidParams(`${method}: params: expected an object`)
  const value = params ?? {}
  if (isModernRevision(revision) && isRequestMethod(revision, method, 'client-to-server', { extensions: true })) {
    const meta = v.safeParse(ModernRequestMetaSchema, value._meta)
    if (!meta.success) throw invalidParams(`${method}: ${describe(meta.issues, '_meta')}`, undefined, true)
  }
  if (method === 'tools/call' && isPlainCall(value)) return value
  const schema = paramsSchema(revision, method, value)
  if (schema === undefined) return v.parse(OpenObjectSchema, value)
  const parsed = v.safeParse(schema, value)
  if (!parsed.success) throw invalidParams(`${method}: ${describe(parsed.issues)}`)
  return parsed.output as Record<string, unknown>
}

/**
 * tools/call in its everyday shape: a name, object arguments, at most a progress token in `_meta`.
 * The schema surely accepts it (CallToolParamsSchema), and every tool call passes here, so this
 * shape skips the schema walk; anything else (tasks, MRTR retries, odd values) takes the schema.
 */
function isPlainCall(params: Record<string, unknown>): boolean {
  for (const key in params) if (key !== 'name' && key !== 'arguments' && key !== '_meta') return false
  if (typeof params.name !== 'string' || (params.arguments !== undefined && !isRecord(params.arguments))) return false
  const meta = params._meta
  if (meta === undefined) return true
  if (!isRecord(meta)) return false
  const token = meta.progressToken
  return token === undefined || typeof token === 'string' || typeof token === 'number'
}

/** `path: problem` for each issue (`params` when the issue is at the root), joined with "; ". */
function describe(issues: readonly v.BaseIssue<unknown>[], prefix?: string): string {
  return issues
    .map((issue) => {
      const keys = issue.path?.map((p) => String(p.key)) ?? []
      const path = [...(prefix === undefined ? [] : [prefix]), ...keys].join('.') || 'params'
      return `${path}: ${issue.message}`
    })
    .join('; ')
}
