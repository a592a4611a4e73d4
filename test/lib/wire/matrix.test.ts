// The revision matrix is data the daemon serves at GET /v1/protocol, so it must be true: every
// method list and field table is compared with each revision's schema.json, both ways.
import { describe, expect, test } from 'bun:test'
import {
  inSpan,
  introducedIn,
  isRemovedIn,
  methodExists,
  METHODS,
  PROTOCOL_MATRIX,
  REVISIONS,
  TYPE_FIELDS,
  type Revision,
} from '../../../lib/wire/index.ts'
import { specDefinitions } from '../../support/spec-schema.ts'

type Json = Record<string, unknown>

function unionMethods(revision: Revision, union: string): string[] {
  const defs = specDefinitions(revision)
  const def = defs[union]
  if (def === undefined) return []
  const members = Array.isArray(def.anyOf)
    ? (def.anyOf as Json[]).map((m) => defs[String(m.$ref).split('/').pop() as string] as Json)
    : [def]
  return members.map((m) => ((m.properties as Json).method as Json).const as string)
}

describe.each(REVISIONS)('methods of %s match schema.json', (revision) => {
  test.each([
    ['clientRequests', 'ClientRequest'],
    ['serverRequests', 'ServerRequest'],
    ['clientNotifications', 'ClientNotification'],
    ['serverNotifications', 'ServerNotification'],
    ['inputRequests', 'InputRequest'],
  ] as const)('%s = %s union', (key, union) => {
    expect([...METHODS[revision][key]].sort()).toEqual(unionMethods(revision, union).sort())
  })
})

// Where a type lives inline in older schemas instead of as its own definition.
const INLINE: Record<string, Partial<Record<Revision, [string, ...string[]]>>> = {
  Annotations: { '2024-11-05': ['Annotated', 'annotations'] },
  ProgressNotificationParams: {
    '2024-11-05': ['ProgressNotification', 'params'],
    '2025-03-26': ['ProgressNotification', 'params'],
    '2025-06-18': ['ProgressNotification', 'params'],
  },
}

function locate(revision: Revision, typeName: string): Json | undefined {
  const defs = specDefinitions(revision)
  const inline = INLINE[typeName]?.[revision]
  if (inline === undefined) return defs[typeName]
  const [defName, ...path] = inline
  let node = defs[defName] as Json | undefined
  for (const key of path) node = (node?.properties as Json | undefined)?.[key] as Json | undefined
  return node
}

describe.each(Object.keys(TYPE_FIELDS))('fields of %s match schema.json', (typeName) => {
  const entry = TYPE_FIELDS[typeName as keyof typeof TYPE_FIELDS]
  test.each(REVISIONS)('%s', (revision) => {
    const def = locate(revision, typeName)
    expect(def !== undefined).toBe(inSpan(revision, entry.span))
    if (def === undefined) return
    const expected = Object.entries(entry.fields as Record<string, readonly [Revision, Revision]>)
      .filter(([, span]) => inSpan(revision, span))
      .map(([field]) => field)
    expect(Object.keys((def.properties ?? {}) as Json).sort()).toEqual(expected.sort())
  })
})

describe('method helpers', () => {
  test('methodExists by direction', () => {
    expect(methodExists('2025-11-25', 'initialize', 'client-to-server')).toBe(true)
    expect(methodExists('2026-07-28', 'initialize')).toBe(false)
    expect(methodExists('2026-07-28', 'server/discover', 'client-to-server')).toBe(true)
    expect(methodExists('2026-07-28', 'server/discover', 'server-to-client')).toBe(false)
    expect(methodExists('2025-06-18', 'elicitation/create', 'server-to-client')).toBe(true)
    expect(methodExists('2025-03-26', 'elicitation/create')).toBe(false)
    expect(methodExists('2026-07-28', 'tasks/get')).toBe(false)
    expect(methodExists('2026-07-28', 'tasks/get', 'client-to-server', { extensions: true })).toBe(true)
    expect(methodExists('2025-11-25', 'ping', 'server-to-client')).toBe(true)
  })
  test('isRemovedIn and introducedIn', () => {
    for (const m of [
      'initialize',
      'ping',
      'logging/setLevel',
      'resources/subscribe',
      'resources/unsubscribe',
      'notifications/initialized',
      'tasks/result',
      'tasks/list',
      'notifications/roots/list_changed',
      'notifications/elicitation/complete',
    ]) {
      expect([m, isRemovedIn('2026-07-28', m)]).toEqual([m, true])
    }
    expect(isRemovedIn('2026-07-28', 'tools/call')).toBe(false)
    expect(isRemovedIn('2025-11-25', 'server/discover')).toBe(false)
    expect(isRemovedIn('2025-06-18', 'tasks/get')).toBe(false)
    expect(introducedIn('elicitation/create')).toBe('2025-06-18')
    expect(introducedIn('subscriptions/listen')).toBe('2026-07-28')
    expect(introducedIn('nope')).toBeUndefined()
  })
})

describe('PROTOCOL_MATRIX', () => {
  test('is JSON-serialisable without loss', () => {
    expect(JSON.parse(JSON.stringify(PROTOCOL_MATRIX))).toEqual(PROTOCOL_MATRIX)
  })
  test('MCP error codes match the error definitions of the schemas', () => {
    const constCode = (revision: Revision, name: string) => {
      const def = specDefinitions(revision)[name] as Json
      const parts = ((def.properties as Json).error as Json).allOf as Json[]
      return (((parts[1] as Json).properties as Json).code as Json).const
    }
    expect(constCode('2026-07-28', 'HeaderMismatchError')).toBe(-32020)
    expect(constCode('2026-07-28', 'MissingRequiredClientCapabilityError')).toBe(-32021)
    expect(constCode('2026-07-28', 'UnsupportedProtocolVersionError')).toBe(-32022)
    expect(constCode('2025-11-25', 'URLElicitationRequiredError')).toBe(-32042)
    const codes = (r: Revision) => PROTOCOL_MATRIX.byRevision[r].errorCodes
    expect(codes('2024-11-05')).toContain(-32002)
    expect(codes('2025-11-25')).toEqual(expect.arrayContaining([-32002, -32042]))
    expect(codes('2026-07-28')).not.toContain(-32002)
    expect(codes('2026-07-28')).not.toContain(-32042)
    expect(codes('2026-07-28')).toEqual(expect.arrayContaining([-32020, -32021, -32022]))
  })
  test('field-level features agree with the schema-proven field table', () => {
    const f = PROTOCOL_MATRIX.features
    expect(f.structuredContent?.span).toEqual(TYPE_FIELDS.CallToolResult.fields.structuredContent)
    expect(f.title?.span).toEqual(TYPE_FIELDS.Tool.fields.title)
    expect(f.icons?.span).toEqual(TYPE_FIELDS.Tool.fields.icons)
    expect(f.toolAnnotations?.span).toEqual(TYPE_FIELDS.Tool.fields.annotations)
    expect(f.resourceLink?.span).toEqual(TYPE_FIELDS.ResourceLink.span)
    expect(f.audioContent?.span).toEqual(TYPE_FIELDS.AudioContent.span)
    expect(f.coreTasks?.span).toEqual(TYPE_FIELDS.Tool.fields.execution)
    expect(f.cacheHints?.span).toEqual(TYPE_FIELDS.ListToolsResult.fields.ttlMs)
    expect(f.resultType?.span).toEqual(TYPE_FIELDS.CallToolResult.fields.resultType)
    expect(f.progressMessage?.span).toEqual(TYPE_FIELDS.ProgressNotificationParams.fields.message)
    expect(f.completionsCapability?.span).toEqual(TYPE_FIELDS.ServerCapabilities.fields.completions)
    // Batching only in 2025-03-26: the only schema with JSONRPCBatchRequest.
    for (const r of REVISIONS) expect(r === '2025-03-26').toBe('JSONRPCBatchRequest' in specDefinitions(r))
    expect(PROTOCOL_MATRIX.byRevision['2025-03-26'].features).toContain('batching')
  })
  test('removed methods of 2026 and capabilities per side', () => {
    expect(PROTOCOL_MATRIX.byRevision['2026-07-28'].removed).toEqual([
      'initialize',
      'logging/setLevel',
      'notifications/elicitation/complete',
      'notifications/initialized',
      'notifications/roots/list_changed',
      'notifications/tasks/status',
      'ping',
      'resources/subscribe',
      'resources/unsubscribe',
      'tasks/cancel',
      'tasks/get',
      'tasks/list',
      'tasks/result',
    ])
    expect(PROTOCOL_MATRIX.byRevision['2025-11-25'].removed).toEqual([])
    expect(PROTOCOL_MATRIX.byRevision['2026-07-28'].capabilities.client).toContain('extensions')
    expect(PROTOCOL_MATRIX.byRevision['2024-11-05'].capabilities.server).not.toContain('completions')
    expect(PROTOCOL_MATRIX.byRevision['2026-07-28'].headers).toContain('Mcp-Method')
    expect(PROTOCOL_MATRIX.byRevision['2025-11-25'].resourceNotFoundCode).toBe(-32002)
    expect(PROTOCOL_MATRIX.byRevision['2026-07-28'].resourceNotFoundCode).toBe(-32602)
    expect(PROTOCOL_MATRIX.byRevision['2024-11-05'].fields.Tool).toEqual(['name', 'description', 'inputSchema'])
    expect(PROTOCOL_MATRIX.byRevision['2024-11-05'].fields.AudioContent).toBeUndefined()
    expect(PROTOCOL_MATRIX.byRevision['2026-07-28'].fields.CallToolResult).toContain('resultType')
  })
})
