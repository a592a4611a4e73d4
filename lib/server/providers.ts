/**
 * The provider methods shared by both eras: list/call/get/read/complete over the Registry. They
 * build results in the newest shape; unknown names are -32602 (unless the registry forwards them:
 * Registry.unknown) and a missing resource is -32002
 * (legacy) or -32602 with data.uri (2026-07-28 server/resources.mdx; SEP-2164). A tool that throws
 * anything but a protocol error reports it as an `isError` result (SEP-1303).
 */
import { RPC, RpcError } from '../errors/index.ts'
import { log } from '../log/index.ts'
import { InputRequired } from './context.ts'
import { paginate } from './pagination.ts'
import { describe, describeTool, type Registry } from './registry.ts'
import { EXTENSION, MCP_APPS, resourceNotFound } from '../wire/index.ts'
import { trustedProblems } from '../schema/index.ts'
import type { CompleteRequest, HandlerContext, JsonObject, ServerDefinition, ToolDef } from './server-definition.ts'

function requireString(params: JsonObject, key: string): string {
  const value = params[key]
  if (typeof value !== 'string') throw new RpcError(RPC.INVALID_PARAMS, `params.${key} must be a string`)
  return value
}

function optionalObject(params: JsonObject, key: string): JsonObject {
  const value = params[key]
  if (value === undefined || value === null) return {}
  if (typeof value !== 'object' || Array.isArray(value)) throw new RpcError(RPC.INVALID_PARAMS, `params.${key} must be an object`)
  return value as JsonObject
}

export function listTools(registry: Registry, params: JsonObject, pageSize: number, hideApps = false): JsonObject {
  const tools = registry.listTools().map((t) => {
    const wire = describeTool(t)
    wire.inputSchema ??= { type: 'object' }
    return hideApps ? withoutAppMeta(wire) : wire
  })
  return paginate(tools, 'tools', params, pageSize)
}

/**
 * Tool arguments against the tool's own (trusted) inputSchema, before the handler runs. A failure is
 * a tool execution error (an `isError` result, SEP-1303: the model can read and correct it), not a
 * protocol error.
 */
function argumentsError(tool: ToolDef, args: JsonObject): JsonObject | undefined {
  const problems = tool.inputSchema && trustedProblems(tool.inputSchema, args)
  return problems && { isError: true, content: [{ type: 'text', text: `Invalid arguments for tool ${tool.name}: ${problems.join('; ')}` }] }
}

export async function callTool(registry: Registry, params: JsonObject, ctx: HandlerContext, validate = true): Promise<JsonObject> {
  const name = requireString(params, 'name')
  const tool = registry.tool(name)
  const args = optionalObject(params, 'arguments')
  if (!tool) {
    if (registry.unknown?.callTool) return registry.unknown.callTool(name, args, ctx)
    throw new RpcError(RPC.INVALID_PARAMS, `Unknown tool: ${name}`, { name })
  }
  const invalid = validate ? invalidArguments(tool, args) : undefined
  if (invalid) return invalid
  try {
    return await tool.handler(args, ctx)
  } catch (error) {
    return toolFailure(error, ctx.signal.aborted)
  }
}

/** The isError result for arguments that do not fit the tool, by its own check or its inputSchema; undefined when they fit. */
export function invalidArguments(tool: ToolDef, args: JsonObject): JsonObject | undefined {
  return tool.argumentsError ? tool.argumentsError(args) : argumentsError(tool, args)
}

/**
 * What a tool call's failure answers: a protocol error (and anything once the call was cancelled)
 * is thrown on; any other failure is an isError result the model can read (SEP-1303).
 */
export function toolFailure(error: unknown, aborted: boolean): JsonObject {
  if (error instanceof RpcError || error instanceof InputRequired || aborted) throw error
  const message = error instanceof Error ? error.message : String(error)
  return { content: [{ type: 'text', text: message }], isError: true }
}

/**
 * A tool as listed to a host that did not declare MCP Apps (`io.modelcontextprotocol/ui`): without
 * its UI links (`_meta.ui`, `_meta["ui/resourceUri"]`), as a server that checks the capability
 * would register it (the MCP Apps extension, `io.modelcontextprotocol/ui`: 2026-07-28 basic/versioning.mdx "Extension Negotiation").
 */
function withoutAppMeta(tool: JsonObject): JsonObject {
  const meta = tool._meta
  if (typeof meta !== 'object' || meta === null || !(MCP_APPS.META_KEY in meta || MCP_APPS.FLAT_RESOURCE_URI in meta)) return tool
  const { [MCP_APPS.META_KEY]: _ui, [MCP_APPS.FLAT_RESOURCE_URI]: _flat, ...rest } = meta as JsonObject
  const out = { ...tool }
  if (Object.keys(rest).length > 0) out._meta = rest
  else delete out._meta
  return out
}

/** Did this client declare MCP Apps? */
export function rendersApps(clientCapabilities: JsonObject): boolean {
  const extensions = clientCapabilities.extensions
  return typeof extensions === 'object' && extensions !== null && EXTENSION.UI in extensions
}

export function listPrompts(registry: Registry, params: JsonObject, pageSize: number): JsonObject {
  return paginate(registry.listPrompts().map(describe), 'prompts', params, pageSize)
}

export async function getPrompt(registry: Registry, params: JsonObject, ctx: HandlerContext, validate = true): Promise<JsonObject> {
  const name = requireString(params, 'name')
  const prompt = registry.prompt(name)
  const args = optionalObject(params, 'arguments') as Record<string, string>
  if (!prompt) {
    if (registry.unknown?.getPrompt) return registry.unknown.getPrompt(name, args, ctx)
    throw new RpcError(RPC.INVALID_PARAMS, `Unknown prompt: ${name}`, { name })
  }
  if (validate)
    for (const a of prompt.arguments ?? []) {
      if (a.required && typeof args[a.name] !== 'string')
        throw new RpcError(RPC.INVALID_PARAMS, `Missing required argument '${a.name}' for prompt ${name}`, { name, argument: a.name })
    }
  return prompt.handler(args, ctx)
}

export function listResources(registry: Registry, params: JsonObject, pageSize: number): JsonObject {
  return paginate(
    registry.listResources().map(({ read: _read, ...r }) => describe(r)),
    'resources',
    params,
    pageSize,
  )
}

export function listTemplates(registry: Registry, params: JsonObject, pageSize: number): JsonObject {
  return paginate(
    registry.listTemplates().map(({ read: _read, ...t }) => describe(t)),
    'resourceTemplates',
    params,
    pageSize,
  )
}

/**
 * The list methods both eras answer alike: the capability each needs (absent → -32601) and its pager.
 * A Map, not an object literal, so a method named like an Object.prototype key is never found.
 */
export const LIST_METHODS = new Map<
  string,
  {
    capability: 'tools' | 'prompts' | 'resources'
    list: (registry: Registry, params: JsonObject, pageSize: number, hideApps?: boolean) => JsonObject
  }
>([
  ['tools/list', { capability: 'tools', list: listTools }],
  ['prompts/list', { capability: 'prompts', list: listPrompts }],
  ['resources/list', { capability: 'resources', list: listResources }],
  ['resources/templates/list', { capability: 'resources', list: listTemplates }],
])

export async function readResource(registry: Registry, params: JsonObject, ctx: HandlerContext): Promise<JsonObject> {
  const uri = requireString(params, 'uri')
  const resource = registry.resource(uri)
  if (resource) return resource.read(ctx)
  const match = registry.matchTemplate(uri)
  if (match) return match.template.read(uri, match.vars, ctx)
  if (registry.unknown?.readResource) return registry.unknown.readResource(uri, ctx)
  throw resourceNotFound(ctx.revision, uri)
}

export async function complete(def: ServerDefinition, registry: Registry, params: JsonObject, ctx: HandlerContext): Promise<JsonObject> {
  const ref = optionalObject(params, 'ref')
  const argument = optionalObject(params, 'argument')
  if (ref.type === 'ref/prompt') {
    if (typeof ref.name !== 'string' || !registry.prompt(ref.name))
      throw new RpcError(RPC.INVALID_PARAMS, `Unknown prompt: ${String(ref.name)}`)
  } else if (ref.type === 'ref/resource') {
    if (typeof ref.uri !== 'string') throw new RpcError(RPC.INVALID_PARAMS, 'params.ref.uri must be a string')
  } else {
    throw new RpcError(RPC.INVALID_PARAMS, 'params.ref.type must be ref/prompt or ref/resource')
  }
  if (typeof argument.name !== 'string' || typeof argument.value !== 'string')
    throw new RpcError(RPC.INVALID_PARAMS, 'params.argument needs name and value strings')
  const result = def.complete ? await def.complete(params as unknown as CompleteRequest, ctx) : undefined
  return result ?? { completion: { values: [], total: 0, hasMore: false } }
}

/** Tell the definition of a host's new resource subscriptions (ServerDefinition.onSubscribe), before acknowledging them. */
export async function subscribed(def: ServerDefinition, uris: readonly string[]): Promise<void> {
  if (def.onSubscribe === undefined || uris.length === 0) return
  try {
    await def.onSubscribe(uris)
  } catch (error) {
    log.warn(`following resource subscriptions ${uris.join(', ')}: ${(error as Error).message}`)
  }
}
