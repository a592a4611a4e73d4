import { describe, expect, test } from 'bun:test'
import { diffValues, formatDifferences } from '../../../lib/replay/diff.ts'
import { REDACTED, type MessageEntry } from '../../../lib/replay/format.ts'
import { Matcher, buildExchanges } from '../../../lib/replay/matcher.ts'
import { redactHeaders, redactMessage, redactionRules } from '../../../lib/replay/redact.ts'
import { normalize, parseVolatile, volatileFields } from '../../../lib/replay/volatile.ts'

let seq = 0
function entry(direction: 'to-server' | 'to-client', message: Record<string, unknown>): MessageEntry {
  return { type: 'message', seq: ++seq, t: seq, direction, message }
}
const req = (id: number, method: string, params?: Record<string, unknown>) =>
  entry('to-server', { jsonrpc: '2.0', id, method, ...(params && { params }) })
const res = (id: number | string, result: Record<string, unknown>) => entry('to-client', { jsonrpc: '2.0', id, result })
const note = (method: string, params: Record<string, unknown>) => entry('to-client', { jsonrpc: '2.0', method, params })

const messages: MessageEntry[] = [
  req(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: { roots: {} }, clientInfo: { name: 'a', version: '1' } }),
  res(1, { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } }),
  entry('to-server', { jsonrpc: '2.0', method: 'notifications/initialized' }),
  req(2, 'tools/call', { name: 'echo', arguments: { text: 'one' }, _meta: { progressToken: 7 } }),
  note('notifications/progress', { progressToken: 7, progress: 1 }),
  entry('to-client', { jsonrpc: '2.0', id: 'srv-1', method: 'elicitation/create', params: { message: 'sure?' } }),
  entry('to-server', { jsonrpc: '2.0', id: 'srv-1', result: { action: 'accept' } }),
  res(2, { content: [{ type: 'text', text: 'one' }] }),
  req(3, 'tools/call', { name: 'echo', arguments: { text: 'two' } }),
  res(3, { content: [{ type: 'text', text: 'two' }] }),
  req(4, 'tools/call', { name: 'login', arguments: { password: REDACTED } }),
  res(4, { content: [] }),
]

describe('buildExchanges', () => {
  test('each request owns the notifications and server requests before its response', () => {
    const exchanges = buildExchanges({ messages })
    expect(exchanges.map((e) => [e.method, e.answer.length])).toEqual([
      ['initialize', 1],
      ['tools/call', 3],
      ['tools/call', 1],
      ['tools/call', 1],
    ])
    const call = exchanges[1]!
    expect(call.answer.map((a) => a.message.method ?? 'response')).toEqual(['notifications/progress', 'elicitation/create', 'response'])
    expect(call.clientReplies.get('"srv-1"')?.message).toEqual({ jsonrpc: '2.0', id: 'srv-1', result: { action: 'accept' } })
  })
})

describe('Matcher', () => {
  test('ids, _meta and the handshake client description are ignored', () => {
    const matcher = new Matcher({ messages }, volatileFields())
    const init = matcher.match({
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'other', version: '9' } },
    })
    expect(init.ok && init.exchange.method).toBe('initialize')
    const two = matcher.match({
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'two' }, _meta: { progressToken: 'zz' } },
    })
    expect(two.ok && two.exchange.request.message.id).toBe(3)
  })

  test('exchanges are consumed in order; repeats reuse the last match', () => {
    const matcher = new Matcher({ messages }, volatileFields())
    const params = { name: 'echo', arguments: { text: 'one' } }
    const first = matcher.match({ method: 'tools/call', params })
    const again = matcher.match({ method: 'tools/call', params })
    expect(first.ok && again.ok && first.exchange === again.exchange).toBe(true)
  })

  test('a recorded redacted value matches any value', () => {
    const matcher = new Matcher({ messages }, volatileFields())
    expect(matcher.match({ method: 'tools/call', params: { name: 'login', arguments: { password: 'real' } } }).ok).toBe(true)
  })

  test('no match → the closest recorded request and what differs', () => {
    const matcher = new Matcher({ messages }, volatileFields())
    const miss = matcher.match({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'three' } } })
    expect(miss.ok).toBe(false)
    if (miss.ok) return
    expect(miss.closest?.request.message.id).toBe(2)
    expect(miss.differences).toEqual([{ path: '/params/arguments/text', recorded: 'one', observed: 'three', kind: 'changed' }])
    const other = matcher.match({ method: 'tools/lisst' })
    expect(!other.ok && other.closest?.method).toBe('tools/call')
  })

  test('declared volatile fields extend matching (--volatile)', () => {
    const matcher = new Matcher({ messages }, volatileFields(['tools/call:/params/arguments/text']))
    expect(matcher.match({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'anything' } } }).ok).toBe(true)
  })
})

describe('volatile and diff', () => {
  test('parseVolatile: pointers, ~1 escapes, method scope, bad specs', () => {
    expect(parseVolatile('/result/_meta/io.modelcontextprotocol~1related-task')).toEqual({
      pointer: ['result', '_meta', 'io.modelcontextprotocol/related-task'],
    })
    expect(parseVolatile('tools/call:/result/x')).toEqual({ method: 'tools/call', pointer: ['result', 'x'] })
    expect(() => parseVolatile('result.x')).toThrow('JSON Pointer')
  })

  test('normalize drops volatile paths, including array items', () => {
    const fields = volatileFields(['/result/items/1'])
    expect(
      normalize({ id: 4, result: { taskId: 't', items: [1, 2, 3], tasks: [{ taskId: 'a', status: 'ok' }] } }, 'tasks/list', fields),
    ).toEqual({ result: { items: [1, 3], tasks: [{ status: 'ok' }] } })
  })

  test('diffValues and formatDifferences', () => {
    const differences = diffValues({ a: 1, b: [1, 2], c: 'x' }, { a: 2, b: [1], d: true })
    expect(differences).toEqual([
      { path: '/a', recorded: 1, observed: 2, kind: 'changed' },
      { path: '/b/1', recorded: 2, kind: 'missing' },
      { path: '/c', recorded: 'x', kind: 'missing' },
      { path: '/d', observed: true, kind: 'added' },
    ])
    expect(formatDifferences(differences)).toEqual(['- /a: 1', '+ /a: 2', '- /b/1: 2', '- /c: "x"', '+ /d: true'])
  })
})

describe('redaction rules', () => {
  test('default and configured headers, token-like names', () => {
    const rules = redactionRules({ headers: ['X-Tenant'] })
    expect(
      redactHeaders(
        {
          Authorization: 'Bearer x',
          Cookie: 'a=b',
          'X-Auth-Token': 't',
          'X-Tenant': 'acme',
          'MCP-Protocol-Version': '2025-11-25',
          'Mcp-Method': 'tools/call',
        },
        rules,
      ),
    ).toEqual({
      headers: {
        Authorization: REDACTED,
        Cookie: REDACTED,
        'X-Auth-Token': REDACTED,
        'X-Tenant': REDACTED,
        'MCP-Protocol-Version': '2025-11-25',
        'Mcp-Method': 'tools/call',
      },
      redacted: ['http.headers.authorization', 'http.headers.cookie', 'http.headers.x-auth-token', 'http.headers.x-tenant'],
    })
  })

  test('fields: bare keys anywhere, dotted paths with *, progressToken untouched', () => {
    const rules = redactionRules({ fields: ['params.arguments.*.pin'] })
    const { message, redacted } = redactMessage<unknown>(
      { params: { arguments: { card: { pin: 1234, last4: '0000' }, nested: [{ access_token: 'abc' }] }, _meta: { progressToken: 3 } } },
      rules,
    )
    expect(message).toEqual({
      params: { arguments: { card: { pin: REDACTED, last4: '0000' }, nested: [{ access_token: REDACTED }] }, _meta: { progressToken: 3 } },
    })
    expect(redacted).toEqual(['params.arguments.card.pin', 'params.arguments.nested.0.access_token'])
  })
})

describe('declared volatile fields', () => {
  test('error message text is volatile, the code is not', () => {
    const fields = volatileFields()
    expect(
      diffValues(
        normalize({ error: { code: -32601, message: 'Method not found' } }, 'x', fields),
        normalize({ error: { code: -32601, message: 'no such method' } }, 'x', fields),
      ),
    ).toEqual([])
    expect(
      diffValues(
        normalize({ error: { code: -32601, message: 'a' } }, 'x', fields),
        normalize({ error: { code: -32602, message: 'a' } }, 'x', fields),
      ),
    ).toHaveLength(1)
  })
})
