import { describe, expect, test } from 'bun:test'
import { FORMAT_VERSION, REDACTED } from '../../../lib/replay/format.ts'
import { parseRecording } from '../../../lib/replay/reader.ts'
import { formatTimeline } from '../../../lib/replay/print.ts'
import { Recorder, fileSink, memorySink } from '../../../lib/replay/writer.ts'
import { readRecording } from '../../../lib/replay/reader.ts'
import { tempDir } from '../../harness.ts'
import { join } from 'node:path'
import type { McpxError } from '../../../lib/errors/index.ts'

function clock() {
  let now = 10_000
  return { now: () => now, advance: (ms: number) => void (now += ms) }
}

function sampleLegacy(): string {
  const sink = memorySink()
  const time = clock()
  const recorder = new Recorder({
    sink,
    mcpxVersion: '0.1.0',
    role: 'client',
    transport: 'streamable-http',
    now: time.now,
    peer: { url: 'http://127.0.0.1:1/mcp' },
  })
  recorder.message(
    'to-server',
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    },
    { method: 'POST', headers: { 'content-type': 'application/json' } },
  )
  time.advance(12)
  recorder.message(
    'to-client',
    { jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'srv', version: '2.0' } } },
    { status: 200, headers: { 'mcp-session-id': 'abc' } },
  )
  time.advance(3)
  recorder.message(
    'to-server',
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'login', arguments: { user: 'ann', password: 'hunter2' } } },
    { method: 'POST', headers: { Authorization: 'Bearer s3cret', 'MCP-Protocol-Version': '2025-11-25' } },
  )
  recorder.message(
    'to-client',
    { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'ok' }] } },
    { status: 200, sse: { id: 's.1' } },
  )
  recorder.close()
  return sink.text()
}

describe('recording format: write then read', () => {
  test('header, messages, negotiated era/revision/peer, close', () => {
    const recording = parseRecording(sampleLegacy())
    expect(recording.header).toMatchObject({
      type: 'header',
      format: 'mcpx-recording',
      formatVersion: FORMAT_VERSION,
      mcpxVersion: '0.1.0',
      role: 'client',
      transport: 'streamable-http',
      era: null,
      revision: null,
    })
    expect(recording.era).toBe('legacy')
    expect(recording.revision).toBe('2025-11-25')
    expect(recording.peer).toEqual({ url: 'http://127.0.0.1:1/mcp', name: 'srv', version: '2.0' })
    expect(recording.messages.map((m) => [m.seq, m.t, m.direction])).toEqual([
      [1, 0, 'to-server'],
      [2, 12, 'to-client'],
      [3, 15, 'to-server'],
      [4, 15, 'to-client'],
    ])
    expect(recording.entries.map((e) => e.type)).toEqual(['message', 'message', 'negotiated', 'message', 'message', 'close'])
    expect(recording.messages[3]!.http).toEqual({ status: 200, sse: { id: 's.1' } })
  })

  test('secrets are redacted and the redaction is visible', () => {
    const text = sampleLegacy()
    expect(text).not.toContain('hunter2')
    expect(text).not.toContain('s3cret')
    expect(text).not.toContain('"abc"')
    const recording = parseRecording(text)
    const call = recording.messages[2]!
    expect((call.message.params as { arguments: { password: string } }).arguments.password).toBe(REDACTED)
    expect(call.http?.headers).toEqual({ Authorization: REDACTED, 'MCP-Protocol-Version': '2025-11-25' })
    expect(call.redacted).toEqual(['params.arguments.password', 'http.headers.authorization'])
    expect(recording.messages[1]!.redacted).toEqual(['http.headers.mcp-session-id'])
    expect(recording.header.redaction.headers).toContain('authorization')
  })

  test('a file sink round-trips through readRecording', () => {
    using dir = tempDir('replay')
    const path = join(dir.path, 'a.mcpx.jsonl')
    const recorder = new Recorder({ sink: fileSink(path), mcpxVersion: '0.1.0', role: 'server', transport: 'stdio' })
    recorder.message('to-server', {
      jsonrpc: '2.0',
      id: 'a',
      method: 'server/discover',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'cli', version: '9' },
        },
      },
    })
    recorder.message('to-client', { jsonrpc: '2.0', id: 'a', result: { supportedVersions: ['2026-07-28'] } })
    recorder.close('peer went away')
    const recording = readRecording(path)
    expect(recording.era).toBe('modern')
    expect(recording.revision).toBe('2026-07-28')
    expect(recording.peer).toEqual({ name: 'cli', version: '9' })
    expect(recording.entries.at(-1)).toMatchObject({ type: 'close', reason: 'peer went away' })
  })
})

describe('recording format: negotiation', () => {
  const discover = {
    jsonrpc: '2.0',
    id: 1,
    method: 'server/discover',
    params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
  }
  /** A client-side stdio recorder whose lines stay in memory. */
  const linesRecorder = () => {
    const lines: string[] = []
    const recorder = new Recorder({
      sink: { write: (line) => void lines.push(line) },
      mcpxVersion: '0.1.0',
      role: 'client',
      transport: 'stdio',
    })
    return { lines, recorder }
  }
  const negotiatedLines = (lines: string[]) => lines.map((line) => JSON.parse(line)).filter((entry) => entry.type === 'negotiated')

  test('a modern offer the server refuses is no negotiation: only the legacy revision it fell back to is written, after initialize answers', () => {
    const { lines, recorder } = linesRecorder()
    recorder.message('to-server', discover)
    expect(negotiatedLines(lines)).toEqual([])
    recorder.message('to-client', { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } })
    recorder.message('to-server', {
      jsonrpc: '2.0',
      id: 2,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'mcpx', version: '0' } },
    })
    recorder.message('to-client', {
      jsonrpc: '2.0',
      id: 2,
      result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'old', version: '1' } },
    })
    recorder.close()
    expect(negotiatedLines(lines)).toMatchObject([{ era: 'legacy', revision: '2025-11-25', peer: { name: 'old', version: '1' } }])
    // The timeline shows it where negotiation ended: after the initialize result.
    const printed = formatTimeline(parseRecording(lines.join(''), 'x.jsonl')).split('\n')
    const at = printed.findIndex((line) => line.includes('negotiated'))
    expect(printed[at - 1]).toContain('← result (id 2)')
    expect(printed.join('\n')).not.toContain('negotiated modern')
  })

  test('a modern offer answered with a result is negotiated then, with the server named from its _meta', () => {
    const { lines, recorder } = linesRecorder()
    recorder.message('to-server', discover)
    recorder.message('to-client', {
      jsonrpc: '2.0',
      id: 1,
      result: { supportedVersions: ['2026-07-28'], _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'new', version: '2' } } },
    })
    expect(negotiatedLines(lines)).toMatchObject([{ era: 'modern', revision: '2026-07-28', peer: { name: 'new', version: '2' } }])
  })
})

describe('recording format: clear errors', () => {
  function error(text: string): McpxError {
    try {
      parseRecording(text, 'x.jsonl')
    } catch (e) {
      return e as McpxError
    }
    throw new Error('expected a failure')
  }
  const header = sampleLegacy().split('\n')[0]!

  test('empty file, not a recording', () => {
    expect(error('').message).toBe('x.jsonl:1: empty file: not an mcpx recording')
    expect(error('{"hello":1}\n').message).toContain('not an mcpx recording')
    expect(error('{"hello":1}\n').code).toBe('USAGE')
  })

  test('a file from the future names the versions', () => {
    const future = header.replace(`"formatVersion":${FORMAT_VERSION}`, '"formatVersion":99')
    expect(error(`${future}\n`).message).toBe(
      `x.jsonl:1: recording format version 99 is newer than this mcpx reads (1..${FORMAT_VERSION}); upgrade mcpx to read it`,
    )
  })

  test('an unknown format version (not a newer one) is named', () => {
    for (const bad of ['0', '-1', '1.5', '"1"', 'null']) {
      const text = `${header.replace(`"formatVersion":${FORMAT_VERSION}`, `"formatVersion":${bad}`)}\n`
      expect(error(text).message).toStartWith('x.jsonl:1: bad recording header: formatVersion')
    }
    expect(error(`${header.replace(`"formatVersion":${FORMAT_VERSION},`, '')}\n`).message).toStartWith(
      'x.jsonl:1: bad recording header: formatVersion',
    )
    expect(error(`${header.replace('"format":"mcpx-recording"', '"format":"har"')}\n`).message).toContain(
      'x.jsonl:1: not an mcpx recording',
    )
  })

  test('bad header fields and bad entries name the line', () => {
    expect(error(`${header.replace('"role":"client"', '"role":"proxy"')}\n`).message).toContain('x.jsonl:1: bad recording header: role')
    expect(error(`${header}\n{"type":"message","seq":1,"t":0,"direction":"sideways","message":{}}\n`).message).toContain(
      'x.jsonl:2: bad entry',
    )
    expect(error(`${header}\n{"type":"mystery","t":0}\n`).message).toContain('x.jsonl:2: bad entry')
    expect(error(`${header}\nnot json\n{}\n`).message).toContain('x.jsonl:2: malformed line')
  })

  test('truncated last line', () => {
    const text = sampleLegacy()
    const cut = text.slice(0, text.length - 20)
    expect(error(cut).message).toMatch(/^x\.jsonl:\d+: truncated/)
    expect(error(cut).data).toMatchObject({ file: 'x.jsonl' })
  })

  test('sequence numbers must increase', () => {
    const m = '{"type":"message","seq":1,"t":0,"direction":"to-server","message":{"jsonrpc":"2.0","method":"x"}}'
    expect(error(`${header}\n${m}\n${m}\n`).message).toContain('x.jsonl:3: message seq 1 does not follow 1')
  })
})
