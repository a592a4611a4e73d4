// Header value codec and x-mcp-header rules: 2026-07-28 basic/transports/streamable-http.mdx
// "Value Encoding" table, "Schema Extension" constraints, "Standard Request Headers".
import { describe, expect, test } from 'bun:test'
import { decodeHeaderValue, encodeHeaderValue, findHeaderParams, headerMatchesValue, requestHeaders } from '../../../lib/wire/index.ts'
import { McpxError, RPC, RpcError } from '../../../lib/errors/index.ts'

describe('encodeHeaderValue (spec examples)', () => {
  test.each([
    ['us-west1', 'us-west1'],
    ['Hello, 世界', '=?base64?SGVsbG8sIOS4lueVjA==?='],
    [' padded ', '=?base64?IHBhZGRlZCA=?='],
    ['line1\nline2', '=?base64?bGluZTEKbGluZTI=?='],
    ['=?base64?literal?=', '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='],
  ])('%p → %p', (value, encoded) => {
    expect(encodeHeaderValue(value)).toBe(encoded)
    expect(decodeHeaderValue(encoded)).toBe(value)
  })

  test.each([
    [42, '42'],
    [-7, '-7'],
    [true, 'true'],
    [false, 'false'],
    ['a b\tc', 'a b\tc'],
    ['', ''],
    ['tab\t', `=?base64?${btoa('tab\t')}?=`],
    ['\tlead', `=?base64?${btoa('\tlead')}?=`],
    ['bell\x07', `=?base64?${btoa('bell\x07')}?=`],
    ['del\x7f', `=?base64?${btoa('del\x7f')}?=`],
    ['=?BASE64?upper?=', '=?BASE64?upper?='],
    ['=?base64?', '=?base64?'],
  ])('type conversion and edge case %p → %p', (value, encoded) => {
    expect(encodeHeaderValue(value)).toBe(encoded)
  })

  test('rejects non-integers and unsafe integers', () => {
    expect(() => encodeHeaderValue(1.5)).toThrow(RangeError)
    expect(() => encodeHeaderValue(2 ** 53)).toThrow(RangeError)
    expect(encodeHeaderValue(2 ** 53 - 1)).toBe('9007199254740991')
  })
})

describe('decodeHeaderValue', () => {
  test.each([
    ['=?base64?SGVsbG8?=', 'bad padding'],
    ['=?base64?SGVsbG8=?=x', 'not a sentinel, but fine'],
    ['=?base64?S$Vs?=', 'bad alphabet'],
    ['=?base64?/w==?=', 'not UTF-8'],
    ['bad\nvalue', 'control character'],
  ])('%p (%s)', (raw, why) => {
    if (why.startsWith('not a sentinel')) return void expect(decodeHeaderValue(raw)).toBe(raw)
    let caught: unknown
    try {
      decodeHeaderValue(raw)
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(RpcError)
    expect((caught as RpcError).rpcCode).toBe(RPC.HEADER_MISMATCH)
    expect((caught as RpcError).httpStatus).toBe(400)
  })

  test('headerMatchesValue compares integers numerically and strings exactly', () => {
    expect(headerMatchesValue('42', 42)).toBe(true)
    expect(headerMatchesValue('42.0', 42)).toBe(true)
    expect(headerMatchesValue('', 0)).toBe(false)
    expect(headerMatchesValue('true', true)).toBe(true)
    expect(headerMatchesValue('True', true)).toBe(false)
    expect(headerMatchesValue('=?base64?SGVsbG8sIOS4lueVjA==?=', 'Hello, 世界')).toBe(true)
    expect(headerMatchesValue('us-west1', 'US-WEST1')).toBe(false)
  })
})

describe('findHeaderParams', () => {
  const prop = (extra: Record<string, unknown>) => ({ type: 'object', properties: { p: { type: 'string', ...extra } } })

  test('finds nested properties-only annotations with their path', () => {
    const schema = {
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        opts: {
          type: 'object',
          properties: { dryRun: { type: 'boolean', 'x-mcp-header': 'Dry-Run' }, n: { type: ['integer', 'null'], 'x-mcp-header': 'N' } },
        },
        query: { type: 'string' },
      },
    }
    expect(findHeaderParams(schema)).toEqual({
      ok: [
        { header: 'Mcp-Param-Region', name: 'Region', path: ['region'], type: 'string' },
        { header: 'Mcp-Param-Dry-Run', name: 'Dry-Run', path: ['opts', 'dryRun'], type: 'boolean' },
        { header: 'Mcp-Param-N', name: 'N', path: ['opts', 'n'], type: 'integer' },
      ],
    })
    expect(findHeaderParams({ type: 'object' })).toEqual({ ok: [] })
  })

  test.each([
    ['empty', prop({ 'x-mcp-header': '' })],
    ['not a string', prop({ 'x-mcp-header': 5 })],
    ['space', prop({ 'x-mcp-header': 'My Header' })],
    ['CRLF', prop({ 'x-mcp-header': 'A\r\nB' })],
    ['colon', prop({ 'x-mcp-header': 'A:B' })],
    ['non-ASCII', prop({ 'x-mcp-header': 'Régión' })],
    ['number type', { type: 'object', properties: { p: { type: 'number', 'x-mcp-header': 'P' } } }],
    ['object type', { type: 'object', properties: { p: { type: 'object', 'x-mcp-header': 'P' } } }],
    ['no type', { type: 'object', properties: { p: { 'x-mcp-header': 'P' } } }],
    ['unsafe integer bound', { type: 'object', properties: { p: { type: 'integer', maximum: 2 ** 60, 'x-mcp-header': 'P' } } }],
    [
      'duplicate (case-insensitive)',
      { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'Tenant' }, b: { type: 'string', 'x-mcp-header': 'TENANT' } } },
    ],
    ['under items', { type: 'object', properties: { a: { type: 'array', items: { type: 'string', 'x-mcp-header': 'A' } } } }],
    ['under anyOf', { type: 'object', properties: { a: { anyOf: [{ type: 'string', 'x-mcp-header': 'A' }] } } }],
    ['under oneOf', { type: 'object', oneOf: [{ properties: { a: { type: 'string', 'x-mcp-header': 'A' } } }] }],
    ['under allOf', { type: 'object', allOf: [{ properties: { a: { type: 'string', 'x-mcp-header': 'A' } } }] }],
    ['under not', { type: 'object', properties: { a: { type: 'string', not: { type: 'string', 'x-mcp-header': 'A' } } } }],
    ['under if/then', { type: 'object', if: { properties: {} }, then: { properties: { a: { type: 'string', 'x-mcp-header': 'A' } } } }],
    ['under $defs', { type: 'object', properties: { a: { $ref: '#/$defs/A' } }, $defs: { A: { type: 'string', 'x-mcp-header': 'A' } } }],
    ['under additionalProperties', { type: 'object', additionalProperties: { type: 'string', 'x-mcp-header': 'A' } }],
    ['at the root', { type: 'object', 'x-mcp-header': 'Root' }],
  ])('invalid: %s', (_why, schema) => {
    expect(findHeaderParams(schema)).toHaveProperty('invalid')
  })
})

describe('requestHeaders', () => {
  const tool = {
    name: 'execute_sql',
    inputSchema: {
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        greeting: { type: 'string', 'x-mcp-header': 'Greeting' },
        limit: { type: 'integer', 'x-mcp-header': 'Limit' },
        query: { type: 'string' },
      },
    },
  }

  test('2026-07-28 tools/call: spec example plus encoding, omitting null and absent values', () => {
    const params = { name: 'execute_sql', arguments: { region: 'us-west1', greeting: 'Hello, 世界', limit: null, query: 'SELECT 1' } }
    expect(requestHeaders('2026-07-28', 'tools/call', params, tool)).toEqual({
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'tools/call',
      'Mcp-Name': 'execute_sql',
      'Mcp-Param-Region': 'us-west1',
      'Mcp-Param-Greeting': '=?base64?SGVsbG8sIOS4lueVjA==?=',
    })
  })

  test('Mcp-Name sources per method', () => {
    expect(requestHeaders('2026-07-28', 'resources/read', { uri: 'file:///projects/myapp/config.json' })).toEqual({
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'resources/read',
      'Mcp-Name': 'file:///projects/myapp/config.json',
    })
    expect(requestHeaders('2026-07-28', 'prompts/get', { name: 'café' })['Mcp-Name']).toBe('=?base64?Y2Fmw6k=?=')
    expect(requestHeaders('2026-07-28', 'tasks/get', { taskId: 't-1' })['Mcp-Name']).toBe('t-1')
    expect(requestHeaders('2026-07-28', 'tools/list', {})).toEqual({ 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list' })
  })

  test('legacy revisions: only MCP-Protocol-Version from 2025-06-18, never on initialize', () => {
    expect(requestHeaders('2024-11-05', 'tools/call', { name: 'x' }, tool)).toEqual({})
    expect(requestHeaders('2025-03-26', 'tools/call', { name: 'x' }, tool)).toEqual({})
    expect(requestHeaders('2025-06-18', 'tools/call', { name: 'x' }, tool)).toEqual({ 'MCP-Protocol-Version': '2025-06-18' })
    expect(requestHeaders('2025-11-25', 'initialize', {})).toEqual({})
  })

  test('invalid tool and unencodable argument throw typed errors', () => {
    const bad = { name: 'bad', inputSchema: { type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } } }
    expect(() => requestHeaders('2026-07-28', 'tools/call', { name: 'bad', arguments: { n: 1 } }, bad)).toThrow(McpxError)
    expect(() => requestHeaders('2026-07-28', 'tools/call', { name: 'execute_sql', arguments: { limit: 1.5 } }, tool)).toThrow(McpxError)
    expect(() => requestHeaders('2026-07-28', 'tools/call', { name: 'execute_sql', arguments: { region: { a: 1 } } }, tool)).toThrow(
      McpxError,
    )
  })
})
