/**
 * recordingFetch against a real Bun.serve endpoint: JSON answers, an SSE answer (priming event with
 * retry, a notification, the response), a 202 for a notification and a 405 for GET are recorded
 * with their HTTP framing, while the caller reads every response unchanged.
 */
import { describe, expect, test } from 'bun:test'
import { Recorder, memorySink, parseRecording, recordingFetch } from '../../../lib/replay/index.ts'
import { EventStore } from '../../../lib/server/http/event-store.ts'
import { openSseStream } from '../../../lib/server/http/sse-stream.ts'

describe('recordingFetch', () => {
  test('records messages with method, status, headers and SSE framing; passes responses through', async () => {
    const store = new EventStore({ sseEventBufferLength: 10 })
    await using server = Bun.serve({
      port: 0,
      async fetch(request) {
        if (request.method === 'GET') return new Response(null, { status: 405, headers: { allow: 'POST' } })
        const body = (await request.json()) as { id?: number; method: string }
        if (body.id === undefined) return new Response(null, { status: 202 })
        if (body.method === 'tools/list')
          return Response.json({ jsonrpc: '2.0', id: body.id, result: { tools: [] } }, { headers: { 'mcp-session-id': 'sess-1' } })
        const stream = openSseStream({ sseKeepAliveMs: 0, store, retryMs: 250 })
        stream.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } })
        stream.send({ jsonrpc: '2.0', id: body.id, result: { content: [] } })
        stream.end()
        return stream.response
      },
    })
    const url = `http://127.0.0.1:${server.port}/mcp`
    const sink = memorySink()
    const recorder = new Recorder({ sink, mcpxVersion: 't', role: 'client', transport: 'streamable-http' })
    const tapped = recordingFetch(recorder)
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      tapped(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(body),
      })

    const listed = await post(
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { 'MCP-Protocol-Version': '2025-11-25', authorization: 'Bearer secret' },
    )
    expect(await listed.json()).toEqual({ jsonrpc: '2.0', id: 1, result: { tools: [] } })
    const called = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x' } }, { 'Mcp-Param-Region': 'eu' })
    const sseText = await called.text()
    expect(sseText).toContain('retry: 250')
    expect(sseText).toContain('"progress":1')
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202)
    expect((await tapped(url)).status).toBe(405)
    recorder.close()

    const recording = parseRecording(sink.text())
    const rows = recording.entries
      .filter((e) => e.type === 'message' || e.type === 'http')
      .map((e) => {
        if (e.type === 'message') return [e.direction, 'message', e.message.method ?? `response ${String(e.message.id)}`, e.http]
        if (e.type === 'http') return [e.direction, 'http', e.http]
        return []
      })
    const streamId = (
      recording.entries.find((e) => e.type === 'http' && e.http.sse?.id !== undefined) as { http: { sse: { id: string } } }
    ).http.sse.id.split('.')[0]
    expect(rows).toEqual([
      [
        'to-server',
        'message',
        'tools/list',
        {
          method: 'POST',
          headers: {
            'mcp-protocol-version': '2025-11-25',
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: '[REDACTED]',
          },
        },
      ],
      [
        'to-client',
        'message',
        'response 1',
        { status: 200, headers: { 'content-type': 'application/json;charset=utf-8', 'mcp-session-id': '[REDACTED]' } },
      ],
      [
        'to-server',
        'message',
        'tools/call',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-param-region': 'eu' },
        },
      ],
      ['to-client', 'http', { status: 200, headers: { 'content-type': 'text/event-stream' } }],
      ['to-client', 'http', { status: 200, sse: { id: `${streamId}.0`, retry: 250 } }],
      ['to-client', 'message', 'notifications/progress', { status: 200, sse: { id: `${streamId}.1` } }],
      ['to-client', 'message', 'response 2', { status: 200, sse: { id: `${streamId}.2` } }],
      [
        'to-server',
        'message',
        'notifications/initialized',
        { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } },
      ],
      ['to-client', 'http', { status: 202, headers: {} }],
      ['to-server', 'http', { method: 'GET', headers: {} }],
      ['to-client', 'http', { status: 405, headers: { allow: 'POST' } }],
    ])
  })
})
