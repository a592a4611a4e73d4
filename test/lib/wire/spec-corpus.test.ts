// Acceptance: "every message the server sends validates against the schema of the revision it
// speaks". Each corpus case under test/fixtures/wire/ is a newest-shape result, notification or
// server-to-client request; for every revision it is shaped and validated against that revision's
// schema.json, strictly (no field the revision does not declare) and inside its JSON-RPC envelope.
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { McpxError } from '../../../lib/errors/index.ts'
import {
  isModernRevision,
  methodExists,
  METHODS,
  MODERN_META_KEYS,
  REVISIONS,
  shapeClientRequest,
  shapeNotification,
  shapeRequest,
  shapeResult,
  type Revision,
} from '../../../lib/wire/index.ts'
import { specDefinitions, validateSpec } from '../../support/spec-schema.ts'

type Obj = Record<string, unknown>
interface Case {
  kind: 'result' | 'notification' | 'request' | 'client-result' | 'client-request'
  method?: string
  /** Notifications only: who sends it (default server-to-client). */
  direction?: 'client-to-server' | 'server-to-client'
  value: Obj
}

const CORPUS_DIR = new URL('../../fixtures/wire/', import.meta.url)
const CASES: [string, Case][] = readdirSync(CORPUS_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => [f.replace(/\.json$/, ''), JSON.parse(readFileSync(new URL(f, CORPUS_DIR), 'utf8')) as Case])

const RESULT_DEFS: Record<string, string> = {
  initialize: 'InitializeResult',
  'server/discover': 'DiscoverResult',
  'tools/list': 'ListToolsResult',
  'tools/call': 'CallToolResult',
  'tasks/result': 'CallToolResult',
  'resources/list': 'ListResourcesResult',
  'resources/templates/list': 'ListResourceTemplatesResult',
  'resources/read': 'ReadResourceResult',
  'prompts/list': 'ListPromptsResult',
  'prompts/get': 'GetPromptResult',
  'completion/complete': 'CompleteResult',
  'subscriptions/listen': 'SubscriptionsListenResult',
  ping: 'EmptyResult',
  'logging/setLevel': 'EmptyResult',
  'resources/subscribe': 'EmptyResult',
  'tasks/get': 'GetTaskResult',
  'tasks/list': 'ListTasksResult',
  'tasks/cancel': 'CancelTaskResult',
}
const NOTIFICATION_DEFS: Record<string, string> = {
  'notifications/progress': 'ProgressNotification',
  'notifications/message': 'LoggingMessageNotification',
  'notifications/tools/list_changed': 'ToolListChangedNotification',
  'notifications/prompts/list_changed': 'PromptListChangedNotification',
  'notifications/resources/list_changed': 'ResourceListChangedNotification',
  'notifications/resources/updated': 'ResourceUpdatedNotification',
  'notifications/subscriptions/acknowledged': 'SubscriptionsAcknowledgedNotification',
  'notifications/cancelled': 'CancelledNotification',
  'notifications/elicitation/complete': 'ElicitationCompleteNotification',
  'notifications/tasks/status': 'TaskStatusNotification',
  'notifications/roots/list_changed': 'RootsListChangedNotification',
  'notifications/initialized': 'InitializedNotification',
}
const REQUEST_DEFS: Record<string, string> = {
  'elicitation/create': 'ElicitRequest',
  'sampling/createMessage': 'CreateMessageRequest',
  'roots/list': 'ListRootsRequest',
  ping: 'PingRequest',
}
const CLIENT_REQUEST_DEFS: Record<string, string> = {
  initialize: 'InitializeRequest',
  ping: 'PingRequest',
  'server/discover': 'DiscoverRequest',
  'tools/list': 'ListToolsRequest',
  'tools/call': 'CallToolRequest',
  'resources/read': 'ReadResourceRequest',
  'resources/subscribe': 'SubscribeRequest',
  'prompts/get': 'GetPromptRequest',
  'completion/complete': 'CompleteRequest',
  'logging/setLevel': 'SetLevelRequest',
  'subscriptions/listen': 'SubscriptionsListenRequest',
}
const CLIENT_RESULT_DEFS: Record<string, string> = {
  'sampling/createMessage': 'CreateMessageResult',
  'elicitation/create': 'ElicitResult',
  'roots/list': 'ListRootsResult',
}

// Up to 2025-06-18 the Request/Notification definitions carry only method and params.
const bareEnvelope = (revision: Revision) => revision < '2025-11-25'
const withoutEnvelope = ({ jsonrpc: _j, id: _i, ...rest }: Obj) => rest

function expectValid(revision: Revision, definition: string, value: unknown, strict = true): void {
  expect({ definition, errors: validateSpec(revision, definition, value, { strict }) }).toEqual({ definition, errors: [] })
}

/**
 * The schemas leave `_meta` and capabilities open, so strict validation cannot see 2026-only keys
 * leaking into a legacy message; scan for them.
 */
function expectNoLeaks(revision: Revision, value: unknown): void {
  const text = JSON.stringify(value)
  const leaks: string[] = []
  if (!isModernRevision(revision)) {
    for (const key of [...MODERN_META_KEYS, 'resultType', 'ttlMs', 'cacheScope', 'inputResponses', 'requestState', 'extensions']) {
      if (text.includes(`"${key}"`)) leaks.push(key)
    }
  }
  if (revision !== '2025-11-25' && text.includes('"io.modelcontextprotocol/related-task"')) leaks.push('related-task')
  if (revision !== '2025-11-25' && /"tasks":\{/.test(text)) leaks.push('tasks capability')
  expect({ revision, leaks }).toEqual({ revision, leaks: [] })
}

function expectEra(run: () => unknown): void {
  let caught: unknown
  try {
    run()
  } catch (error) {
    caught = error
  }
  expect(caught).toBeInstanceOf(McpxError)
  expect((caught as McpxError).code).toBe('ERA')
}

function checkResult(revision: Revision, method: string, value: Obj): void {
  const resultType = value.resultType
  const expressible =
    methodExists(revision, method, undefined, { extensions: true }) &&
    (isModernRevision(revision) ||
      resultType === undefined ||
      resultType === 'complete' ||
      (resultType === 'task' && revision === '2025-11-25' && method === 'tools/call'))
  if (!expressible) return expectEra(() => shapeResult(revision, method, value))

  const shaped = shapeResult(revision, method, value)
  expectNoLeaks(revision, shaped)
  let definition = RESULT_DEFS[method] as string
  if (shaped.resultType === 'input_required') definition = 'InputRequiredResult'
  if (revision === '2025-11-25' && 'task' in shaped) definition = 'CreateTaskResult'
  if (isModernRevision(revision)) expect(typeof shaped.resultType).toBe('string')
  else expect('resultType' in shaped || 'ttlMs' in shaped || 'cacheScope' in shaped).toBe(false)

  // The 2026 tasks extension has no schema.json definitions (SEP-2663); its results still are Results.
  const extensionResult = isModernRevision(revision) && (shaped.resultType === 'task' || method.startsWith('tasks/'))
  expectValid(revision, extensionResult ? 'Result' : definition, shaped, !extensionResult)

  const response = { jsonrpc: '2.0', id: 1, result: shaped }
  const typedResponse = `${definition}Response`
  const envelope =
    revision < '2025-11-25'
      ? 'JSONRPCResponse'
      : typedResponse in specDefinitions(revision) && !extensionResult
        ? typedResponse
        : 'JSONRPCResultResponse'
  expectValid(revision, envelope, response, false)
  expectValid(revision, 'JSONRPCMessage', response, false)
}

function checkNotification(revision: Revision, value: Obj, direction: 'client-to-server' | 'server-to-client'): void {
  const method = value.method as string
  const shaped = shapeNotification(revision, value as { method: string })
  if (!methodExists(revision, method, undefined, { extensions: true })) return void expect(shaped).toBeNull()
  expect(shaped).not.toBeNull()
  expectNoLeaks(revision, shaped)
  const message = shaped as Obj
  const definition = NOTIFICATION_DEFS[method] as string
  const union = direction === 'client-to-server' ? 'ClientNotification' : 'ServerNotification'
  expectValid(revision, definition, bareEnvelope(revision) ? withoutEnvelope(message) : message)
  expectValid(revision, union, bareEnvelope(revision) ? withoutEnvelope(message) : message, false)
  expectValid(revision, 'JSONRPCNotification', message, false)
  expectValid(revision, 'JSONRPCMessage', message, false)
}

function checkClientResult(revision: Revision, method: string, value: Obj): void {
  if (!methodExists(revision, method, 'server-to-client')) return expectEra(() => shapeResult(revision, method, value))
  const shaped = shapeResult(revision, method, value)
  expectNoLeaks(revision, shaped)
  const definition = CLIENT_RESULT_DEFS[method] as string
  expectValid(revision, definition, shaped)
  if (isModernRevision(revision)) {
    // 2026: an MRTR input response (bare shape inside inputResponses), never a JSON-RPC response.
    expect('resultType' in shaped).toBe(false)
    return expectValid(revision, 'InputResponse', shaped, false)
  }
  expectValid(revision, 'ClientResult', shaped, false)
  expectValid(
    revision,
    revision < '2025-11-25' ? 'JSONRPCResponse' : 'JSONRPCResultResponse',
    { jsonrpc: '2.0', id: 1, result: shaped },
    false,
  )
}

function checkClientRequest(revision: Revision, value: Obj): void {
  const method = value.method as string
  if (!methodExists(revision, method, 'client-to-server')) return expectEra(() => shapeClientRequest(revision, value as { method: string }))
  const shaped = shapeClientRequest(revision, value as { method: string }) as Obj
  expectNoLeaks(revision, shaped)
  const definition = CLIENT_REQUEST_DEFS[method] as string
  expectValid(revision, definition, bareEnvelope(revision) ? withoutEnvelope(shaped) : shaped)
  expectValid(revision, 'ClientRequest', bareEnvelope(revision) ? withoutEnvelope(shaped) : shaped, false)
  expectValid(revision, 'JSONRPCRequest', shaped, false)
}

function checkRequest(revision: Revision, value: Obj): void {
  const method = value.method as string
  const urlMode = (value.params as Obj | undefined)?.mode === 'url'
  if (!methodExists(revision, method, 'server-to-client') || (urlMode && revision < '2025-11-25')) {
    return expectEra(() => shapeRequest(revision, value as { method: string }))
  }
  const shaped = shapeRequest(revision, value as { method: string }) as Obj
  expectNoLeaks(revision, shaped)
  const definition = REQUEST_DEFS[method] as string
  if (isModernRevision(revision)) {
    // 2026: an MRTR input request, not a JSON-RPC request (T26 InputRequest).
    expect('id' in shaped || 'jsonrpc' in shaped).toBe(false)
    expectValid(revision, definition, shaped)
    expectValid(revision, 'InputRequest', shaped, false)
    return
  }
  expectValid(revision, definition, bareEnvelope(revision) ? withoutEnvelope(shaped) : shaped)
  expectValid(revision, 'ServerRequest', bareEnvelope(revision) ? withoutEnvelope(shaped) : shaped, false)
  expectValid(revision, 'JSONRPCRequest', shaped, false)
  expectValid(revision, 'JSONRPCMessage', shaped, false)
}

test('the corpus covers every server result, server notification and server request of every revision', () => {
  const methods = new Set(CASES.map(([, c]) => (c.kind === 'result' ? c.method : c.value.method) as string))
  const clientResults = new Set(CASES.filter(([, c]) => c.kind === 'client-result').map(([, c]) => c.method as string))
  for (const revision of REVISIONS) {
    for (const key of ['clientRequests', 'serverNotifications', 'serverRequests', 'inputRequests'] as const) {
      for (const method of METHODS[revision][key]) {
        if (method === 'resources/unsubscribe') continue // the same EmptyResult as resources/subscribe
        expect({ revision, method, covered: methods.has(method) }).toEqual({ revision, method, covered: true })
      }
    }
    for (const method of [...METHODS[revision].inputRequests, ...METHODS[revision].serverRequests]) {
      if (method === 'ping' || method.startsWith('tasks/')) continue // EmptyResult / task results, covered as server results
      expect({ revision, method, answered: clientResults.has(method) }).toEqual({ revision, method, answered: true })
    }
  }
})

describe.each(CASES)('%s', (_name, corpusCase) => {
  test.each([...REVISIONS])('validates as %s', (revision) => {
    switch (corpusCase.kind) {
      case 'result':
        return checkResult(revision, corpusCase.method as string, corpusCase.value)
      case 'notification':
        return checkNotification(revision, corpusCase.value, corpusCase.direction ?? 'server-to-client')
      case 'request':
        return checkRequest(revision, corpusCase.value)
      case 'client-result':
        return checkClientResult(revision, corpusCase.method as string, corpusCase.value)
      case 'client-request':
        return checkClientRequest(revision, corpusCase.value)
    }
  })
})
