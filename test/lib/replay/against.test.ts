/**
 * `--against`: the recorded client side replayed to a live server over raw transports. Same server
 * → no divergence (ids, _meta, task clocks are volatile); a changed answer → a divergence with the
 * JSON Pointer of what changed. Both eras over Streamable HTTP, legacy over stdio (spawned fixture).
 */
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { connect, defaultTransports } from '../../../lib/client/index.ts'
import {
  Recorder,
  formatAgainstReport,
  memorySink,
  parseRecording,
  recordingTransports,
  replayAgainst,
  type Recording,
} from '../../../lib/replay/index.ts'
import { Engine, serveHttp } from '../../../lib/server/index.ts'
import { createHttpTransport, createStdioTransport } from '../../../lib/transport/index.ts'
import type { Revision } from '../../../lib/wire/index.ts'
import { everythingServer } from '../../fixtures/everything/server.ts'
import { REPO_ROOT, testSettings } from '../../harness.ts'

const settings = testSettings()
const FIXTURE = join(REPO_ROOT, 'test/fixtures/everything/main.ts')

async function recordHttp(url: string, revision: Revision): Promise<Recording> {
  const sink = memorySink()
  const recorder = new Recorder({ sink, mcpxVersion: 'test', role: 'client', transport: 'streamable-http' })
  const client = await connect(
    { url },
    { settings, revision, noCache: true, serverStream: false, transports: recordingTransports(defaultTransports, recorder) },
  )
  try {
    await client.listTools()
    await client.callTool('test_simple_text', {})
    await client.readResource('test://template/7/data')
  } finally {
    await client.close()
    recorder.close()
  }
  return parseRecording(sink.text(), 'memory')
}

describe('replay --against', () => {
  test.each(['2025-11-25', '2026-07-28'] as const)('the same server over HTTP reproduces a %s recording', async (revision) => {
    await using server = serveHttp(new Engine(everythingServer, settings), settings)
    const recording = await recordHttp(server.url, revision)
    const report = await replayAgainst(recording, createHttpTransport({ url: server.url }, settings), { settings })
    expect(report.divergences).toEqual([])
    // initialize + tools/list + tools/call + resources/read (legacy); server/discover + the three (modern).
    expect(report.requests).toBe(4)
    expect(report.matched).toBe(report.requests)
  })

  test('a changed answer is reported with its path', async () => {
    await using server = serveHttp(new Engine(everythingServer, settings), settings)
    const recording = await recordHttp(server.url, '2025-11-25')
    const call = recording.messages.find(
      (m) =>
        m.direction === 'to-client' &&
        JSON.stringify((m.message.result as { content?: unknown })?.content ?? '').includes('simple text response'),
    )!
    ;(call.message.result as { content: { text: string }[] }).content[0]!.text = 'what the server used to say'
    const report = await replayAgainst(recording, createHttpTransport({ url: server.url }, settings), { settings })
    expect(report.divergences).toHaveLength(1)
    expect(report.divergences[0]).toMatchObject({
      method: 'tools/call',
      kind: 'response',
      differences: [
        {
          path: '/result/content/0/text',
          recorded: 'what the server used to say',
          observed: 'This is a simple text response for testing.',
          kind: 'changed',
        },
      ],
    })
    const text = formatAgainstReport(report, server.url)
    expect(text).toContain('1 diverged')
    expect(text).toContain('- /result/content/0/text: "what the server used to say"')
    // A declared volatile field turns the same difference into a match.
    const relaxed = await replayAgainst(recording, createHttpTransport({ url: server.url }, settings), {
      settings,
      volatile: ['tools/call:/result/content/0/text'],
    })
    expect(relaxed.divergences).toEqual([])
  })

  test('an HTTP recording replays against the same server over stdio', async () => {
    await using server = serveHttp(new Engine(everythingServer, settings), settings)
    const recording = await recordHttp(server.url, '2025-11-25')
    const report = await replayAgainst(
      recording,
      createStdioTransport({ command: process.execPath, args: [FIXTURE, '--stdio'] }, settings),
      { settings },
    )
    expect(report.divergences).toEqual([])
  })
})

describe('replay --against with server-minted handles', () => {
  test('a 2026 input_required round trip replays against a fresh server (requestState carried over)', async () => {
    let recording: Recording
    {
      await using server = serveHttp(new Engine(everythingServer, settings), settings)
      const sink = memorySink()
      const recorder = new Recorder({ sink, mcpxVersion: 'test', role: 'client', transport: 'streamable-http' })
      const client = await connect(
        { url: server.url },
        {
          settings,
          revision: '2026-07-28',
          noCache: true,
          serverStream: false,
          transports: recordingTransports(defaultTransports, recorder),
          handlers: { onElicit: async () => ({ action: 'accept', content: { username: 'ada', email: 'ada@example.com' } }) },
        },
      )
      try {
        const result = await client.callTool('test_elicitation', { message: 'who?' })
        expect(JSON.stringify(result)).toContain('ada@example.com')
      } finally {
        await client.close()
        recorder.close()
      }
      recording = parseRecording(sink.text(), 'memory')
    }
    const rounds = recording.messages.filter((m) => m.message.method === 'tools/call')
    expect(rounds).toHaveLength(2)
    expect((rounds[1]!.message.params as { requestState?: unknown }).requestState).toBeDefined()

    await using fresh = serveHttp(new Engine(everythingServer, settings), settings)
    const report = await replayAgainst(recording, createHttpTransport({ url: fresh.url }, settings), { settings })
    expect(report.divergences).toEqual([])
  })
})
