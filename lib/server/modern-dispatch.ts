/**
 * Modern-era dispatch (2026-07-28): every request stands alone. `_meta` is validated first
 * (lifecycle.ts), removed methods and unadvertised capabilities are -32601 (HTTP 404), the MRTR
 * methods run their handler with this round's answers and turn InputRequired into an
 * `input_required` result with a sealed `requestState` (basic/patterns/mrtr.mdx), and
 * `subscriptions/listen` holds its stream open until the client closes or cancels it.
 */
import { RPC, RpcError } from '../errors/index.ts'
import { EXTENSION, META, RESULT_TYPE, isRecord, isRequestMethod, methodNotFound, parseParams, type JsonRpcRequest } from '../wire/index.ts'
import { InputRequired, createContext, type ContextInit } from './context.ts'
import type { Channel, DispatchResult, EngineCore } from './engine.ts'
import { discoverResult, validateModernMeta, type ModernMeta } from './lifecycle.ts'
import { LIST_METHODS, callTool, complete, getPrompt, readResource, rendersApps, subscribed } from './providers.ts'
import type { RequestStatePayload } from './request-state.ts'
import { TaskStore, hasTasksExtension, taskSupportOf, type TaskContextExtras } from './tasks.ts'
import type { HandlerContext, JsonObject } from './server-definition.ts'

export async function dispatchModern(
  engine: EngineCore,
  req: JsonRpcRequest,
  channel: Channel,
  signal: AbortSignal,
): Promise<DispatchResult> {
  const raw: JsonObject = req.params ?? {}
  const meta = validateModernMeta(req.params)
  const { revision } = meta
  const caps = engine.capabilities(revision)
  const extensions = (caps.extensions ?? {}) as JsonObject
  const notFound = () => methodNotFound(req.method, revision)
  const tasksOn = EXTENSION.TASKS in extensions
  const isTaskMethod = req.method.startsWith('tasks/')
  if (!isRequestMethod(revision, req.method, 'client-to-server', { extensions: tasksOn })) throw notFound()
  const params = isTaskMethod ? raw : (parseParams(revision, req.method, raw) as JsonObject)

  const makeCtx = (prior?: RequestStatePayload, extras?: TaskContextExtras | Pick<ContextInit, 'signal' | 'taskAsk'>): HandlerContext =>
    createContext({
      era: 'modern',
      revision,
      signal,
      clientCapabilities: meta.clientCapabilities,
      clientInfo: meta.clientInfo,
      meta: meta.meta,
      outlet: channel.outlet,
      connection: channel.connection,
      notify: engine.notify,
      // logging.mdx: no notifications/message unless this request asked for a level.
      logLevel: meta.logLevel,
      inputResponses: isRecord(raw.inputResponses) ? raw.inputResponses : undefined,
      priorState: prior,
      ...extras,
    })
  /** tools/call, prompts/get, resources/read: the MRTR round trip. */
  const withInput = async (
    run: (ctx: HandlerContext) => Promise<JsonObject>,
    extras?: Pick<ContextInit, 'signal' | 'taskAsk'>,
  ): Promise<JsonObject> => {
    if (raw.inputResponses !== undefined && !isRecord(raw.inputResponses))
      throw new RpcError(RPC.INVALID_PARAMS, 'params.inputResponses must be an object')
    const prior = raw.requestState === undefined ? undefined : engine.codec.open(req.method, raw, raw.requestState, channel.principal)
    try {
      return await run(makeCtx(prior, extras))
    } catch (error) {
      if (!(error instanceof InputRequired)) throw error
      return {
        resultType: RESULT_TYPE.INPUT_REQUIRED,
        inputRequests: error.inputRequests,
        requestState: engine.codec.seal(req.method, raw, error.payload, channel.principal),
      }
    }
  }

  const listing = LIST_METHODS.get(req.method)
  if (listing) {
    if (!caps[listing.capability]) throw notFound()
    const hideApps = engine.def.appsToDeclaredClientsOnly === true && !rendersApps(meta.clientCapabilities)
    return { revision, result: listing.list(engine.registry, params, engine.settings.listPageSize, hideApps) }
  }
  switch (req.method) {
    case 'server/discover':
      return { revision, result: discoverResult(engine.def, engine.registry, revision) }
    case 'tools/call': {
      if (!caps.tools) throw notFound()
      const tool = tasksOn ? engine.registry.tool(String(params.name)) : undefined
      const support = tool?.relaysTasks ? 'forbidden' : taskSupportOf(tool)
      const negotiated = hasTasksExtension(meta.clientCapabilities)
      if (support === 'required' && !negotiated && !tool?.servesUntasked) throw TaskStore.requireExtension()
      if (support !== 'forbidden' && negotiated) {
        // SEP-2663: server-directed; a call still running after one turn becomes a task.
        const launch = engine.tasks.launchModern(signal)
        return {
          revision,
          result: await withInput(
            (ctx) => launch.run(() => callTool(engine.registry, params, ctx, engine.def.validateArguments ?? true)),
            launch.extras,
          ),
        }
      }
      return { revision, result: await withInput((ctx) => callTool(engine.registry, params, ctx, engine.def.validateArguments ?? true)) }
    }
    case 'prompts/get':
      if (!caps.prompts) throw notFound()
      return { revision, result: await withInput((ctx) => getPrompt(engine.registry, params, ctx, engine.def.validateArguments ?? true)) }
    case 'resources/read':
      if (!caps.resources) throw notFound()
      return { revision, result: await withInput((ctx) => readResource(engine.registry, params, ctx)) }
    case 'completion/complete':
      if (!caps.completions) throw notFound()
      return { revision, result: await complete(engine.def, engine.registry, params, makeCtx()) }
    case 'subscriptions/listen':
      return { revision, result: await listen(engine, req, channel, caps, meta.clientCapabilities, signal) }
    default:
      if (isTaskMethod && tasksOn) return { revision, result: await modernTaskMethod(engine, req.method, params, meta) }
      throw notFound()
  }
}

/**
 * Hold the stream open until the client cancels it (no response then) or the server ends it (a
 * result). Also serves legacy clients that ask for it (legacy-dispatch.ts: accept liberally).
 */
export async function listen(
  engine: EngineCore,
  req: JsonRpcRequest,
  channel: Channel,
  caps: JsonObject,
  clientCapabilities: JsonObject,
  signal: AbortSignal,
): Promise<JsonObject | undefined> {
  const resources = caps.resources as JsonObject | undefined
  const tasksServed = EXTENSION.TASKS in ((caps.extensions ?? {}) as JsonObject)
  const requested = req.params?.notifications as JsonObject | undefined
  // SEP-2663: asking for task notifications without the extension is -32021.
  if (tasksServed && Array.isArray(requested?.taskIds) && !hasTasksExtension(clientCapabilities)) throw TaskStore.requireExtension()
  const support = {
    tools: !!caps.tools,
    prompts: !!caps.prompts,
    resources: !!resources,
    subscribe: !!resources?.subscribe,
    tasks: tasksServed,
  }
  if (support.subscribe && Array.isArray(requested?.resourceSubscriptions))
    await subscribed(
      engine.def,
      requested.resourceSubscriptions.filter((uri): uri is string => typeof uri === 'string'),
    )
  const subscription = engine.listens.open(req.id, requested, support, channel.outlet, channel.connection)
  const aborted = new Promise<'aborted'>((resolve) =>
    signal.aborted ? resolve('aborted') : signal.addEventListener('abort', () => resolve('aborted'), { once: true }),
  )
  const how = await Promise.race([aborted, subscription.ended.then(() => 'ended' as const)])
  subscription.close()
  // Ended by the server: the listen response closes the stream gracefully, tagged like every message on it.
  return how === 'ended' ? { _meta: { [META.SUBSCRIPTION_ID]: req.id } } : undefined
}

/** SEP-2663 tasks/get | tasks/update | tasks/cancel; each needs the extension on this request (-32021). */
async function modernTaskMethod(engine: EngineCore, method: string, params: JsonObject, meta: ModernMeta): Promise<JsonObject> {
  if (!hasTasksExtension(meta.clientCapabilities)) throw TaskStore.requireExtension()
  const task = engine.tasks.get(params.taskId)
  if (method === 'tasks/get') return engine.tasks.detailed(await engine.tasks.mirroredTask(task))
  if (method === 'tasks/update') engine.tasks.update(task, params.inputResponses)
  else engine.tasks.cancel(task)
  return {}
}
