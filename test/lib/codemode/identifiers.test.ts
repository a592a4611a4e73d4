/**
 * Script-side aliases for servers and tools: the same function names the sandbox and the type
 * renderer use, stable and collision-free; and the description agents read of them.
 */
import { describe, expect, test } from 'bun:test'
import { aliasNamespaces, describeSandbox, isIdentifier, sanitizeIdentifier } from '../../../lib/codemode/index.ts'
import { testSettings } from '../../harness.ts'

describe('identifiers', () => {
  test('sanitises any MCP name into an identifier', () => {
    expect(['get-weather', '2fa.verify', 'delete', 'ok_name', '', 'ünïcode', '$x'].map(sanitizeIdentifier)).toEqual([
      'get_weather',
      '_2fa_verify',
      'delete_',
      'ok_name',
      '_',
      '_n_code',
      '$x',
    ])
    expect([isIdentifier('a_b'), isIdentifier('a-b'), isIdentifier('class'), isIdentifier('9a')]).toEqual([true, false, false, false])
  })

  test('clashes get _2, _3 in the given order; servers never shadow sandbox globals', () => {
    expect(aliasNamespaces({ 'my-server': ['a-b', 'a_b', 'a.b'], my_server: ['x'], console: ['log'], JSON: [], mcpx: [] })).toEqual([
      {
        server: 'my-server',
        alias: 'my_server',
        tools: [
          { name: 'a-b', alias: 'a_b' },
          { name: 'a_b', alias: 'a_b_2' },
          { name: 'a.b', alias: 'a_b_3' },
        ],
      },
      { server: 'my_server', alias: 'my_server_2', tools: [{ name: 'x', alias: 'x' }] },
      { server: 'console', alias: 'console_', tools: [{ name: 'log', alias: 'log' }] },
      { server: 'JSON', alias: 'JSON_', tools: [] },
      { server: 'mcpx', alias: 'mcpx_', tools: [] },
    ])
  })
})

describe('describeSandbox', () => {
  test('states the aliasing rules and the limits in force', () => {
    const text = describeSandbox(testSettings({ codemodeTimeoutMs: 1234, codemodeMaxToolCalls: 77 }))
    expect(text).toContain('`get-weather` → `get_weather`')
    expect(text).toContain('1234 ms wall clock')
    expect(text).toContain('77 tool calls')
  })
})
