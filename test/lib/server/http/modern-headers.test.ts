/** lib/server/http/modern-headers.ts: 2026 Mcp-Method/Mcp-Name/Mcp-Param-* headers checked against the body (SEP-2243). */
import { describe, expect, test } from 'bun:test'
import { validateModernHeaders, type ModernHeaderResult } from '../../../../lib/server/http/modern-headers.ts'

const V = '2026-07-28'
const META = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} }
const TOOL_SCHEMA = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    count: { type: 'integer', 'x-mcp-header': 'Count' },
    dry: { type: 'boolean', 'x-mcp-header': 'Dry' },
    nested: { type: 'object', properties: { tenant: { type: 'string', 'x-mcp-header': 'Tenant' } } },
    query: { type: 'string' },
  },
}

function call(args: Record<string, unknown>, name = 'run_sql') {
  return { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, _meta: META } }
}
function check(headers: Record<string, string>, message: Record<string, unknown>, schema: unknown = TOOL_SCHEMA): ModernHeaderResult {
  return validateModernHeaders(new Headers(headers), message, { toolInputSchema: schema })
}
function expectMismatch(result: ModernHeaderResult, header: string): void {
  expect(result.ok).toBe(false)
  if (result.ok) return
  expect(result.status).toBe(400)
  expect(result.error.rpcCode).toBe(-32020)
  expect(result.error.httpStatus).toBe(400)
  expect(result.header.toLowerCase()).toBe(header.toLowerCase())
}
const base = { 'MCP-Protocol-Version': V, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'run_sql' }

describe('validateModernHeaders (SEP-2243)', () => {
  test('matching standard headers pass; names are case-insensitive, values trimmed', () => {
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } }
    expect(check({ 'mcp-protocol-version': V, 'mcp-method': 'tools/list' }, list)).toEqual({ ok: true })
    expect(check({ 'MCP-PROTOCOL-VERSION': V, 'MCP-METHOD': 'tools/list' }, list)).toEqual({ ok: true })
    expect(check({ ...base, 'Mcp-Name': '  run_sql  ' }, call({}))).toEqual({ ok: true })
  })

  test('protocol version header must equal _meta', () => {
    const list = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2026-12-01' } },
    }
    expectMismatch(check({ 'mcp-protocol-version': V, 'mcp-method': 'tools/list' }, list), 'MCP-Protocol-Version')
    expectMismatch(check({ 'mcp-method': 'tools/list' }, list), 'MCP-Protocol-Version')
  })

  test('a body without _meta protocolVersion is left to the engine (-32602), not a header error', () => {
    expect(check({ 'mcp-protocol-version': V, 'mcp-method': 'tools/list' }, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).toEqual({
      ok: true,
    })
  })

  test('Mcp-Method missing, mismatched or differently cased → -32020', () => {
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } }
    expectMismatch(check({ 'mcp-protocol-version': V }, list), 'Mcp-Method')
    expectMismatch(check({ 'mcp-protocol-version': V, 'mcp-method': 'prompts/list' }, list), 'Mcp-Method')
    expectMismatch(check({ 'mcp-protocol-version': V, 'mcp-method': 'TOOLS/LIST' }, list), 'Mcp-Method')
  })

  test('Mcp-Name mirrors name / uri / taskId', () => {
    expectMismatch(check({ ...base, 'Mcp-Name': 'wrong_tool_name' }, call({})), 'Mcp-Name')
    const { 'Mcp-Name': _, ...noName } = base
    expectMismatch(check(noName, call({})), 'Mcp-Name')
    const read = { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'file:///a b', _meta: META } }
    expect(check({ 'mcp-protocol-version': V, 'mcp-method': 'resources/read', 'mcp-name': 'file:///a b' }, read)).toEqual({ ok: true })
    const task = { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { taskId: 't-1', _meta: META } }
    expect(check({ 'mcp-protocol-version': V, 'mcp-method': 'tasks/get', 'mcp-name': 't-1' }, task)).toEqual({ ok: true })
    expectMismatch(check({ 'mcp-protocol-version': V, 'mcp-method': 'tasks/get' }, task), 'Mcp-Name')
  })

  test('Mcp-Name in the base64 sentinel is decoded before comparing', () => {
    const message = call({}, 'Hello, 世界')
    expect(check({ ...base, 'Mcp-Name': '=?base64?SGVsbG8sIOS4lueVjA==?=' }, message)).toEqual({ ok: true })
  })

  test('Mcp-Param: present and equal passes (strings, integers numerically, booleans, nested paths)', () => {
    const args = { region: 'us-west1', count: 42, dry: false, nested: { tenant: 'acme' }, query: 'SELECT 1' }
    const headers = {
      ...base,
      'Mcp-Param-Region': 'us-west1',
      'Mcp-Param-Count': '42.0',
      'Mcp-Param-Dry': 'false',
      'Mcp-Param-Tenant': 'acme',
    }
    expect(check(headers, call(args))).toEqual({ ok: true })
    expect(check({ ...headers, 'Mcp-Param-Region': '=?base64?dXMtd2VzdDE=?=' }, call(args))).toEqual({ ok: true })
    // Two values for one header (fetch joins them with ", ") never equal the body.
    expectMismatch(check({ ...headers, 'mcp-param-region': 'us-west1' }, call(args)), 'Mcp-Param-Region')
  })

  test('Mcp-Param: value in body but header missing → -32020', () => {
    expectMismatch(check(base, call({ region: 'us-west1' })), 'Mcp-Param-Region')
  })

  test('Mcp-Param: header present but body value absent or null → -32020', () => {
    expectMismatch(check({ ...base, 'Mcp-Param-Region': 'us-west1' }, call({})), 'Mcp-Param-Region')
    expectMismatch(check({ ...base, 'Mcp-Param-Region': 'us-west1' }, call({ region: null })), 'Mcp-Param-Region')
  })

  test('Mcp-Param: null or absent in body and no header is fine', () => {
    expect(check(base, call({ region: null }))).toEqual({ ok: true })
  })

  test('Mcp-Param: mismatched values → -32020', () => {
    expectMismatch(check({ ...base, 'Mcp-Param-Count': '43' }, call({ count: 42 })), 'Mcp-Param-Count')
    expectMismatch(check({ ...base, 'Mcp-Param-Dry': 'TRUE' }, call({ dry: true })), 'Mcp-Param-Dry')
    expectMismatch(check({ ...base, 'Mcp-Param-Region': 'US-WEST1' }, call({ region: 'us-west1' })), 'Mcp-Param-Region')
  })

  test('Mcp-Param: bad base64 padding or alphabet → -32020; a half sentinel is a literal', () => {
    expectMismatch(check({ ...base, 'Mcp-Param-Region': '=?base64?SGVsbG8?=' }, call({ region: 'Hello' })), 'Mcp-Param-Region')
    expectMismatch(check({ ...base, 'Mcp-Param-Region': '=?base64?SGVs!!!bG8=?=' }, call({ region: 'Hello' })), 'Mcp-Param-Region')
    expect(check({ ...base, 'Mcp-Param-Region': 'SGVsbG8=' }, call({ region: 'SGVsbG8=' }))).toEqual({ ok: true })
    expect(check({ ...base, 'Mcp-Param-Region': '=?base64?SGVsbG8=' }, call({ region: '=?base64?SGVsbG8=' }))).toEqual({ ok: true })
  })

  test('unknown Mcp-Param headers are ignored; no schema means no param checks', () => {
    expect(check({ ...base, 'Mcp-Param-Other': 'x' }, call({}))).toEqual({ ok: true })
    expect(validateModernHeaders(new Headers(base), call({ region: 'x' }))).toEqual({ ok: true })
  })
})
