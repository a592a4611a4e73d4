/**
 * /v1: the daemon's versioned JSON API as ONE table. Each operation has a name, method, path,
 * parameter spec, description and handler; routes (api-routes.ts), the daemon client, the
 * `mcpx daemon <op>` commands and (later) the MCP `mcpx_<op>` tools are all derived from it.
 */
import { McpxError } from '../errors/index.ts'
import { LOG_LEVELS, type LogLevel, PROTOCOL_MATRIX, type Revision, shapeResult } from '../wire/index.ts'
import { sseResponse } from './events.ts'
import { CALL_PATH, type CallStreamLine, checkSchemaHash, streamedCall } from './call-stream.ts'
import type { HostParams } from './host-questions.ts'
import { API_VERSION, type Operation, type OperationContext, type ParamSpec } from './operation-contract.ts'

const NAME: ParamSpec = { type: 'string', required: true, description: 'Configured server name' }
const HOST: ParamSpec = {
  type: 'object',
  description:
    'The caller as host: `{roots: [uri…], elicit: bool, sample: bool}`; questions it answers arrive as `call.input` events tagged with progressId, answered by POST /v1/answer',
}

/** Upstream requests /v1/request passes on (tools/call has its own operation). */
const PASSED_METHODS = new Set([
  'resources/read',
  'resources/templates/list',
  'prompts/get',
  'completion/complete',
  'tasks/list',
  'tasks/get',
  'tasks/cancel',
  'tasks/result',
  'ping',
])

/**
 * One /v1/call. `send` (a streamed call): progress, log messages and questions go on the call's own
 * answer instead of the event feed; the feed still gets the `call` event that says how it ended.
 */
async function callTool(params: Record<string, any>, context: OperationContext, send?: (line: CallStreamLine) => void): Promise<unknown> {
  const started = performance.now()
  const { server, tool, progressId } = params
  const publish = send && ((type: 'call.input', data: Record<string, unknown>) => send({ type, data }))
  const asker = context.questions.asker(params.host as HostParams | undefined, progressId, publish)
  const log = (message: Record<string, unknown>) => send?.({ type: 'call.log', data: { server, tool, ...message } })
  const progress = (update: Record<string, unknown>) =>
    send
      ? send({ type: 'call.progress', data: { progressId, server, tool, ...update } })
      : context.events.publish('call.progress', { progressId, server, tool, ...update })
  try {
    if (send && context.info().configProblem !== undefined)
      send({ type: 'info', info: context.info() as unknown as Record<string, unknown> })
    if (params.inputSchemaHash !== undefined) await checkSchemaHash(context.pool, server, tool, params.inputSchemaHash, asker)
    const result = await context.pool.call(server, tool, params.arguments ?? {}, {
      signal: context.signal,
      ...(asker !== undefined && { asker }),
      ...(params.timeoutMs !== undefined && { timeoutMs: params.timeoutMs }),
      ...(params.task === true && { runAsTask: true }),
      ...((progressId !== undefined || send) && { onProgress: progress }),
      ...(send && params.logLevel !== undefined && { logLevel: params.logLevel as LogLevel, onLog: log }),
    })
    context.events.publish('call', {
      server,
      tool,
      ok: true,
      durationMs: Math.round(performance.now() - started),
      ...(progressId !== undefined && { progressId }),
    })
    return shapedForUpstream(context, server, 'tools/call', result as Record<string, unknown>)
  } catch (error) {
    const code = error instanceof McpxError ? error.code : 'INTERNAL'
    context.events.publish('call', {
      server,
      tool,
      ok: false,
      error: code,
      durationMs: Math.round(performance.now() - started),
      ...(progressId !== undefined && { progressId }),
    })
    throw error
  }
}

export const OPERATIONS: readonly Operation[] = [
  {
    name: 'operations',
    method: 'GET',
    path: '/v1',
    description: 'List the operations of this API with their parameters',
    params: {},
    handler: () => ({ api: API_VERSION, operations: describeOperations() }),
  },
  {
    name: 'health',
    method: 'GET',
    path: '/v1/health',
    description: 'Daemon identity, listeners (actual TCP port) and uptime',
    params: {},
    handler: (_params, context) => context.info(),
  },
  {
    name: 'servers',
    method: 'GET',
    path: '/v1/servers',
    description: 'Every configured upstream server with its state',
    params: {},
    handler: (_params, context) => context.pool.servers(),
  },
  {
    name: 'server',
    method: 'GET',
    path: '/v1/servers/:name',
    description: 'One upstream server and its state',
    params: { name: NAME },
    handler: (params, context) => context.pool.status(params.name),
  },
  {
    name: 'catalog',
    method: 'GET',
    path: '/v1/servers/:name/catalog',
    description: "One upstream server's tools, prompts, resources and resource templates",
    params: {
      name: NAME,
      roots: { type: 'string', description: "JSON array of root URIs answered to the upstream's roots/list while it connects" },
    },
    handler: (params, context) => {
      if (params.roots === undefined) return context.pool.catalog(params.name)
      let roots: unknown
      try {
        roots = JSON.parse(params.roots)
      } catch {
        roots = undefined
      }
      if (!Array.isArray(roots) || !roots.every((r) => typeof r === 'string'))
        throw new McpxError('USAGE', 'catalog: parameter "roots" must be a JSON array of URIs')
      return context.pool.catalog(params.name, { asker: context.questions.asker({ roots }, undefined) })
    },
  },
  {
    name: 'call',
    method: 'POST',
    path: CALL_PATH,
    description: 'Call one tool on one upstream server; returns the CallToolResult',
    params: {
      server: NAME,
      tool: { type: 'string', required: true, description: 'Tool name on that server' },
      arguments: { type: 'object', description: 'Tool arguments (a JSON object)' },
      timeoutMs: { type: 'integer', description: 'Deadline for this call in milliseconds' },
      progressId: { type: 'string', description: "Publish the upstream's progress as `call.progress` events tagged with this id" },
      logLevel: { type: 'string', oneOf: LOG_LEVELS, description: "With stream: the upstream's log lines (`call.log`) from this level" },
      task: {
        type: 'boolean',
        description: 'Run a task-optional tool as a task the gateway follows to its end (its status arrives as progress)',
      },
      host: HOST,
      stream: {
        type: 'boolean',
        description:
          "Answer NDJSON: this call's progress and questions as they happen (no event feed needed), then its result or error (call-stream.ts)",
      },
      inputSchemaHash: {
        type: 'string',
        description:
          "The hash of the inputSchema the arguments were built against; refused (NOT_FOUND, data.staleSchema) when the tool's schema is another now",
      },
    },
    handler: (params, context) => {
      const run = (send?: (line: CallStreamLine) => void) => callTool(params, context, send)
      return params.stream === true ? streamedCall(run) : run()
    },
  },
  {
    name: 'request',
    method: 'POST',
    path: '/v1/request',
    description: `One other request to one upstream server (${[...PASSED_METHODS].join(', ')}); returns its result`,
    params: {
      server: NAME,
      method: { type: 'string', required: true, description: 'The MCP method' },
      params: { type: 'object', description: 'Its params (a JSON object)' },
      timeoutMs: { type: 'integer', description: 'Deadline in milliseconds' },
      progressId: { type: 'string', description: "Tag for this request's `call.progress` and `call.input` events" },
      host: HOST,
    },
    handler: (params, context) => {
      if (!PASSED_METHODS.has(params.method))
        throw new McpxError(
          'USAGE',
          `request: method "${params.method}" is not passed on (one of: ${[...PASSED_METHODS].join(', ')}; tools/call is /v1/call)`,
          { method: params.method },
        )
      if (context.pool.request === undefined) throw new McpxError('USAGE', 'this daemon runs without an upstream pool')
      const asker = context.questions.asker(params.host as HostParams | undefined, params.progressId)
      const progressId = params.progressId as string | undefined
      const settled = (ok: boolean) =>
        progressId !== undefined && context.events.publish('call', { server: params.server, method: params.method, ok, progressId })
      return context.pool
        .request(params.server, params.method, params.params ?? {}, {
          signal: context.signal,
          ...(asker !== undefined && { asker }),
          ...(params.timeoutMs !== undefined && { timeoutMs: params.timeoutMs }),
          ...(progressId !== undefined && {
            onProgress: (update) => context.events.publish('call.progress', { progressId, server: params.server, ...update }),
          }),
        })
        .then(
          (result) => (settled(true), shapedForUpstream(context, params.server, params.method, result as Record<string, unknown>)),
          (error: unknown) => {
            settled(false)
            throw error
          },
        )
    },
  },
  {
    name: 'answer',
    method: 'POST',
    path: '/v1/answer',
    description: 'Answer a question an upstream asked during a call (a `call.input` event): its result, or an error',
    params: {
      inputId: { type: 'string', required: true, description: 'The `inputId` of the call.input event' },
      result: { type: 'object', description: 'The answer (ElicitResult, CreateMessageResult)' },
      error: { type: 'object', description: 'A refusal instead: `{code, message}` (JSON-RPC error)' },
    },
    handler: (params, context) => context.questions.answer(params.inputId, params.result, params.error),
  },
  {
    name: 'search',
    method: 'GET',
    path: '/v1/search',
    description: 'Ranked search over every upstream tool (name, title, description, parameters)',
    params: {
      query: { type: 'string', required: true, description: 'What the tool should do, in a few words' },
      server: { type: 'string', description: 'Only this server' },
      limit: { type: 'integer', description: 'Most hits to return' },
    },
    handler: (params, context) =>
      codeModeOf(context).search(params.query, {
        ...(params.server !== undefined && { server: params.server }),
        ...(params.limit !== undefined && { limit: params.limit }),
      }),
  },
  {
    name: 'types',
    method: 'GET',
    path: '/v1/types',
    description: 'TypeScript declarations of upstream tools as code mode exposes them (one tool, one server, a search, or all)',
    params: {
      server: { type: 'string', description: 'Every tool of this server' },
      tool: { type: 'string', description: 'One tool: server.tool' },
      query: { type: 'string', description: 'The tools a search for this finds' },
    },
    handler: async (params, context) => ({
      declarations: await codeModeOf(context).types({
        ...(params.server !== undefined && { server: params.server }),
        ...(params.tool !== undefined && { tools: [params.tool] }),
        ...(params.query !== undefined && { query: params.query }),
      }),
    }),
  },
  {
    name: 'exec',
    method: 'POST',
    path: '/v1/exec',
    description: 'Run agent code (JavaScript or TypeScript) in the code-mode sandbox; tool calls go through the pool',
    params: {
      code: { type: 'string', required: true, description: 'The program' },
      progressId: { type: 'string', description: 'Publish each console line as an `exec.log` event tagged with this id, as it is written' },
    },
    handler: (params, context) => {
      const progressId = params.progressId as string | undefined
      const run = codeModeOf(context).exec(params.code, {
        signal: context.signal,
        ...(progressId !== undefined && { onLog: (line: string) => context.events.publish('exec.log', { progressId, line }) }),
      })
      if (progressId === undefined) return run
      const ended = () => context.events.publish('call', { exec: true, progressId })
      return run.then(
        (result) => (ended(), result),
        (error: unknown) => {
          ended()
          throw error
        },
      )
    },
  },
  {
    name: 'protocol',
    method: 'GET',
    path: '/v1/protocol',
    description: 'The protocol matrix: per revision its era, methods, error codes, headers, transports, features and capabilities',
    params: {},
    handler: () => PROTOCOL_MATRIX,
  },
  {
    name: 'memory',
    method: 'POST',
    path: '/v1/memory',
    description:
      "The daemon process's memory after a full garbage collection: RSS, JS heap size and live object count (with the most numerous object types); a leak is what survives the collection",
    params: { types: { type: 'integer', description: 'How many of the most numerous live object types to list (default none)' } },
    handler: (params) => memoryReport(params.types ?? 0),
  },
  {
    name: 'events',
    method: 'GET',
    path: '/v1/events',
    description: 'Server-sent event feed of daemon, server and call events; resumes after Last-Event-ID',
    params: { lastEventId: { type: 'integer', description: 'Resume after this event id (same as the Last-Event-ID header)' } },
    stream: true,
    handler: (params, context) => {
      const header = context.lastEventId !== undefined && /^\d+$/.test(context.lastEventId) ? Number(context.lastEventId) : undefined
      const release = { fn: () => {} }
      return sseResponse(context.events, {
        lastEventId: params.lastEventId ?? header,
        keepAliveMs: context.settings.sseKeepAliveMs,
        retryMs: context.settings.sseRetryMs,
        signal: context.signal,
        onOpen: () => {
          release.fn = context.holdOpen()
        },
        onClose: () => release.fn(),
      })
    },
  },
  {
    name: 'shutdown',
    method: 'POST',
    path: '/v1/shutdown',
    description: 'Stop the daemon (ends every upstream); answers once it has stopped serving',
    params: {},
    handler: async (_params, context) => {
      await context.shutdown('requested')
      return { stopped: true, pid: process.pid }
    },
  },
]

/** A result as the spec shapes it for the revision the upstream speaks (no resultType for legacy ones). */
function shapedForUpstream(
  context: OperationContext,
  server: string,
  method: string,
  result: Record<string, unknown>,
): Record<string, unknown> {
  const revision = context.pool.status(server).revision
  return revision === undefined ? result : shapeResult(revision as Revision, method, result)
}

/** Collect first (synchronously, a full collection), then measure, so only what is still referenced counts. */
function memoryReport(types: number) {
  Bun.gc(true)
  // bun:jsc loads here, not with the operation table (which the CLI's daemon client imports).
  const { heapStats } = require('bun:jsc') as typeof import('bun:jsc')
  const stats = heapStats()
  const top = Object.entries(stats.objectTypeCounts)
    .sort((a, b) => b[1] - a[1])
    .slice(0, Math.max(0, types))
  return {
    rssBytes: process.memoryUsage().rss,
    heapBytes: stats.heapSize,
    objects: stats.objectCount,
    ...(top.length > 0 && { objectTypes: Object.fromEntries(top) }),
  }
}

function codeModeOf(context: OperationContext) {
  if (!context.codeMode) throw new McpxError('USAGE', 'this daemon runs without code mode')
  return context.codeMode
}

export function findOperation(name: string): Operation {
  const operation = OPERATIONS.find((candidate) => candidate.name === name)
  if (operation === undefined) throw new McpxError('USAGE', `unknown daemon operation "${name}"`, { operation: name })
  return operation
}

/** JSON Schema of an operation's parameters (for `GET /v1` and the MCP tools derived later). */
export function paramsJsonSchema(operation: Operation): Record<string, unknown> {
  const properties = Object.fromEntries(
    Object.entries(operation.params).map(([name, spec]) => [name, { type: spec.type, description: spec.description }]),
  )
  const required = Object.entries(operation.params)
    .filter(([, spec]) => spec.required)
    .map(([name]) => name)
  return { type: 'object', properties, ...(required.length > 0 && { required }), additionalProperties: false }
}

function describeOperations() {
  return OPERATIONS.map((operation) => ({
    name: operation.name,
    method: operation.method,
    path: operation.path,
    description: operation.description,
    params: paramsJsonSchema(operation),
    ...(operation.stream && { stream: true }),
  }))
}
