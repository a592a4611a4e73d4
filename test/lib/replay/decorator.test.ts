import { describe, expect, test } from 'bun:test'
import { recordTransport } from '../../../lib/replay/decorator.ts'
import { formatTimeline } from '../../../lib/replay/print.ts'
import { parseRecording } from '../../../lib/replay/reader.ts'
import { Recorder, memorySink } from '../../../lib/replay/writer.ts'
import type { JsonRpcMessage } from '../../../lib/wire/index.ts'
import { memoryPair } from '../session/memory-transport.ts'

describe('recordTransport', () => {
  test('records both directions of a client transport, passes messages through, closes the recording', async () => {
    const [clientEnd, serverEnd] = memoryPair('streamable-http')
    const sink = memorySink()
    let now = 0
    const recorder = new Recorder({ sink, mcpxVersion: 't', role: 'client', transport: 'streamable-http', now: () => now })
    const recorded = recordTransport(clientEnd, recorder, 'client')
    const received: JsonRpcMessage[] = []
    const closed = Promise.withResolvers<void>()
    await recorded.start({ onMessage: (m) => received.push(m), onClose: () => closed.resolve() })
    const serverGot = Promise.withResolvers<JsonRpcMessage>()
    await serverEnd.start({ onMessage: (m) => serverGot.resolve(m), onClose: () => {} })

    const request: JsonRpcMessage = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
    }
    await recorded.send(request, {
      headers: { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list', Authorization: 'Bearer x' },
    })
    expect(await serverGot.promise).toEqual(request)
    expect(clientEnd.sent[0]!.options?.headers?.Authorization).toBe('Bearer x') // the wire is untouched
    now = 5
    await serverEnd.send({
      jsonrpc: '2.0',
      id: 1,
      result: { tools: [], _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'mem', version: '1' } } },
    })
    await Promise.resolve()
    await recorded.close()
    await closed.promise

    expect(received).toHaveLength(1)
    const recording = parseRecording(sink.text())
    expect(recording.era).toBe('modern')
    expect(recording.peer).toEqual({ name: 'mem', version: '1' })
    expect(recording.messages.map((m) => m.direction)).toEqual(['to-server', 'to-client'])
    expect(recording.messages[0]!.http).toEqual({
      method: 'POST',
      headers: { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list', Authorization: '[REDACTED]' },
    })
    expect(recording.entries.at(-1)?.type).toBe('close')

    const timeline = formatTimeline(recording)
    expect(timeline).toContain('role client over streamable-http, modern 2026-07-28 peer mem 1')
    expect(timeline).toContain('+0.000s #1 → tools/list (id 1)')
    expect(timeline).toContain('+0.005s #2 ← result (id 1)')
    expect(timeline).toContain('redacted http.headers.authorization')
    expect(timeline).toContain('negotiated modern 2026-07-28 with mem 1')
    expect(timeline.trimEnd().split('\n').at(-1)).toContain('closed')
  })

  test('server role flips the directions', async () => {
    const [a, b] = memoryPair()
    const sink = memorySink()
    const recorded = recordTransport(b, new Recorder({ sink, mcpxVersion: 't', role: 'server', transport: 'stdio' }), 'server')
    const got = Promise.withResolvers<void>()
    await recorded.start({ onMessage: () => got.resolve(), onClose: () => {} })
    await a.start({ onMessage: () => {}, onClose: () => {} })
    await a.send({ jsonrpc: '2.0', id: 1, method: 'ping' })
    await got.promise
    await recorded.send({ jsonrpc: '2.0', id: 1, result: {} })
    await recorded.close()
    expect(parseRecording(sink.text()).messages.map((m) => m.direction)).toEqual(['to-server', 'to-client'])
  })
})
