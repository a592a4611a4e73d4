// Shaping newest-shape messages for each revision: the downgrade rules of spec-digest §4, checked
// on whole values (the schema-level proof lives in spec-corpus.test.ts).
import { describe, expect, test } from 'bun:test'
import { McpxError, RPC } from '../../../lib/errors/index.ts'
import {
  methodNotFound,
  missingCapability,
  resourceNotFound,
  shapeNotification,
  shapeRequest,
  shapeResult,
  unsupportedVersion,
  upgradeResult,
  withCacheHints,
  headerMismatch,
  isResourceNotFoundError,
  malformedResult,
  withContentBlocks,
  shapeServerCapabilities,
  shapeClientCapabilities,
} from '../../../lib/wire/index.ts'

const tool = {
  name: 'weather',
  title: 'Weather',
  description: 'Get weather',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
  outputSchema: { type: 'object', properties: { tempC: { type: 'number' } } },
  annotations: { readOnlyHint: true },
  icons: [{ src: 'https://example.com/i.png', mimeType: 'image/png' }],
  execution: { taskSupport: 'optional' },
  _meta: { 'com.example/x': 1 },
}

describe('shapeResult tools/list', () => {
  const result = withCacheHints(
    { tools: [tool], _meta: { 'io.modelcontextprotocol/serverInfo': { name: 's', version: '1' } } },
    { ttlMs: 5000, cacheScope: 'public' },
  )

  test('2026-07-28 adds resultType, keeps hints, drops 2025-11-25-only execution', () => {
    const { execution: _e, ...modernTool } = tool
    expect(shapeResult('2026-07-28', 'tools/list', result)).toEqual({ ...result, tools: [modernTool], resultType: 'complete' })
  })
  test('2025-11-25 keeps icons and execution, drops resultType, cache hints and 2026 _meta keys', () => {
    expect(shapeResult('2025-11-25', 'tools/list', result)).toEqual({ tools: [tool] })
  })
  test('2025-06-18 drops icons and execution', () => {
    const { icons: _i, execution: _e, ...t } = tool
    expect(shapeResult('2025-06-18', 'tools/list', result)).toEqual({ tools: [t] })
  })
  test('2025-03-26 drops title, outputSchema, _meta; keeps the title where that revision looks', () => {
    expect(shapeResult('2025-03-26', 'tools/list', result)).toEqual({
      tools: [
        {
          name: 'weather',
          description: 'Get weather',
          inputSchema: tool.inputSchema,
          annotations: { readOnlyHint: true, title: 'Weather' },
        },
      ],
    })
  })
  test('2024-11-05 drops annotations too', () => {
    expect(shapeResult('2024-11-05', 'tools/list', result)).toEqual({
      tools: [{ name: 'weather', description: 'Get weather', inputSchema: tool.inputSchema }],
    })
  })
  test('does not mutate its input', () => {
    const copy = structuredClone(result)
    shapeResult('2024-11-05', 'tools/list', result)
    expect(result).toEqual(copy)
  })
})

describe('shapeResult tools/call', () => {
  const call = {
    content: [
      { type: 'text', text: 'hi' },
      { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
      { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', title: 'A' },
    ],
    structuredContent: { tempC: 21 },
  }
  test('2025-06-18 keeps structuredContent and resource_link', () => {
    expect(shapeResult('2025-06-18', 'tools/call', call)).toEqual(call)
  })
  test('2025-03-26: structuredContent → text JSON, resource_link → text', () => {
    expect(shapeResult('2025-03-26', 'tools/call', call)).toEqual({
      content: [
        { type: 'text', text: 'hi' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'text', text: 'A: file:///a.txt' },
        { type: 'text', text: '{"tempC":21}' },
      ],
    })
  })
  test('2024-11-05: audio → text', () => {
    const shaped = shapeResult('2024-11-05', 'tools/call', call)
    expect((shaped.content as { type: string }[]).map((c) => c.type)).toEqual(['text', 'text', 'text', 'text'])
  })
  test('structuredContent already serialized is not duplicated', () => {
    const withText = { content: [{ type: 'text', text: '{"tempC":21}' }], structuredContent: { tempC: 21 } }
    expect(shapeResult('2024-11-05', 'tools/call', withText)).toEqual({ content: [{ type: 'text', text: '{"tempC":21}' }] })
  })
  test('non-object structuredContent is kept for 2026 only', () => {
    const arr = { content: [], structuredContent: [1, 2] }
    expect(shapeResult('2026-07-28', 'tools/call', arr)).toEqual({ ...arr, resultType: 'complete' })
    expect(shapeResult('2025-11-25', 'tools/call', arr)).toEqual({ content: [{ type: 'text', text: '[1,2]' }] })
  })
  test('input_required cannot go to a legacy peer', () => {
    expect(() => shapeResult('2025-11-25', 'tools/call', { resultType: 'input_required', requestState: 'x' })).toThrow(McpxError)
  })
  test('a 2026 task result becomes a 2025-11-25 CreateTaskResult', () => {
    const task = {
      resultType: 'task',
      taskId: 't1',
      status: 'working',
      createdAt: 'c',
      lastUpdatedAt: 'u',
      ttlMs: 60000,
      pollIntervalMs: 500,
    }
    expect(shapeResult('2025-11-25', 'tools/call', task)).toEqual({
      task: { taskId: 't1', status: 'working', createdAt: 'c', lastUpdatedAt: 'u', ttl: 60000, pollInterval: 500 },
    })
    expect(upgradeResult('2025-11-25', 'tools/call', shapeResult('2025-11-25', 'tools/call', task))).toEqual(task)
  })
})

describe('modern defaults', () => {
  test('cacheable results get ttlMs 0 and private scope when the builder gave none', () => {
    expect(shapeResult('2026-07-28', 'resources/list', { resources: [] })).toEqual({
      resources: [],
      resultType: 'complete',
      ttlMs: 0,
      cacheScope: 'private',
    })
  })
  test('upgradeResult adds resultType and cache hints to legacy results', () => {
    expect(upgradeResult('2025-06-18', 'tools/list', { tools: [] })).toEqual({
      tools: [],
      resultType: 'complete',
      ttlMs: 0,
      cacheScope: 'private',
    })
    expect(upgradeResult('2025-06-18', 'tools/call', { content: [] })).toEqual({ content: [], resultType: 'complete' })
  })
})

describe('shapeNotification', () => {
  test('drops notifications the revision does not define', () => {
    const ack = { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: {} } }
    expect(shapeNotification('2025-11-25', ack)).toBeNull()
    expect(shapeNotification('2026-07-28', ack)).toEqual(ack)
    expect(shapeNotification('2026-07-28', { method: 'notifications/elicitation/complete', params: { elicitationId: 'e' } })).toBeNull()
    expect(shapeNotification('2025-06-18', { method: 'notifications/com.example/tick', params: { n: 1 } })).toEqual({
      method: 'notifications/com.example/tick',
      params: { n: 1 },
    })
  })
  test('progress message exists from 2025-03-26; subscriptionId only for 2026', () => {
    const progress = {
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 7 } },
    }
    expect(shapeNotification('2025-06-18', progress)).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: {} })
    const p = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 2, message: 'm' } }
    expect(shapeNotification('2024-11-05', p)).toEqual({ ...p, params: { progressToken: 1, progress: 2 } })
  })
})

describe('shapeRequest elicitation/create', () => {
  const request = {
    jsonrpc: '2.0',
    id: 1,
    method: 'elicitation/create',
    params: {
      mode: 'form',
      message: 'Pick',
      requestedSchema: {
        type: 'object',
        properties: {
          color: {
            type: 'string',
            oneOf: [
              { const: 'r', title: 'Red' },
              { const: 'g', title: 'Green' },
            ],
            default: 'r',
          },
          tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, default: ['a'] },
          name: { type: 'string', default: 'x' },
          ok: { type: 'boolean', default: true },
        },
        required: ['color'],
      },
    },
  }
  test('2025-06-18: titled → enumNames, multi-select → single enum, defaults only on booleans, no mode', () => {
    expect(shapeRequest('2025-06-18', request)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'elicitation/create',
      params: {
        message: 'Pick',
        requestedSchema: {
          type: 'object',
          properties: {
            color: { type: 'string', enum: ['r', 'g'], enumNames: ['Red', 'Green'] },
            tags: { type: 'string', enum: ['a', 'b'] },
            name: { type: 'string' },
            ok: { type: 'boolean', default: true },
          },
          required: ['color'],
        },
      },
    })
  })
  test('2026-07-28 gives an MRTR input request without id; 2025-03-26 has no elicitation', () => {
    expect(shapeRequest('2026-07-28', request)).toEqual({ method: 'elicitation/create', params: request.params })
    expect(() => shapeRequest('2025-03-26', request)).toThrow(McpxError)
  })
})

describe('error builders', () => {
  test('resource not found per era', () => {
    expect(resourceNotFound('2025-11-25', 'file:///x').toRpc()).toEqual({
      code: -32002,
      message: 'Resource not found: file:///x',
      data: { uri: 'file:///x' },
    })
    expect(resourceNotFound('2026-07-28', 'file:///x').toRpc()).toEqual({
      code: -32602,
      message: 'Resource not found: file:///x',
      data: { uri: 'file:///x' },
    })
    expect(isResourceNotFoundError(resourceNotFound('2026-07-28', 'u').toRpc())).toBe(true)
    expect(isResourceNotFoundError({ code: -32002 })).toBe(true)
    expect(isResourceNotFoundError({ code: -32602, data: { reason: 'x' } })).toBe(false)
  })
  test('2026 errors carry data and HTTP 400/404', () => {
    const v = unsupportedVersion(['2026-07-28', '2025-11-25'], '2099-01-01')
    expect([v.rpcCode, v.rpcData, v.httpStatus]).toEqual([
      RPC.UNSUPPORTED_PROTOCOL_VERSION,
      { supported: ['2026-07-28', '2025-11-25'], requested: '2099-01-01' },
      400,
    ])
    const m = missingCapability({ elicitation: {} })
    expect([m.rpcCode, m.rpcData, m.httpStatus]).toEqual([-32021, { requiredCapabilities: { elicitation: {} } }, 400])
    expect([headerMismatch('x').rpcCode, headerMismatch('x').httpStatus]).toEqual([-32020, 400])
    expect([methodNotFound('foo', '2026-07-28').httpStatus, methodNotFound('foo', '2025-11-25').httpStatus]).toEqual([404, undefined])
  })
})

describe('initialize and MRTR guards', () => {
  test('legacy initialize takes serverInfo from the 2026 _meta key when absent', () => {
    const built = {
      protocolVersion: '2025-06-18',
      capabilities: {},
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 's', version: '1', icons: [] } },
    }
    expect(shapeResult('2025-06-18', 'initialize', built)).toEqual({
      protocolVersion: '2025-06-18',
      capabilities: {},
      serverInfo: { name: 's', version: '1' },
    })
  })
  test('input_required only on tools/call, resources/read, prompts/get', () => {
    expect(() => shapeResult('2026-07-28', 'tools/list', { resultType: 'input_required', requestState: 's' })).toThrow(McpxError)
    expect(shapeResult('2026-07-28', 'prompts/get', { resultType: 'input_required', requestState: 's' })).toEqual({
      resultType: 'input_required',
      requestState: 's',
    })
  })
  test('methods a revision lacks cannot be shaped', () => {
    expect(() => shapeResult('2026-07-28', 'ping', {})).toThrow(McpxError)
    expect(() => shapeResult('2025-11-25', 'server/discover', {})).toThrow(McpxError)
  })
  test('vendor methods get the generic treatment', () => {
    expect(shapeResult('2025-06-18', 'com.example/stats', { n: 1, resultType: 'complete' })).toEqual({ n: 1 })
    expect(shapeResult('2026-07-28', 'com.example/stats', { n: 1 })).toEqual({ n: 1, resultType: 'complete' })
  })
})

describe('capabilities per revision (the schemas leave them open, so this is checked here)', () => {
  const server = {
    tools: {},
    resources: {},
    prompts: {},
    logging: {},
    completions: {},
    experimental: {},
    tasks: { list: {} },
    extensions: { 'io.modelcontextprotocol/tasks': {} },
  }
  const client = {
    roots: { listChanged: true },
    sampling: { tools: {} },
    elicitation: { form: {}, url: {} },
    tasks: { list: {} },
    extensions: { x: {} },
    experimental: {},
  }
  test.each([
    ['2024-11-05', ['experimental', 'logging', 'prompts', 'resources', 'tools'], ['experimental', 'roots', 'sampling']],
    ['2025-03-26', ['completions', 'experimental', 'logging', 'prompts', 'resources', 'tools'], ['experimental', 'roots', 'sampling']],
    [
      '2025-06-18',
      ['completions', 'experimental', 'logging', 'prompts', 'resources', 'tools'],
      ['elicitation', 'experimental', 'roots', 'sampling'],
    ],
    [
      '2025-11-25',
      ['completions', 'experimental', 'logging', 'prompts', 'resources', 'tasks', 'tools'],
      ['elicitation', 'experimental', 'roots', 'sampling', 'tasks'],
    ],
    [
      '2026-07-28',
      ['completions', 'experimental', 'extensions', 'logging', 'prompts', 'resources', 'tools'],
      ['elicitation', 'experimental', 'extensions', 'roots', 'sampling'],
    ],
  ] as const)('%s', (revision, serverKeys, clientKeys) => {
    expect(Object.keys(shapeServerCapabilities(revision, server)).sort()).toEqual([...serverKeys])
    const shapedClient = shapeClientCapabilities(revision, client)
    expect(Object.keys(shapedClient).sort()).toEqual([...clientKeys])
    if (revision === '2025-06-18') expect(shapedClient.elicitation).toEqual({})
    if (revision === '2026-07-28') expect(shapedClient.roots).toEqual({})
  })

  test('MCP Apps is the one extension a legacy server is told of (SEP-1865 negotiates it with every revision)', () => {
    const ui = { mimeTypes: ['text/html;profile=mcp-app'] }
    const shaped = shapeClientCapabilities('2024-11-05', { ...client, extensions: { x: {}, 'io.modelcontextprotocol/ui': ui } })
    expect(shaped.extensions).toEqual({ 'io.modelcontextprotocol/ui': ui })
  })
})

describe('malformedResult: a received result mcpx would otherwise drop part of', () => {
  test('well-formed and liberal results pass', () => {
    for (const [method, result] of [
      ['tools/call', { content: [{ type: 'text', text: 'x' }], isError: false }],
      ['tools/call', { structuredContent: { a: 1 } }], // content absent: read as empty, nothing lost
      ['tools/call', { content: [{ type: 'future-block', data: 1 }] }], // an unknown block type passes on
      ['tools/call', { task: { taskId: 't' } }], // 2025-11-25 CreateTaskResult
      ['tools/call', { resultType: 'input_required', inputRequests: {} }],
      ['tools/list', { tools: [] }],
      ['resources/read', { contents: [{ uri: 'a://b', text: 'x' }] }],
      ['ping', { content: 'anything' }], // only the methods whose lists mcpx reads are checked
      ['tools/call', { content: 'text' }], // a tool's content is read liberally instead (withContentBlocks)
    ] as const) {
      expect(malformedResult(method, {}, result as never)).toBeUndefined()
    }
  })

  test('each malformation is named, with the call it answered', () => {
    const cases: Array<[string, Record<string, unknown>, Record<string, unknown>, string]> = [
      [
        'tools/call',
        { name: 'echo' },
        { content: [], isError: 1 },
        "tools/call echo: the server's result is malformed: `isError` is a number, not a boolean",
      ],
      ['tools/list', {}, { tools: { a: 1 } }, "tools/list: the server's result is malformed: `tools` is an object, not an array"],
      [
        'resources/read',
        { uri: 'a://b' },
        { contents: 'x' },
        "resources/read a://b: the server's result is malformed: `contents` is a string, not an array",
      ],
      ['prompts/get', { name: 'p' }, { messages: [[]] }, '`messages[0]` is an array, not an object'],
    ]
    for (const [method, params, result, message] of cases) {
      const error = malformedResult(method, params, result)
      expect(error).toBeInstanceOf(McpxError)
      expect(error?.code).toBe('PROTOCOL')
      expect(error?.message).toContain(message)
    }
  })
})

describe('shapeServerCapabilities: every capability an object, its flags booleans', () => {
  test('true becomes {}, a false one is left out, a flag spelt otherwise is dropped', () => {
    const sloppy = { tools: true, prompts: false, resources: { subscribe: 'yes', listChanged: true }, logging: {} }
    expect(shapeServerCapabilities('2025-11-25', sloppy)).toEqual({ tools: {}, resources: { listChanged: true }, logging: {} })
  })
})

describe("withContentBlocks: a tool result's content read liberally, losing nothing", () => {
  test('a list of typed blocks, or no content, is the same result', () => {
    const fine = {
      content: [
        { type: 'text', text: 'x' },
        { type: 'future', data: 1 },
      ],
    }
    expect(withContentBlocks(fine)).toBe(fine)
    const none = { structuredContent: { a: 1 } }
    expect(withContentBlocks(none)).toBe(none)
  })

  test('a string is one text block, one block a list of it, anything else a text block holding its JSON', () => {
    expect(withContentBlocks({ content: 'hello' })).toEqual({ content: [{ type: 'text', text: 'hello' }] })
    expect(withContentBlocks({ content: { type: 'text', text: 'one' } })).toEqual({ content: [{ type: 'text', text: 'one' }] })
    expect(withContentBlocks({ content: 42 })).toEqual({ content: [{ type: 'text', text: '42' }] })
    expect(withContentBlocks({ content: ['a', null, { text: 'untyped' }, { type: 'text', text: 'ok' }], isError: false })).toEqual({
      content: [
        { type: 'text', text: '"a"' },
        { type: 'text', text: 'null' },
        { type: 'text', text: '{"text":"untyped"}' },
        { type: 'text', text: 'ok' },
      ],
      isError: false,
    })
  })
})
