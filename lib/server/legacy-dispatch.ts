/**
 * Legacy-era dispatch (2024-11-05 … 2025-11-25): the `initialize` handshake, then the methods of
 * the negotiated revision with the capabilities declared at initialize. Server→client asks are real
 * requests on the call's own stream (context.ts). 2025-11-25 task-augmented calls go to tasks.ts.
 */
import { RPC, RpcError } from '../errors/index.ts'
import {
  LATEST_MODERN,
  LOG_LEVELS,
  isRecord,
  methodExists,
  methodNotFound,
  parseParams,
  type JsonRpcRequest,
  type LegacyRevision,
  type LogLevel,
} from '../wire/index.ts'
import type { LegacyState } from './connection.ts'
import { createContext, type ContextInit } from './context.ts'
import type { Channel, DispatchResult, EngineCore } from './engine.ts'
import { initializeResult, negotiateLegacy } from './lifecycle.ts'
import { LIST_METHODS, callTool, complete, getPrompt, readResource, rendersApps, subscribed } from './providers.ts'
import { listen } from './modern-dispatch.ts'
import { taskSupportOf } from './tasks.ts'
import type { HandlerContext, Implementation, JsonObject } from './server-definition.ts'

/** A connection that skipped initialize (a ping on stdio, or HTTP without a session): 2025-03-26 defaults. */
const FALLBACK_REVISION: LegacyRevision = '2025-03-26'
/** The revision that defines the core tasks (basic/utilities/tasks.mdx), served to older clients too. */
const TASKS_REVISION: LegacyRevision = '2025-11-25'

export async function dispatchLegacy(
  engine: EngineCore,
  req: JsonRpcRequest,
  channel: Channel,
  signal: AbortSignal,
): Promise<DispatchResult> {
  const { connection } = channel
  const raw: JsonObject = req.params ?? {}
  if (req.method === 'initialize') {
    const params = parseParams('2025-11-25', 'initialize', raw) as JsonObject
    const revision = negotiateLegacy(params.protocolVersion)
    // Built first: a server that cannot serve now refuses the handshake, and the connection stays uninitialized.
    const result = initializeResult(engine.def, engine.registry, revision)
    connection.legacy = {
      revision,
      clientCapabilities: isRecord(params.capabilities) ? params.capabilities : {},
      clientInfo: params.clientInfo as Implementation | undefined,
      initialized: false,
      subscriptions: new Set(),
    }
    return { revision, result }
  }
  const state = connection.legacy
  const revision = state?.revision ?? FALLBACK_REVISION
  if (req.method === 'ping') return { revision, result: {} }

  const caps = engine.capabilities(revision)
  // Accept liberally: a legacy client may ask for what mcpx can answer although its revision
  // predates it — subscriptions/listen (served as to a 2026 client) and the 2025-11-25 tasks.
  // Their results are spelled as the revision that defines them.
  if (req.method === 'subscriptions/listen')
    return { revision: LATEST_MODERN, result: await listen(engine, req, channel, caps, state?.clientCapabilities ?? {}, signal) }
  const tasksServed = engine.def.tasks ?? false
  if (req.method.startsWith('tasks/') && tasksServed && methodExists(TASKS_REVISION, req.method, 'client-to-server')) {
    return {
      revision: TASKS_REVISION,
      result: await legacyTaskMethod(engine, req.method, parseParams(TASKS_REVISION, req.method, raw) as JsonObject),
    }
  }
  if (!methodExists(revision, req.method, 'client-to-server')) throw methodNotFound(req.method, revision)
  const params = parseParams(revision, req.method, raw) as JsonObject
  const validates = engine.def.validateArguments ?? true
  const listing = LIST_METHODS.get(req.method)
  if (listing) {
    if (!caps[listing.capability]) throw methodNotFound(req.method, revision)
    const hideApps = engine.def.appsToDeclaredClientsOnly === true && !rendersApps(state?.clientCapabilities ?? {})
    return { revision, result: listing.list(engine.registry, params, engine.settings.listPageSize, hideApps) }
  }
  switch (req.method) {
    case 'logging/setLevel': {
      if (!caps.logging) throw methodNotFound(req.method, revision)
      const level = params.level
      if (typeof level !== 'string' || !(LOG_LEVELS as readonly string[]).includes(level))
        throw new RpcError(RPC.INVALID_PARAMS, `Invalid log level: ${String(level)}`)
      if (state) state.logLevel = level as LogLevel
      return { revision, result: {} }
    }
    case 'resources/subscribe':
    case 'resources/unsubscribe': {
      const resources = caps.resources as JsonObject | undefined
      if (!resources?.subscribe) throw methodNotFound(req.method, revision)
      const uri = params.uri as string
      if (req.method === 'resources/subscribe') {
        await subscribed(engine.def, [uri])
        state?.subscriptions.add(uri)
      } else state?.subscriptions.delete(uri)
      return { revision, result: {} }
    }
    case 'tools/call': {
      if (!caps.tools) throw methodNotFound(req.method, revision)
      // The 2025-11-25 `task` hint from a client of any legacy revision (older ones lose it in parsing).
      if (tasksServed && isRecord(raw.task) && !isRecord(params.task)) params.task = raw.task
      if (caps.tasks || (tasksServed && isRecord(params.task))) {
        // 2025-11-25 basic/utilities/tasks.mdx "Tool-Level Negotiation": -32601 when the tool refuses the mode.
        const tool = engine.registry.tool(String(params.name))
        const support = taskSupportOf(tool)
        const asked = isRecord(params.task)
        if (asked && support === 'forbidden')
          throw methodNotFound(req.method, revision, { message: `Tool ${String(params.name)} does not support task execution` })
        if (!asked && support === 'required' && !tool?.servesUntasked)
          throw methodNotFound(req.method, revision, { message: `Tool ${String(params.name)} must be called as a task` })
        if (asked) {
          // The call's stream ends with CreateTaskResult; later asks go to the unsolicited stream.
          const outlet = connection.unsolicited ?? { send: () => {} }
          const work = (extras: Pick<ContextInit, 'signal' | 'adoptTaskId'>) =>
            callTool(engine.registry, params, contextOf(engine, channel, state, revision, raw, signal, { ...extras, outlet }), validates)
          const result = tool?.adoptsTaskId
            ? await engine.tasks.launchLegacyAdopting(params.task as JsonObject, work)
            : engine.tasks.launchLegacy(params.task as JsonObject, work)
          return { revision: TASKS_REVISION, result }
        }
      }
      return {
        revision,
        result: await callTool(engine.registry, params, contextOf(engine, channel, state, revision, raw, signal), validates),
      }
    }
    case 'prompts/get':
      if (!caps.prompts) throw methodNotFound(req.method, revision)
      return {
        revision,
        result: await getPrompt(engine.registry, params, contextOf(engine, channel, state, revision, raw, signal), validates),
      }
    case 'resources/read':
      if (!caps.resources) throw methodNotFound(req.method, revision)
      return { revision, result: await readResource(engine.registry, params, contextOf(engine, channel, state, revision, raw, signal)) }
    case 'completion/complete':
      if (!caps.completions) throw methodNotFound(req.method, revision)
      return {
        revision,
        result: await complete(engine.def, engine.registry, params, contextOf(engine, channel, state, revision, raw, signal)),
      }
    default:
      throw methodNotFound(req.method, revision)
  }
}

/** A legacy call's HandlerContext: a function of its own, so a request builds no closure to make one. */
export function contextOf(
  engine: EngineCore,
  channel: Channel,
  state: LegacyState | undefined,
  revision: LegacyRevision,
  raw: JsonObject,
  signal: AbortSignal,
  extras?: Pick<ContextInit, 'signal' | 'outlet' | 'adoptTaskId'>,
): HandlerContext {
  const init: ContextInit = {
    era: 'legacy',
    revision,
    signal,
    clientCapabilities: state?.clientCapabilities ?? {},
    clientInfo: state?.clientInfo,
    meta: isRecord(raw._meta) ? raw._meta : {},
    outlet: channel.outlet,
    connection: channel.connection,
    notify: engine.notify,
    // Without logging/setLevel every level is sent (2025-11-25 server/utilities/logging.mdx leaves the default open).
    logLevel: state?.logLevel ?? 'debug',
    closeStream: channel.closeStream,
  }
  // No object spread for the common call without extras (each one is a copy-properties call).
  return createContext(extras === undefined ? init : Object.assign(init, extras))
}

/** 2025-11-25 tasks/get | tasks/result | tasks/list | tasks/cancel. */
async function legacyTaskMethod(engine: EngineCore, method: string, params: JsonObject): Promise<JsonObject> {
  if (method === 'tasks/list') return { tasks: engine.tasks.list() }
  const task = engine.tasks.get(params.taskId)
  if (method === 'tasks/result') return engine.tasks.result(task)
  if (method === 'tasks/cancel') engine.tasks.cancel(task)
  return engine.tasks.detailed(await engine.tasks.mirroredTask(task))
}
