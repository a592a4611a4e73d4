/**
 * Upstream tools, prompts, resources and templates turned into server providers: namespaced
 * (`<ns>_<tool>`, `<ns>_<prompt>`, `mcpx://<ns>/<uri>`) for the gateway surfaces, or under their
 * own names for pass-through. Every handler forwards to the pool with questions brokered back.
 */
import type { AccessView } from '../../access/index.ts'
import type { JsonObject } from '../../client/index.ts'
import {
  type CompleteRequest,
  type Engine,
  type HandlerContext,
  type PromptDef,
  type ResourceDef,
  type ServerDefinition,
  TOOL_WIRE_FIELDS,
  type TemplateDef,
  type ToolDef,
  type ToolRelay,
  type UnknownNames,
} from '../../server/index.ts'
import type { Settings } from '../../settings/index.ts'
import { RPC, RpcError } from '../../errors/index.ts'
import {
  RESULT_TYPE,
  type Revision,
  describedWithRule,
  hasFeature,
  hostSafeInputSchema,
  isRecord,
  isResourceNotFoundError,
  resourceNotFound,
} from '../../wire/index.ts'
import type { Catalog } from '../pool-shapes.ts'
import { gatewayResourceUri, rawName } from '../naming.ts'
import { appOf, appResourceUri, isAppResourceUri, rewriteAppMeta, upstreamAppResource } from '../apps.ts'
import type { UpstreamPool } from '../upstream-pool.ts'
import { type BrokeredCallOptions, brokeredCall, upstreamCapabilities } from './brokered-call.ts'
import { RelayedToolCall } from './relayed-tool-call.ts'
import type { ParkingLot } from './parking.ts'
import { relayTask } from './task-relay.ts'
import { relayResult } from './upstream-result.ts'

export interface ItemOptions {
  readonly pool: UpstreamPool
  readonly parking: ParkingLot
  /** true: offer items under their upstream names (pass-through). */
  readonly ownNames: boolean
  /** Pass-through of an upstream serving tasks: the gateway engine's task store (task-relay.ts). */
  readonly tasks?: () => Engine['tasks']
  readonly settings?: Settings
  /** The principal the surface serves: calls are checked against its policy and audited. */
  readonly view?: AccessView
}

/** What an upstream tool keeps as it is; its name is the surface's (rawName). */
const TOOL_FIELDS = TOOL_WIRE_FIELDS.filter((field) => field !== 'name')

export function upstreamTools(catalog: Catalog, options: ItemOptions): ToolDef[] {
  const upstream = options.pool.upstream(catalog.server)
  const { pool, parking, tasks } = options
  const server = catalog.server
  return catalog.tools.map((tool) => {
    const name = String(tool.name)
    const listedAs = options.ownNames ? name : rawName(server, name)
    // The engine's own check would compile the untrusted schema as is; the pool's validator is
    // ReDoS-safe and size-capped, so it checks instead, once (SEP-1303: an isError result).
    // Pass-through leaves arguments to the upstream: the host gets its own answer, as from it directly.
    const checked = upstream.validatesArguments && !options.ownNames
    // Every call's arguments meet this first: the everyday call fits and goes no further.
    const accept = checked ? upstream.argumentsAccept(tool) : undefined
    // The same for every call of this tool: built once, not per call (brokered-call.ts copies `call` in).
    const brokering: BrokeredCallOptions = {
      relayTasks: tasks !== undefined,
      allExtensions: options.ownNames,
      ...(options.settings && { ssePollAfterMs: options.settings.ssePollAfterMs }),
      call: { argumentsChecked: checked || options.ownNames, ...(options.view && { view: options.view }) },
      // A 2025-11-25 host's task here keeps the upstream task's id (ToolDef.adoptsTaskId).
      ...(tasks && { adoptTaskId: true }),
    }
    const def: ToolDef = {
      name: listedAs,
      ...(checked && {
        argumentsError: (args: JsonObject) => {
          if (accept?.(args)) return undefined
          const problem = upstream.argumentsProblem(tool, args, listedAs)
          return problem && { isError: true, content: [{ type: 'text', text: problem.message }] }
        },
      }),
      ...(tasks && { adoptsTaskId: true }),
      handler: (args, ctx) => {
        // The options brokeredCall built already carry asker, signal and this tool's fixed fields.
        const result = brokeredCall(ctx, parking, (_asker, _signal, call) => pool.call(server, name, args, call), brokering)
        if (!tasks) return result.then(relayResult)
        return result.then((answer) =>
          answer.resultType === RESULT_TYPE.TASK
            ? relayTask(ctx, answer, {
                pool,
                server,
                tasks: tasks(),
                settings: options.settings!,
                capabilities: upstreamCapabilities(ctx, true, true),
              })
            : relayResult(answer),
        )
      },
    }
    // A host's plain call may go on as it is (lib/server relay.ts), unless the principal's policy
    // audits it (view) or tasks are relayed; pool.relay declines whatever else it cannot relay.
    if (!options.view && !tasks) def.relay = { start: relayStart(pool, server, name, options.settings?.ssePollAfterMs ?? 0) }
    for (const field of TOOL_FIELDS) if (tool[field] !== undefined) (def as unknown as JsonObject)[field] = tool[field]
    // A schema model APIs refuse would fail the host's every request (wire model-rules.ts); pass-through keeps it.
    const shown = !options.ownNames && isRecord(tool.inputSchema) ? hostSafeInputSchema(tool.inputSchema) : undefined
    if (shown !== undefined && shown.schema !== tool.inputSchema) def.inputSchema = shown.schema as ToolDef['inputSchema']
    if (shown?.rule !== undefined) def.description = describedWithRule(tool.description, shown.rule)
    // MCP Apps: the UI resource is re-addressed with the tool (apps.ts); pass-through keeps it.
    if (!options.ownNames && isRecord(tool._meta) && appOf(tool) !== undefined) def._meta = rewriteAppMeta(catalog.server, tool._meta)
    // The catalog's own answer: the live connection may be down (a rebuild during a reconnect).
    if (options.tasks && (catalog.decidesTasksPerCall ?? upstream.decidesTasksPerCall) && tool.execution === undefined) {
      // A 2026 upstream decides per call (extensions/tasks); a 2025-11-25 host asks per tool. The
      // tool is offered as task-optional to such hosts; its `task` hint becomes the extension
      // declared upstream on that call, and the host's task keeps the upstream's id when the
      // upstream answers with a task (else mcpx holds the result as a task of its own). A 2026
      // listing drops `execution` at the edge (its Tool has none).
      def.execution = { taskSupport: 'optional' }
      def.relaysTasks = true
    }
    if (taskRequired(tool)) {
      // mcpx runs the upstream task itself for a caller that asks for none (task-runner.ts): the
      // renamed surfaces list the tool as "optional" so hosts without tasks call it; pass-through
      // lists it as the upstream gave it and still serves the untasked call.
      def.servesUntasked = true
      if (!options.ownNames) def.execution = { ...(tool.execution as JsonObject), taskSupport: 'optional' }
    }
    return def
  })
}

/** The relay of one upstream tool: what its handler does for a plain call (relayed-tool-call.ts), with no handler context until one is needed. */
function relayStart(pool: UpstreamPool, server: string, tool: string, ssePollAfterMs: number): ToolRelay['start'] {
  return (args, call) =>
    // A 2025-11-25 host's stream may have to be closed mid-call (brokeredCall's SSE polling): the handler's way.
    !(ssePollAfterMs > 0 && hasFeature(call.revision, 'ssePolling')) && new RelayedToolCall(pool, server, tool, call).send(args)
}

function taskRequired(tool: JsonObject): boolean {
  const execution = tool.execution
  return typeof execution === 'object' && execution !== null && (execution as JsonObject).taskSupport === 'required'
}

export function upstreamPrompts(catalog: Catalog, options: ItemOptions): PromptDef[] {
  return catalog.prompts.map((prompt) => {
    const name = String(prompt.name)
    return {
      ...(prompt as Omit<PromptDef, 'handler'>),
      name: options.ownNames ? name : rawName(catalog.server, name),
      handler: async (args, ctx) =>
        relayResult(
          await forward(options, ctx, (asker, signal, extra) =>
            options.pool.request(
              catalog.server,
              'prompts/get',
              { name, arguments: args },
              { ...extra, asker, signal, ...(options.view && { view: options.view }) },
            ),
          ),
        ),
    }
  })
}

/** An upstream resource's URI on the renamed surfaces: `mcpx://<ns>/<uri>`, or `ui://<ns>/…` for an MCP Apps one. */
export function exposedResourceUri(server: string, uri: string): string {
  return isAppResourceUri(uri) ? appResourceUri(server, uri) : gatewayResourceUri(server, uri)
}

/** The upstream and its own URI behind a renamed surface's resource URI (listed, or under `mcpx://<ns>/`), if any. */
export function resourceOrigin(catalogs: readonly Catalog[], uri: string): { server: string; uri: string } | undefined {
  for (const catalog of catalogs) {
    const listed = catalog.resources.find((r) => exposedResourceUri(catalog.server, String(r.uri)) === uri)
    if (listed) return { server: catalog.server, uri: String(listed.uri) }
    const prefix = gatewayResourceUri(catalog.server, '')
    if (uri.startsWith(prefix)) return { server: catalog.server, uri: uri.slice(prefix.length) }
  }
  return undefined
}

export function upstreamResources(catalog: Catalog, options: ItemOptions): ResourceDef[] {
  return catalog.resources.map((resource) => {
    const uri = String(resource.uri)
    const exposed = options.ownNames ? uri : exposedResourceUri(catalog.server, uri)
    return {
      ...(resource as Omit<ResourceDef, 'read'>),
      uri: exposed,
      read: async (ctx) => readThrough(options, ctx, catalog.server, uri, exposed),
    }
  })
}

export function upstreamTemplates(catalog: Catalog, options: ItemOptions): TemplateDef[] {
  return catalog.resourceTemplates.map((template) => {
    const uriTemplate = String(template.uriTemplate)
    const prefix = options.ownNames ? '' : gatewayResourceUri(catalog.server, '')
    return {
      ...(template as Omit<TemplateDef, 'read'>),
      uriTemplate: `${prefix}${uriTemplate}`,
      read: async (uri, _vars, ctx) => readThrough(options, ctx, catalog.server, uri.slice(prefix.length), uri),
    }
  })
}

/**
 * Pass-through: names the catalog does not hold (yet) are the upstream's to answer, after the
 * config's allowed/blocked lists (Upstream.call refuses those); its result, isError or error is
 * relayed as given (issue: "pass-through as itself").
 */
export function forwardUnknown(server: string, options: ItemOptions): UnknownNames {
  const upstream = () => options.pool.upstream(server)
  return {
    callTool: async (name, args, ctx) =>
      relayResult(
        await brokeredCall(ctx, options.parking, (asker, signal, extra) => upstream().call(name, args, { ...extra, asker, signal }), {
          allExtensions: true,
          ...(options.settings && { ssePollAfterMs: options.settings.ssePollAfterMs }),
        }),
      ),
    getPrompt: async (name, args, ctx) =>
      relayResult(
        await forward(options, ctx, (asker, signal, extra) =>
          options.pool.request(server, 'prompts/get', { name, arguments: args }, { ...extra, asker, signal }),
        ),
      ),
    readResource: (uri, ctx) => readThrough(options, ctx, server, uri, uri),
  }
}

/**
 * The renamed surfaces: a `ui://<server>/…` URI that no listed resource holds (servers MAY leave
 * UI resources out of resources/list: they are found through tool metadata) is read from that
 * upstream under its own URI; anything else is not found.
 */
export function readUnlistedApps(options: ItemOptions): UnknownNames {
  return {
    readResource: async (uri, ctx) => {
      const target = upstreamAppResource(uri)
      if (!target || !options.pool.names().includes(target.server)) {
        throw resourceNotFound(ctx.revision, uri)
      }
      return readThrough(options, ctx, target.server, target.uri, uri)
    },
  }
}

async function readThrough(options: ItemOptions, ctx: HandlerContext, server: string, uri: string, exposed: string): Promise<JsonObject> {
  let answer: JsonObject
  try {
    answer = await forward(options, ctx, (asker, signal, extra) =>
      options.pool.request(server, 'resources/read', { uri }, { ...extra, asker, signal, ...(options.view && { view: options.view }) }),
    )
  } catch (error) {
    throw error instanceof RpcError && isResourceNotFoundError({ code: error.rpcCode, data: error.rpcData })
      ? notFoundAsHostKnowsIt(error, ctx.revision, exposed)
      : error
  }
  const result = relayResult(answer)
  if (options.ownNames || !Array.isArray(result.contents)) return result
  // Contents name the resource as the downstream knows it.
  return { ...result, contents: (result.contents as JsonObject[]).map((c) => (c.uri === uri ? { ...c, uri: exposed } : c)) }
}

/**
 * The upstream's "resource not found" in the code of the host's revision (-32002 before 2026-07-28,
 * -32602 with `data.uri` from it: 2026-07-28 server/resources.mdx "Error Handling"), naming the URI
 * as the host knows it; the upstream's own message kept. Upstream and host may be of different eras.
 */
function notFoundAsHostKnowsIt(error: RpcError, revision: Revision, exposed: string): RpcError {
  const code = resourceNotFound(revision, exposed).rpcCode
  return new RpcError(code, error.message, { ...(isRecord(error.rpcData) && error.rpcData), uri: exposed })
}

function forward(options: ItemOptions, ctx: HandlerContext, run: Parameters<typeof brokeredCall>[2]): Promise<JsonObject> {
  return brokeredCall(ctx, options.parking, run, { allExtensions: options.ownNames })
}

/**
 * completion/complete on a renamed surface (2025-11-25 server/utilities/completion.mdx): the prompt
 * (`<ns>_<prompt>`) or resource template (`mcpx://<ns>/<template>`) is found among `catalogs` as the
 * surface lists them, and the request goes to its upstream under the upstream's own name. A ref to
 * nothing listed is -32602; one whose upstream offers no completions gets none.
 */
export function completeThrough(options: ItemOptions, catalogs: () => readonly Catalog[]): NonNullable<ServerDefinition['complete']> {
  return async (request, ctx) => {
    const target = upstreamRef(catalogs(), request.ref)
    if (target === undefined) {
      const what = request.ref.type === 'ref/prompt' ? `prompt ${request.ref.name}` : `resource ${request.ref.uri}`
      throw new RpcError(RPC.INVALID_PARAMS, `completion/complete: no ${what} is listed here`, { ref: request.ref })
    }
    if (!target.catalog.completes) return { completion: { values: [], hasMore: false } }
    const params = { ...request, ref: target.ref } as unknown as JsonObject
    return options.pool.request(target.catalog.server, 'completion/complete', params, {
      signal: ctx.signal,
      ...(options.view && { view: options.view }),
    })
  }
}

function upstreamRef(
  catalogs: readonly Catalog[],
  ref: CompleteRequest['ref'],
): { catalog: Catalog; ref: CompleteRequest['ref'] } | undefined {
  if (ref.type === 'ref/prompt') {
    for (const catalog of catalogs) {
      const prompt = catalog.prompts.find((p) => rawName(catalog.server, String(p.name)) === ref.name)
      if (prompt) return { catalog, ref: { type: 'ref/prompt', name: String(prompt.name) } }
    }
    return undefined
  }
  const origin = resourceOrigin(catalogs, ref.uri)
  const catalog = origin && catalogs.find((c) => c.server === origin.server)
  if (!origin || !catalog) return undefined
  const listed = catalog.resourceTemplates.some((t) => t.uriTemplate === origin.uri) || catalog.resources.some((r) => r.uri === origin.uri)
  return listed ? { catalog, ref: { type: 'ref/resource', uri: origin.uri } } : undefined
}
