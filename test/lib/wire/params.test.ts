// parseParams agrees with the official schemas: for a table of valid and invalid params of every
// incoming method, in every revision that has the method, parseParams accepts exactly what that
// revision's schema.json accepts. Plus the spec's own 2026-07-28 examples, and the error shapes.
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { RpcError } from '../../../lib/errors/index.ts'
import { isModernRevision, isRequestMethod, methodExists, parseParams, REVISIONS, type Revision } from '../../../lib/wire/index.ts'
import { SPEC_ROOT, validateSpec } from '../../support/spec-schema.ts'

type Obj = Record<string, unknown>
const DEFS: Record<string, string> = {
  initialize: 'InitializeRequest',
  ping: 'PingRequest',
  'server/discover': 'DiscoverRequest',
  'tools/list': 'ListToolsRequest',
  'tools/call': 'CallToolRequest',
  'resources/list': 'ListResourcesRequest',
  'resources/templates/list': 'ListResourceTemplatesRequest',
  'resources/read': 'ReadResourceRequest',
  'resources/subscribe': 'SubscribeRequest',
  'resources/unsubscribe': 'UnsubscribeRequest',
  'prompts/list': 'ListPromptsRequest',
  'prompts/get': 'GetPromptRequest',
  'completion/complete': 'CompleteRequest',
  'logging/setLevel': 'SetLevelRequest',
  'subscriptions/listen': 'SubscriptionsListenRequest',
  'tasks/get': 'GetTaskRequest',
  'tasks/result': 'GetTaskPayloadRequest',
  'tasks/cancel': 'CancelTaskRequest',
  'tasks/list': 'ListTasksRequest',
  'notifications/initialized': 'InitializedNotification',
  'notifications/cancelled': 'CancelledNotification',
  'notifications/progress': 'ProgressNotification',
  'notifications/roots/list_changed': 'RootsListChangedNotification',
  'notifications/tasks/status': 'TaskStatusNotification',
  'sampling/createMessage': 'CreateMessageRequest',
  'elicitation/create': 'ElicitRequest',
  'roots/list': 'ListRootsRequest',
}
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
}
const TASK = { taskId: 't', status: 'working', createdAt: 'c', lastUpdatedAt: 'u', ttl: null }
const MESSAGES = [{ role: 'user', content: { type: 'text', text: 'x' } }]
const FORM = { message: 'm', requestedSchema: { type: 'object', properties: { a: { type: 'string' } } } }

const TABLE: [string, unknown][] = [
  [
    'initialize',
    { protocolVersion: '2025-06-18', capabilities: { roots: { listChanged: true } }, clientInfo: { name: 'c', version: '1' } },
  ],
  ['initialize', { protocolVersion: '2025-06-18', capabilities: {} }],
  ['initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: 1 } }],
  ['ping', undefined],
  ['tools/list', {}],
  ['tools/list', { cursor: 'c' }],
  ['tools/list', { cursor: 5 }],
  ['tools/list', { _meta: { progressToken: 'p' } }],
  ['tools/list', { _meta: { 'com.example/x': { any: 1 } } }],
  [
    'initialize',
    { protocolVersion: '2025-06-18', capabilities: { roots: { listChanged: 'yes' } }, clientInfo: { name: 'c', version: '1' } },
  ],
  ['tools/call', { name: 'a', arguments: { x: 1 } }],
  ['tools/call', { name: 1 }],
  ['tools/call', { arguments: {} }],
  ['tools/call', { name: 'a', arguments: 'x' }],
  ['resources/read', { uri: 'file:///a' }],
  ['resources/read', {}],
  ['resources/subscribe', { uri: 'file:///a' }],
  ['resources/unsubscribe', { uri: 3 }],
  ['resources/templates/list', { cursor: 'x' }],
  ['prompts/list', {}],
  ['prompts/get', { name: 'p', arguments: { a: 'b' } }],
  ['prompts/get', { name: 'p', arguments: { a: 1 } }],
  ['completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: 'v' } }],
  ['completion/complete', { ref: { type: 'ref/resource', uri: 'file:///{x}' }, argument: { name: 'x', value: 'v' } }],
  ['completion/complete', { ref: { type: 'ref/other', name: 'p' }, argument: { name: 'a', value: 'v' } }],
  ['completion/complete', { ref: { type: 'ref/prompt', name: 'p' } }],
  ['logging/setLevel', { level: 'warning' }],
  ['logging/setLevel', { level: 'loud' }],
  ['server/discover', {}],
  ['subscriptions/listen', { notifications: { toolsListChanged: true, resourceSubscriptions: ['file:///a'] } }],
  ['subscriptions/listen', { notifications: { resourceSubscriptions: 'file:///a' } }],
  ['subscriptions/listen', {}],
  ['tasks/get', { taskId: 't' }],
  ['tasks/result', { taskId: 't' }],
  ['tasks/cancel', {}],
  ['tasks/list', {}],
  ['notifications/initialized', undefined],
  ['notifications/cancelled', { requestId: 1, reason: 'r' }],
  ['notifications/cancelled', { reason: 'r' }],
  ['notifications/cancelled', { requestId: true }],
  ['notifications/progress', { progressToken: 't', progress: 1, total: 2 }],
  ['notifications/progress', { progressToken: 't' }],
  ['notifications/roots/list_changed', undefined],
  ['notifications/tasks/status', TASK],
  ['notifications/tasks/status', { ...TASK, status: 'sleeping' }],
  ['sampling/createMessage', { messages: MESSAGES, maxTokens: 10, includeContext: 'none' }],
  ['sampling/createMessage', { messages: MESSAGES }],
  ['sampling/createMessage', { messages: [{ role: 'system', content: { type: 'text', text: 'x' } }], maxTokens: 1 }],
  ['elicitation/create', FORM],
  ['elicitation/create', { message: 'm' }],
  ['elicitation/create', { mode: 'url', message: 'm', url: 'https://x', elicitationId: 'e' }],
  ['elicitation/create', { mode: 'url', message: 'm', url: 'https://x' }],
  ['roots/list', undefined],
]

function envelope(revision: Revision, method: string, params: unknown): Obj {
  const notification = method.startsWith('notifications/')
  const inputRequest = isModernRevision(revision) && !isRequestMethod(revision, method, 'client-to-server') && !notification
  const base: Obj =
    revision < '2025-11-25' || inputRequest ? { method } : notification ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', id: 1, method }
  return params === undefined ? base : { ...base, params }
}

function withModernMeta(revision: Revision, method: string, params: unknown): unknown {
  if (!isModernRevision(revision) || !isRequestMethod(revision, method, 'client-to-server')) return params
  const given = params as Obj | undefined
  return { ...given, _meta: { ...MODERN_META, ...(given?._meta as Obj | undefined) } }
}

describe.each(REVISIONS)('%s: parseParams accepts exactly what schema.json accepts', (revision) => {
  const rows = TABLE.filter(([method]) => methodExists(revision, method))
  test.each(rows)('%s %j', (method, rawParams) => {
    const params = withModernMeta(revision, method, rawParams)
    const schemaErrors = validateSpec(revision, DEFS[method] as string, envelope(revision, method, params))
    let parseError: unknown
    try {
      parseParams(revision, method, params)
    } catch (error) {
      parseError = error
    }
    expect({ accepted: parseError === undefined, schemaErrors }).toEqual({ accepted: schemaErrors.length === 0, schemaErrors })
    if (parseError !== undefined) {
      expect(parseError).toBeInstanceOf(RpcError)
      expect((parseError as RpcError).rpcCode).toBe(-32602)
      expect((parseError as RpcError).message.startsWith(`${method}: `)).toBe(true)
    }
  })
})

describe('2026-07-28 spec examples parse', () => {
  const dir = `${SPEC_ROOT}2026-07-28/schema/examples/`
  const examples = readdirSync(dir)
    .filter((d) => /(Request|Notification)$/.test(d))
    .flatMap((d) =>
      readdirSync(`${dir}${d}`).map((f) => [`${d}/${f}`, JSON.parse(readFileSync(`${dir}${d}/${f}`, 'utf8')) as Obj] as const),
    )
  test.each(examples)('%s', (_name, example) => {
    expect(() => parseParams('2026-07-28', example.method as string, example.params)).not.toThrow()
  })
})

describe('errors', () => {
  const expectRpc = (run: () => unknown, code: number, message: string, httpStatus?: number) => {
    try {
      run()
    } catch (error) {
      expect(error).toBeInstanceOf(RpcError)
      return void expect([(error as RpcError).rpcCode, (error as RpcError).message, (error as RpcError).httpStatus]).toEqual([
        code,
        message,
        httpStatus,
      ])
    }
    throw new Error('expected a throw')
  }
  test('path and problem are named', () => {
    expectRpc(
      () => parseParams('2025-06-18', 'tools/call', { name: 5 }),
      -32602,
      'tools/call: name: Invalid type: Expected string but received 5',
    )
    expectRpc(() => parseParams('2025-06-18', 'tools/call', [1]), -32602, 'tools/call: params: expected an object')
  })
  test('2026 requests without required _meta are 400', () => {
    expectRpc(
      () => parseParams('2026-07-28', 'tools/list', {}),
      -32602,
      '_meta: Invalid type: Expected Object but received undefined'.replace(/^/, 'tools/list: '),
      400,
    )
    expectRpc(
      () => parseParams('2026-07-28', 'tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } }),
      -32602,
      'tools/list: _meta.io.modelcontextprotocol/clientCapabilities: Invalid key: Expected "io.modelcontextprotocol/clientCapabilities" but received undefined',
      400,
    )
  })
  test('methods the revision lacks are -32601 (404 for modern)', () => {
    expectRpc(() => parseParams('2026-07-28', 'initialize', {}), -32601, 'Method not found: initialize', 404)
    expectRpc(() => parseParams('2025-03-26', 'elicitation/create', {}), -32601, 'Method not found: elicitation/create', undefined)
  })
  test('a progress token must be a string or number in every revision', () => {
    // basic/utilities/progress.mdx; the pre-2025-11-25 schemas omit `_meta` from most inline params.
    for (const revision of REVISIONS) {
      const params = { _meta: { ...(isModernRevision(revision) ? MODERN_META : {}), progressToken: true } }
      expect(() => parseParams(revision, 'tools/list', params)).toThrow(RpcError)
    }
  })
  test('extra fields are kept and output is typed', () => {
    const parsed = parseParams('2025-11-25', 'tools/call', { name: 'a', arguments: { x: 1 }, 'com.example/extra': true })
    expect(parsed.name).toBe('a')
    expect(parsed).toEqual({ name: 'a', arguments: { x: 1 }, 'com.example/extra': true })
    expect(parseParams('2026-07-28', 'tasks/update', { taskId: 't', inputResponses: {}, _meta: MODERN_META }).taskId).toBe('t')
  })
})
