/**
 * The envelope scan the serve shim relies on: for every kind of JSON-RPC line it must say what
 * JSON.parse would (id byte-exact, method, response or not), whatever the key order and whatever
 * the body holds (brackets and quotes inside strings, escapes, nesting), and never throw.
 */
import { describe, expect, test } from 'bun:test'
import { scanBatch, scanEnvelope } from '../../../lib/wire/index.ts'

const bytes = (text: string) => new TextEncoder().encode(text)
const scan = (text: string) => scanEnvelope(bytes(text))

describe('scanEnvelope', () => {
  test('requests, notifications and responses in any key order', () => {
    expect(scan('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}')).toEqual({
      id: '7',
      method: 'tools/call',
      response: false,
      error: false,
    })
    // SDK 1.x puts the id last, after the params.
    expect(scan('{"method":"tools/call","params":{"arguments":{"s":"}]\\"{[","n":[1,{"a":[]}]}},"jsonrpc":"2.0","id":"a-1"}')).toEqual({
      id: '"a-1"',
      method: 'tools/call',
      response: false,
      error: false,
    })
    expect(scan('{"jsonrpc":"2.0","method":"notifications/initialized"}')).toEqual({
      method: 'notifications/initialized',
      response: false,
      error: false,
    })
    expect(scan('{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"id\\"method"}]}}')).toEqual({
      id: '3',
      response: true,
      error: false,
    })
    expect(scan('{"result":{"x":"}"},"jsonrpc":"2.0","id":3}')).toEqual({ id: '3', response: true, error: false })
    expect(scan(' { "jsonrpc" : "2.0" , "id" : 4 , "error" : { "code" : -32601 , "message" : "no" } }\n')).toEqual({
      id: '4',
      response: true,
      error: true,
    })
  })

  test('ids are kept byte-exact, integers beyond 2^53 included', () => {
    expect(scan('{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}')?.id).toBe('9007199254740993')
    expect(scan('{"jsonrpc":"2.0","id":"\\u00e9\\"x","method":"ping"}')?.id).toBe('"\\u00e9\\"x"')
    expect(scan('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}')?.id).toBe('null')
  })

  test('an escaped method name is decoded', () => {
    expect(scan('{"jsonrpc":"2.0","id":1,"method":"tools\\/list"}')?.method).toBe('tools/list')
  })

  test('batches and garbage are not envelopes, and nothing throws', () => {
    expect(scan('[{"jsonrpc":"2.0","id":1,"method":"ping"}]')).toBeUndefined()
    for (const text of [
      '',
      'not json',
      '{',
      '{"id"',
      '{"id":1,',
      '{"a":{"b":',
      '{"method":"x","params":"unterminated',
      '"str"',
      '123',
      '{1:2}',
    ]) {
      expect(() => scan(text)).not.toThrow()
    }
    expect(scan('{"a":{"b":')).toBeUndefined()
  })

  test('agrees with JSON.parse over a corpus of shapes', () => {
    const corpus = [
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: { roots: { listChanged: true } } },
      },
      {
        params: { _meta: { progressToken: 'p' }, name: 'a', arguments: { deep: [[[['}']]]], q: '\\' } },
        method: 'tools/call',
        jsonrpc: '2.0',
        id: -12.5e3,
      },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 0.5 } },
      { jsonrpc: '2.0', id: 'x', result: {} },
      { id: 'y', jsonrpc: '2.0', error: { code: 1, message: 'm', data: { id: 'not me', method: 'nor me' } } },
    ]
    for (const message of corpus) {
      const parsed = message as { id?: unknown; method?: string; result?: unknown; error?: unknown }
      const envelope = scan(JSON.stringify(message))!
      expect(envelope.id === undefined ? undefined : JSON.parse(envelope.id)).toEqual(parsed.id)
      expect(envelope.method).toBe(parsed.method)
      expect(envelope.response).toBe(parsed.result !== undefined || parsed.error !== undefined)
      expect(envelope.error).toBe(parsed.error !== undefined)
    }
  })
})

describe('scanBatch', () => {
  test("a batch's members, each read as scanEnvelope reads a line, ids byte-exact", () => {
    const line = bytes(
      '[{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"x":[1,{"y":"]"}]}}, {"jsonrpc":"2.0","method":"notifications/x"} ,{"jsonrpc":"2.0","id":"a","result":{}}]\n',
    )
    expect(scanBatch(line)).toEqual([
      { id: '9007199254740993', method: 'tools/call', response: false, error: false },
      { method: 'notifications/x', response: false, error: false },
      { id: '"a"', response: true, error: false },
    ])
  })

  test('an object line, an empty batch, members that are no objects, broken JSON', () => {
    expect(scanBatch(bytes('{"jsonrpc":"2.0","id":1,"method":"ping"}'))).toBeUndefined()
    expect(scanBatch(bytes('[]'))).toEqual([])
    expect(scanBatch(bytes('[1, "x", {"id":2,"method":"ping"}]'))).toEqual([{ id: '2', method: 'ping', response: false, error: false }])
    expect(scanBatch(bytes('[{"id":1,"method":"ping"'))).toBeUndefined()
  })

  test('a member that is no value, or members with no comma between, end the scan as broken JSON (they looped forever)', () => {
    for (const text of ['[}', '[1}', '[,]', '[1,,2]', '[{"id":1} x]', '[1 2]', '[{"id":1}}']) {
      expect(scanBatch(bytes(text))).toBeUndefined()
    }
    expect(scanBatch(bytes('[1 , {"id":3,"method":"ping"} ]'))).toEqual([{ id: '3', method: 'ping', response: false, error: false }])
  })

  test('a method with a broken escape is no method, not a throw', () => {
    expect(scanEnvelope(bytes('{"id":1,"method":"a\\x"}'))).toEqual({ id: '1', response: false, error: false })
    expect(scanBatch(bytes('[{"id":1,"method":"\\u12"}]'))).toEqual([{ id: '1', response: false, error: false }])
  })
})
