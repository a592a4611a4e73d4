/**
 * Malformed input over Streamable HTTP (Bun.serve): every bad request gets the right status and
 * JSON-RPC error, and the endpoint keeps serving the next valid request, in both eras.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Engine, serveHttp, type HttpServer } from '../../../lib/server/index.ts'
import { testSettings } from '../../harness.ts'
import { everythingServer } from '../../fixtures/everything/server.ts'

const MAX_FRAME_BYTES = 4096
const MODERN = '2026-07-28'
const META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} }
const ACCEPT = 'application/json, text/event-stream'

let server: HttpServer
let sessionId: string
beforeAll(async () => {
  const settings = testSettings({ maxFrameBytes: MAX_FRAME_BYTES })
  server = serveHttp(new Engine(everythingServer, settings), settings)
  const init = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  })
  sessionId = init.headers.get('mcp-session-id')!
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, legacyHeaders())
})
afterAll(() => server.close())

function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}
const legacyHeaders = (extra: Record<string, string> = {}) => ({
  'mcp-session-id': sessionId,
  'mcp-protocol-version': '2025-11-25',
  ...extra,
})
const modernHeaders = (method: string, extra: Record<string, string> = {}) => ({
  'mcp-protocol-version': MODERN,
  'mcp-method': method,
  ...extra,
})

async function expectServing(): Promise<void> {
  const legacy = await post({ jsonrpc: '2.0', id: 99, method: 'ping' }, legacyHeaders())
  expect(await legacy.json()).toEqual({ jsonrpc: '2.0', id: 99, result: {} })
  const modern = await post({ jsonrpc: '2.0', id: 98, method: 'tools/list', params: { _meta: META } }, modernHeaders('tools/list'))
  expect(modern.status).toBe(200)
  expect((await modern.json()).result.resultType).toBe('complete')
}

type Case = [name: string, send: () => Promise<Response>, status: number, code: number | undefined]
const cases: Case[] = [
  ['bad JSON', () => post('{"jsonrpc":', legacyHeaders()), 400, -32700],
  ['text/plain body', () => post('{}', { ...legacyHeaders(), 'content-type': 'text/plain' }), 415, -32600],
  [
    'oversized body',
    () => post({ jsonrpc: '2.0', id: 2, method: 'ping', params: { pad: 'x'.repeat(MAX_FRAME_BYTES) } }, legacyHeaders()),
    413,
    -32600,
  ],
  ['missing id and method', () => post({ jsonrpc: '2.0', params: {} }, legacyHeaders()), 400, -32600],
  [
    'legacy request without a session',
    () => post({ jsonrpc: '2.0', id: 3, method: 'ping' }, { 'mcp-protocol-version': '2025-11-25' }),
    400,
    -32600,
  ],
  ['unknown session', () => post({ jsonrpc: '2.0', id: 4, method: 'ping' }, legacyHeaders({ 'mcp-session-id': 'nope' })), 404, -32600],
  [
    'foreign Origin',
    () => post({ jsonrpc: '2.0', id: 5, method: 'ping' }, legacyHeaders({ origin: 'https://evil.example.com' })),
    403,
    undefined,
  ],
  [
    'unknown protocol version header',
    () => post({ jsonrpc: '2.0', id: 6, method: 'ping' }, legacyHeaders({ 'mcp-protocol-version': '1999-01-01' })),
    400,
    -32022,
  ],
  ['batch outside 2025-03-26', () => post([{ jsonrpc: '2.0', id: 7, method: 'ping' }], legacyHeaders()), 400, -32600],
  ['legacy unknown method', () => post({ jsonrpc: '2.0', id: 8, method: 'no/such' }, legacyHeaders()), 200, -32601],
  ['modern request without _meta', () => post({ jsonrpc: '2.0', id: 9, method: 'tools/list' }, modernHeaders('tools/list')), 400, -32602],
  [
    'modern Mcp-Method mismatch',
    () => post({ jsonrpc: '2.0', id: 10, method: 'tools/list', params: { _meta: META } }, modernHeaders('prompts/list')),
    400,
    -32020,
  ],
  [
    'modern base64 Mcp-Name mismatch',
    () =>
      post(
        { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'test_simple_text', _meta: META } },
        modernHeaders('tools/call', { 'mcp-name': `=?base64?${btoa('other')}?=` }),
      ),
    400,
    -32020,
  ],
  [
    'modern Mcp-Param header omitted',
    () =>
      post(
        { jsonrpc: '2.0', id: 12, method: 'tools/call', params: { name: 'test_custom_header', arguments: { region: 'eu' }, _meta: META } },
        modernHeaders('tools/call', { 'mcp-name': 'test_custom_header' }),
      ),
    400,
    -32020,
  ],
  [
    'modern unknown method',
    () => post({ jsonrpc: '2.0', id: 13, method: 'no/such', params: { _meta: META } }, modernHeaders('no/such')),
    404,
    -32601,
  ],
  [
    'modern removed method',
    () => post({ jsonrpc: '2.0', id: 14, method: 'initialize', params: { _meta: META } }, modernHeaders('initialize')),
    404,
    -32601,
  ],
  [
    'modern header ≠ _meta version',
    () =>
      post(
        {
          jsonrpc: '2.0',
          id: 15,
          method: 'tools/list',
          params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } },
        },
        modernHeaders('tools/list'),
      ),
    400,
    -32020,
  ],
  [
    'modern undeclared client capability',
    () =>
      post(
        { jsonrpc: '2.0', id: 16, method: 'tools/call', params: { name: 'test_missing_capability', _meta: META } },
        modernHeaders('tools/call', { 'mcp-name': 'test_missing_capability' }),
      ),
    400,
    -32021,
  ],
  [
    'modern tampered requestState',
    () =>
      post(
        { jsonrpc: '2.0', id: 17, method: 'tools/call', params: { name: 'test_simple_text', requestState: 'x.y', _meta: META } },
        modernHeaders('tools/call', { 'mcp-name': 'test_simple_text' }),
      ),
    200,
    -32602,
  ],
]

describe('HTTP endpoint: malformed input', () => {
  test.each(cases)('%s → its error, and the endpoint keeps serving', async (_name, send, status, code) => {
    const response = await send()
    expect(response.status).toBe(status)
    if (code !== undefined) expect((await response.json()).error.code).toBe(code)
    await expectServing()
  })

  test('a legacy request without a session says how to get one', async () => {
    const response = await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'mcp-protocol-version': '2025-11-25' })
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      'Bad Request: the Mcp-Session-Id header is required (initialize first, then send the session id it answers with on every request)',
    )
  })

  test('DELETE ends the session; the id then gets 404', async () => {
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    })
    const id = init.headers.get('mcp-session-id')!
    expect(id).toMatch(/^[\x21-\x7e]+$/)
    expect((await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': id } })).status).toBe(204)
    expect((await post({ jsonrpc: '2.0', id: 2, method: 'ping' }, { 'mcp-session-id': id })).status).toBe(404)
  })

  test('no session is minted for server/discover or a failed initialize', async () => {
    const discover = await post(
      { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: META } },
      modernHeaders('server/discover'),
    )
    expect(discover.headers.get('mcp-session-id')).toBeNull()
    const failed = await post({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: 5 } })
    expect(failed.headers.get('mcp-session-id')).toBeNull()
    expect((await failed.json()).error.code).toBe(-32602)
  })
})
