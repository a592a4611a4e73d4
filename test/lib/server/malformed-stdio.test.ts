/**
 * Malformed input over stdio (spawned fixture): every bad line gets the right JSON-RPC error and
 * the very next valid request is still served (TR-01, TR-03, TR-09).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { REPO_ROOT } from '../../harness.ts'

const FIXTURE = join(REPO_ROOT, 'test/fixtures/everything/main.ts')
const MAX_FRAME_BYTES = 4096

/** A spawned stdio fixture answering one line at a time. */
class StdioPeer {
  readonly proc = Bun.spawn([process.execPath, FIXTURE, '--stdio'], {
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'ignore',
    env: { ...process.env, MCPX_MAX_FRAME_BYTES: String(MAX_FRAME_BYTES) },
  })
  private readonly reader = this.proc.stdout.getReader()
  private buffered = ''

  async exchange(line: string): Promise<any> {
    this.proc.stdin.write(`${line}\n`)
    await this.proc.stdin.flush()
    return this.next()
  }

  async next(): Promise<any> {
    for (;;) {
      const newline = this.buffered.indexOf('\n')
      if (newline >= 0) {
        const line = this.buffered.slice(0, newline)
        this.buffered = this.buffered.slice(newline + 1)
        return JSON.parse(line)
      }
      const { value, done } = await this.reader.read()
      if (done) throw new Error('fixture closed stdout')
      this.buffered += new TextDecoder().decode(value)
    }
  }

  async close(): Promise<number> {
    this.proc.stdin.end()
    return this.proc.exited
  }
}

const initialize = (id: number, protocolVersion: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 't', version: '1' } },
  })
const ping = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })

describe('stdio server: malformed input at 2025-11-25', () => {
  const peer = new StdioPeer()
  beforeAll(async () => {
    expect((await peer.exchange(initialize(1, '2025-11-25'))).result.protocolVersion).toBe('2025-11-25')
    peer.proc.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`)
  })
  afterAll(async () => {
    expect(await peer.close()).toBe(0)
  })

  const cases: [string, string, number, string | number | null][] = [
    ['bad JSON', '{"jsonrpc":"2.0", "id": 1, ', -32700, null],
    ['not an object', '42', -32600, null],
    ['wrong jsonrpc version', '{"jsonrpc":"1.0","id":7,"method":"ping"}', -32600, 7],
    ['method of the wrong type', '{"jsonrpc":"2.0","id":8,"method":5}', -32600, 8],
    ['id of the wrong type', '{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}', -32600, null],
    [
      'oversized frame',
      JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping', params: { pad: 'x'.repeat(MAX_FRAME_BYTES) } }),
      -32600,
      null,
    ],
    ['unknown method', '{"jsonrpc":"2.0","id":10,"method":"no/such"}', -32601, 10],
    ['a 2026-only method on a legacy connection', '{"jsonrpc":"2.0","id":11,"method":"server/discover"}', -32601, 11],
    [
      'params of the wrong type',
      '{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"test_simple_text","arguments":"x"}}',
      -32602,
      12,
    ],
    ['unknown tool', '{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"nope"}}', -32602, 13],
    ['missing resource (legacy code)', '{"jsonrpc":"2.0","id":14,"method":"resources/read","params":{"uri":"test://missing"}}', -32002, 14],
    ['bad log level', '{"jsonrpc":"2.0","id":15,"method":"logging/setLevel","params":{"level":"loud"}}', -32602, 15],
    ['batch outside 2025-03-26: its request is answered by id', `[${ping(16)}]`, -32600, 16],
    [
      'batch outside 2025-03-26 holding only a notification',
      `[${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/x' })}]`,
      -32600,
      null,
    ],
    ['an id and nothing else', '{"jsonrpc":"2.0","id":17}', -32600, 17],
  ]
  test.each(cases)('%s → error, then the next request is served', async (_name, line, code, id) => {
    const reply = await peer.exchange(line)
    expect(reply.error.code).toBe(code)
    expect(reply.id ?? null).toEqual(id)
    expect(await peer.exchange(ping(100))).toEqual({ jsonrpc: '2.0', id: 100, result: {} })
  })

  test('a message that is neither request nor response is told what it lacks', async () => {
    const reply = await peer.exchange('{"jsonrpc":"2.0","id":18}')
    expect(reply.error.message).toBe(
      'Invalid Request: no method, result or error: a request or notification has a method, a response a result or an error',
    )
  })
})

describe('stdio server: 2025-03-26 batches and 2026 per-request errors', () => {
  test('a 2025-03-26 batch is answered with one array; initialize inside it is refused', async () => {
    const peer = new StdioPeer()
    await peer.exchange(initialize(1, '2025-03-26'))
    const replies = await peer.exchange(
      `[${ping(2)},${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })},${ping(3)}]`,
    )
    expect(replies).toEqual([
      { jsonrpc: '2.0', id: 2, result: {} },
      { jsonrpc: '2.0', id: 3, result: {} },
    ])
    const refused = await peer.exchange(`[${initialize(4, '2025-03-26')}]`)
    expect(refused[0].error.code).toBe(-32600)
    expect(await peer.close()).toBe(0)
  })

  test('a batch on 2025-06-18 (no batches, every error names its id): each request in it gets its own error line', async () => {
    const peer = new StdioPeer()
    await peer.exchange(initialize(1, '2025-06-18'))
    const notification = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })
    const first = await peer.exchange(`[${ping(2)},${notification},${ping(3)}]`)
    const second = await peer.next()
    for (const [reply, id] of [
      [first, 2],
      [second, 3],
    ] as const) {
      expect(reply.id).toBe(id)
      expect(reply.error.code).toBe(-32600)
      expect(reply.error.message).toContain('batches are only allowed in 2025-03-26')
    }
    expect(await peer.exchange(ping(4))).toEqual({ jsonrpc: '2.0', id: 4, result: {} })
    expect(await peer.close()).toBe(0)
  })

  test('modern requests on a fresh process: _meta errors, -32022 and removed methods', async () => {
    const peer = new StdioPeer()
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }
    expect((await peer.exchange('{"jsonrpc":"2.0","id":1,"method":"tools/list"}')).error.code).toBe(-32602)
    const unsupported = await peer.exchange(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/list',
        params: { _meta: { ...meta, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
      }),
    )
    expect(unsupported.error).toMatchObject({ code: -32022, data: { requested: '2099-01-01' } })
    expect((await peer.exchange(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping', params: { _meta: meta } }))).error.code).toBe(
      -32601,
    )
    const discovered = await peer.exchange(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'server/discover', params: { _meta: meta } }))
    expect(discovered.result.supportedVersions).toContain('2026-07-28')
    expect(await peer.close()).toBe(0)
  })
})

test('stdin EOF right after the requests: every answer is still written, then exit 0', async () => {
  await using proc = Bun.spawn([process.execPath, FIXTURE, '--stdio'], { stdin: 'pipe', stdout: 'pipe', stderr: 'ignore' })
  proc.stdin.write(
    `${initialize(1, '2025-11-25')}\n${ping(2)}\n${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'test_tool_with_progress' } })}\n`,
  )
  proc.stdin.end()
  const lines = (await new Response(proc.stdout).text())
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
  expect(
    lines
      .filter((m) => 'id' in m)
      .map((m) => m.id)
      .sort(),
  ).toEqual([1, 2, 3])
  expect(await proc.exited).toBe(0)
})
