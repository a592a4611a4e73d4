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
import * as c from './client.ts'
import * as s from './server.ts'
import { isRecord } from '../jsonrpc.ts'

type AnySchema = v.GenericSchema<unknown, unknown>

/** Output type of parseParams per method (the superset over revisions). */
export interface ParamsByMethod {
  initialize: c.InitializeParams
  ping: c.EmptyParams
  'server/discover': c.EmptyParams
  'tools/list': c.PaginatedParams
  'tools/call': c.CallToolParams
  'resources/list': c.PaginatedParams
  'resources/templates/list': c.PaginatedParams
  'resources/read': c.ReadResourceParams
  'resources/subscribe': c.ResourceUriParams
  'resources/unsubscribe': c.ResourceUriParams
  'prompts/list': c.PaginatedParams
  'prompts/get': c.GetPromptParams
  'completion/complete': c.CompleteParams
  'logging/setLevel': c.SetLevelParams
  'subscriptions/listen': c.ListenParams
  'tasks/get': c.TaskIdParams
  'tasks/result': c.TaskIdParams
  'tasks/cancel': c.TaskIdParams
  'tasks/list': c.PaginatedParams
  'tasks/update': c.TaskUpdateParams
  'notifications/initialized': c.EmptyParams
  'notifications/cancelled': c.CancelledParams
  'notifications/progress': c.ProgressParams
  'notifications/roots/list_changed': c.EmptyParams
  'notifications/tasks/status': c.TaskStatusParams
  'sampling/createMessage': s.CreateMessageParams
  'elicitation/create': s.ElicitParams
  'roots/list': c.EmptyParams
}

const FIXED: Record<string, AnySchema> = {
  initialize: c.InitializeParamsSchema,
  ping: c.EmptyParamsSchema,
  'server/discover': c.EmptyParamsSchema,
  'tools/list': c.PaginatedParamsSchema,
  'tools/call': c.CallToolParamsSchema,
  'resources/list': c.PaginatedParamsSchema,
  'resources/templates/list': c.PaginatedParamsSchema,
  'resources/read': c.ReadResourceParamsSchema,
  'resources/subscribe': c.ResourceUriParamsSchema,
  'resources/unsubscribe': c.ResourceUriParamsSchema,
  'prompts/list': c.PaginatedParamsSchema,
  'prompts/get': c.GetPromptParamsSchema,
  'completion/complete': c.CompleteParamsSchema,
  'logging/setLevel': c.SetLevelParamsSchema,
  'subscriptions/listen': c.ListenParamsSchema,
  'tasks/get': c.TaskIdParamsSchema,
  'tasks/result': c.TaskIdParamsSchema,
  'tasks/cancel': c.TaskIdParamsSchema,
  'tasks/list': c.PaginatedParamsSchema,
  'tasks/update': c.TaskUpdateParamsSchema,
  'notifications/initialized': c.EmptyParamsSchema,
  'notifications/progress': c.ProgressParamsSchema,
  'notifications/roots/list_changed': c.EmptyParamsSchema,
  'notifications/tasks/status': c.TaskStatusParamsSchema,
  'sampling/createMessage': s.CreateMessageParamsSchema,
  'roots/list': c.EmptyParamsSchema,
  // Server notifications a client receives.
  'notifications/message': v.looseObject({ level: v.string(), logger: v.optional(v.string()), data: v.unknown() }),
  'notifications/resources/updated': c.ResourceUriParamsSchema,
  'notifications/resources/list_changed': c.EmptyParamsSchema,
  'notifications/tools/list_changed': c.EmptyParamsSchema,
  'notifications/prompts/list_changed': c.EmptyParamsSchema,
  'notifications/subscriptions/acknowledged': v.looseObject({ notifications: c.SubscriptionFilterSchema }),
  'notifications/elicitation/complete': v.looseObject({ elicitationId: v.string() }),
  'notifications/tasks': v.looseObject({ taskId: v.string(), status: v.string() }),
}

/** The params schema of `method` under `revision`, or undefined for a method without one. */
function paramsSchema(revision: Revision, method: string, params?: unknown): AnySchema | undefined {
  switch (method) {
    case 'notifications/cancelled':
      return revision === '2025-11-25' ? c.CancelledParamsOptionalIdSchema : c.CancelledParamsSchema
    case 'elicitation/create':
      if (isRecord(params) && params.mode === 'url' && revision >= '2025-11-25') {
        return revision === '2025-11-25' ? s.ElicitUrlParams20251125Schema : s.ElicitUrlParamsSchema
      }
      return s.ElicitFormParamsSchema
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

