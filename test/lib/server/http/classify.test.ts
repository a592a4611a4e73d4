/** lib/server/http/classify.ts: which era and path an HTTP request takes, or why it is refused. */
import { describe, expect, test } from 'bun:test'
import { classifyHttpRequest, rejectResponse, type ClassifyInput, type HttpVerdict } from '../../../../lib/server/http/classify.ts'

const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }

function classify(method: string, headers: Record<string, string>, body?: unknown, extra: Partial<ClassifyInput> = {}): HttpVerdict {
  return classifyHttpRequest({ method, headers: new Headers(headers), body, ...extra })
}
function rejected(verdict: HttpVerdict): Extract<HttpVerdict, { kind: 'reject' }> {
  if (verdict.kind !== 'reject') throw new Error(`expected reject, got ${verdict.kind}`)
  return verdict
}

describe('classifyHttpRequest (spec-digest §1.3)', () => {
  test('GET is a legacy stream (resume with Last-Event-ID), DELETE a legacy delete', () => {
    expect(classify('GET', { 'mcp-session-id': 's1', 'last-event-id': 'abc.3' }, undefined, { sessionRevision: '2025-11-25' })).toEqual({
      kind: 'legacy-get',
      revision: '2025-11-25',
      sessionId: 's1',
      lastEventId: 'abc.3',
    })
    expect(classify('GET', {})).toEqual({ kind: 'legacy-get', revision: '2025-03-26' })
    expect(classify('DELETE', { 'Mcp-Session-Id': 's1' })).toEqual({ kind: 'legacy-delete', sessionId: 's1' })
  })

  test('a modern-only endpoint answers GET/DELETE with 405 (streamable-http.mdx Backward Compatibility)', () => {
    for (const method of ['GET', 'DELETE']) {
      const verdict = rejected(classify(method, {}, undefined, { supported: ['2026-07-28'] }))
      expect(verdict.status).toBe(405)
      expect(verdict.allow).toBe('POST')
    }
    expect(rejected(classify('GET', { 'mcp-protocol-version': '2026-07-28' })).status).toBe(405)
    expect(rejected(classify('PUT', {})).status).toBe(405)
  })

  test('initialize without a header is the legacy handshake', () => {
    const message = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } }
    expect(classify('POST', {}, message)).toEqual({ kind: 'legacy-initialize', message })
  })

  test('initialize sent the modern way is a modern request (answered 404 -32601 by the engine)', () => {
    const message = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { _meta: MODERN_META } }
    expect(classify('POST', { 'MCP-Protocol-Version': '2026-07-28' }, message)).toEqual({ kind: 'modern', revision: '2026-07-28', message })
  })

  test('Mcp-Session-Id → legacy session, revision from the session first', () => {
    const message = { jsonrpc: '2.0', id: 2, method: 'tools/list' }
    expect(
      classify('POST', { 'mcp-session-id': 's9', 'mcp-protocol-version': '2025-06-18' }, message, { sessionRevision: '2025-11-25' }),
    ).toEqual({
      kind: 'legacy',
      revision: '2025-11-25',
      sessionId: 's9',
      message,
    })
    expect(classify('POST', { 'mcp-session-id': 's9', 'mcp-protocol-version': '2025-06-18' }, message)).toEqual({
      kind: 'legacy',
      revision: '2025-06-18',
      sessionId: 's9',
      message,
    })
  })

  test('modern header → modern path', () => {
    const message = { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: MODERN_META } }
    expect(classify('POST', { 'mcp-protocol-version': ' 2026-07-28 ' }, message)).toEqual({
      kind: 'modern',
      revision: '2026-07-28',
      message,
    })
  })

  test('legacy header → legacy with that revision (TR-35: the header is used as the version)', () => {
    const message = { jsonrpc: '2.0', id: 4, method: 'tools/list' }
    expect(classify('POST', { 'mcp-protocol-version': '2025-06-18' }, message)).toEqual({ kind: 'legacy', revision: '2025-06-18', message })
  })

  test('no header → 2025-03-26', () => {
    const message = { jsonrpc: '2.0', method: 'notifications/initialized' }
    expect(classify('POST', {}, message)).toEqual({ kind: 'legacy', revision: '2025-03-26', message })
  })

  test('no header but modern _meta in the body → 400 -32020 echoing the id', () => {
    const verdict = rejected(classify('POST', {}, { jsonrpc: '2.0', id: 'x7', method: 'tools/list', params: { _meta: MODERN_META } }))
    expect(verdict.status).toBe(400)
    expect(verdict.error.rpcCode).toBe(-32020)
    expect(verdict.id).toBe('x7')
  })

  test('legacy header but modern _meta in the body → 400 -32020', () => {
    const verdict = rejected(
      classify(
        'POST',
        { 'mcp-protocol-version': '2025-11-25' },
        { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: MODERN_META } },
      ),
    )
    expect(verdict.error.rpcCode).toBe(-32020)
  })

  test('unknown or unserved header value → 400 -32022 listing the supported revisions (TR-36)', async () => {
    const verdict = rejected(classify('POST', { 'mcp-protocol-version': '2099-01-01' }, { jsonrpc: '2.0', id: 5, method: 'ping' }))
    expect(verdict.status).toBe(400)
    expect(verdict.error.rpcCode).toBe(-32022)
    expect(verdict.error.rpcData).toEqual({
      supported: ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'],
      requested: '2099-01-01',
    })
    const response = rejectResponse(verdict)
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 5, error: verdict.error.toRpc() })

    const legacyOnly = rejected(
      classify('POST', { 'mcp-protocol-version': '2026-07-28' }, { jsonrpc: '2.0', id: 1, method: 'ping' }, { supported: ['2025-11-25'] }),
    )
    expect(legacyOnly.error.rpcData).toEqual({ supported: ['2025-11-25'], requested: '2026-07-28' })
    expect(rejected(classify('GET', { 'mcp-protocol-version': 'garbage' })).error.rpcCode).toBe(-32022)
  })

  test('a modern-only endpoint refuses requests without the header (-32020)', () => {
    expect(
      rejected(classify('POST', {}, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { supported: ['2026-07-28'] })).error.rpcCode,
    ).toBe(-32020)
  })

  test('batches only under 2025-03-26', () => {
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/progress' },
    ]
    expect(classify('POST', { 'mcp-session-id': 's' }, batch, { sessionRevision: '2025-03-26' })).toEqual({
      kind: 'legacy-batch',
      revision: '2025-03-26',
      sessionId: 's',
      messages: batch,
    })
    expect(classify('POST', {}, batch)).toEqual({ kind: 'legacy-batch', revision: '2025-03-26', messages: batch })
    expect(rejected(classify('POST', { 'mcp-session-id': 's' }, batch, { sessionRevision: '2025-11-25' })).error.rpcCode).toBe(-32600)
    expect(rejected(classify('POST', { 'mcp-protocol-version': '2026-07-28' }, batch)).status).toBe(400)
    expect(rejected(classify('POST', {}, [])).error.message).toContain('empty')
    expect(rejected(classify('POST', {}, batch, { maxBatchLength: 1 })).error.message).toContain('maxBatchLength')
    expect(rejected(classify('POST', {}, [{ jsonrpc: '2.0', id: 1, method: 'initialize' }])).error.message).toContain('initialize')
  })

  test('a body that is not an object → 400 -32600', () => {
    expect(rejected(classify('POST', {}, 42)).error.rpcCode).toBe(-32600)
    expect(rejected(classify('POST', {}, null)).error.rpcCode).toBe(-32600)
  })
})
