/**
 * Record a real session (lib/client against the everything fixture over Streamable HTTP), then
 * serve the recording and drive it with the official SDK clients: SDK 1.x for a legacy recording
 * (handshake + session), SDK 2.x for a modern one. Unrecorded requests get an error naming the
 * closest recorded request; the wrong era is refused in a way the client's fallback understands.
 */
import { describe, expect, test } from 'bun:test'
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client'
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { connect, defaultTransports } from '../../../lib/client/index.ts'
import type { McpxError } from '../../../lib/errors/index.ts'
import { Recorder, memorySink, parseRecording, recordingTransports, serveRecordingHttp, type Recording } from '../../../lib/replay/index.ts'
import { Engine, serveHttp } from '../../../lib/server/index.ts'
import type { Revision } from '../../../lib/wire/index.ts'
import { everythingServer } from '../../fixtures/everything/server.ts'
import { testSettings } from '../../harness.ts'

const settings = testSettings()

async function record(
  revision: Revision,
  run: (client: Awaited<ReturnType<typeof connect>>) => Promise<void>,
  handlers?: Parameters<typeof connect>[1]['handlers'],
): Promise<Recording> {
  await using server = serveHttp(new Engine(everythingServer, settings), settings)
  const sink = memorySink()
  const recorder = new Recorder({ sink, mcpxVersion: 'test', role: 'client', transport: 'streamable-http', peer: { url: server.url } })
  const client = await connect(
    { url: server.url },
    {
      settings,
      revision,
      noCache: true,
      serverStream: false,
      transports: recordingTransports(defaultTransports, recorder),
      ...(handlers && { handlers }),
    },
  )
  try {
    await run(client)
  } finally {
    await client.close()
    recorder.close()
  }
  return parseRecording(sink.text(), 'memory')
}

describe('replay --serve over Streamable HTTP', () => {
  test('a legacy recording serves the SDK 1.x client: handshake, session, recorded answers', async () => {
    const recording = await record('2025-11-25', async (client) => {
      await client.listTools()
      await client.callTool('test_simple_text', {})
      const seen: number[] = []
      await client.callTool('test_tool_with_progress', {}, { onProgress: (update) => seen.push(update.progress) })
      expect(seen).toEqual([0, 50, 100])
    })
    expect(recording.era).toBe('legacy')
    expect(recording.revision).toBe('2025-11-25')
    expect(recording.peer?.name).toBe('mcpx-everything')

    await using replay = serveRecordingHttp(recording, settings)
    const client = new LegacyClient({ name: 'another-client', version: '3.0.0' })
    const transport = new LegacyHttp(new URL(replay.url))
    await client.connect(transport)
    try {
      expect(client.getServerVersion()?.name).toBe('mcpx-everything')
      expect(transport.sessionId).toBeString()
      const tools = await client.listTools()
      expect(tools.tools.map((t) => t.name)).toContain('test_simple_text')
      expect(await client.callTool({ name: 'test_simple_text' })).toEqual({
        content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
      })
      const progress: number[] = []
      const result = await client.callTool({ name: 'test_tool_with_progress' }, undefined, { onprogress: (p) => progress.push(p.progress) })
      expect(result.content).toEqual([{ type: 'text', text: 'Progress test completed' }])
      expect(progress).toEqual([0, 50, 100])
      const missing = await client.callTool({ name: 'test_error_handling' }).catch((error: { code: number; message: string }) => error)
      expect((missing as { code: number }).code).toBe(-32602)
      expect((missing as { message: string }).message).toContain('closest recorded request is #')
      expect((missing as { message: string }).message).toContain('test_')
      const unknown = await client.listPrompts().catch((error: { code: number }) => error)
      expect((unknown as { code: number }).code).toBe(-32601)
    } finally {
      await client.close()
    }
  })

  test('a recorded server→client request (legacy elicitation) is asked again and awaited', async () => {
    const recording = await record(
      '2025-11-25',
      async (client) => {
        const result = await client.callTool('test_elicitation', { message: 'who?' })
        expect(result.content).toEqual([
          { type: 'text', text: 'User response: action=accept, content={"username":"ada","email":"ada@example.com"}' },
        ])
      },
      { onElicit: async () => ({ action: 'accept', content: { username: 'ada', email: 'ada@example.com' } }) },
    )

    await using replay = serveRecordingHttp(recording, settings)
    const client = new LegacyClient({ name: 'replayer', version: '1.0.0' }, { capabilities: { elicitation: {} } })
    const asked: string[] = []
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message)
      return { action: 'decline' }
    })
    await client.connect(new LegacyHttp(new URL(replay.url)))
    try {
      const result = await client.callTool({ name: 'test_elicitation', arguments: { message: 'who?' } })
      expect(asked).toEqual(['who?'])
      // The recorded answer comes back whatever this client replied: it is a recording.
      expect(result.content).toEqual([
        { type: 'text', text: 'User response: action=accept, content={"username":"ada","email":"ada@example.com"}' },
      ])
    } finally {
      await client.close()
    }
  })

  test('a modern recording serves the SDK 2.x client and refuses a legacy handshake', async () => {
    const recording = await record('2026-07-28', async (client) => {
      await client.listTools()
      await client.callTool('test_simple_text', {})
    })
    expect(recording.era).toBe('modern')
    expect(recording.revision).toBe('2026-07-28')

    await using replay = serveRecordingHttp(recording, settings)
    const client = new ModernClient({ name: 'sdk2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await client.connect(new ModernHttp(new URL(replay.url)))
    try {
      const tools = await client.listTools()
      expect(tools.tools.map((t) => t.name)).toContain('test_simple_text')
      const result = await client.callTool({ name: 'test_simple_text' })
      expect(result.content).toEqual([{ type: 'text', text: 'This is a simple text response for testing.' }])
    } finally {
      await client.close()
    }

    const legacy = await fetch(replay.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
      }),
    })
    expect(legacy.status).toBe(400)
    const body = await legacy.json()
    expect(body.error.code).toBe(-32022)
    expect(body.error.data).toEqual({ supported: ['2026-07-28'], requested: '2025-11-25' })
    expect(legacy.headers.get('mcp-session-id')).toBeNull()
  })

  test('a modern input_required round trip is served: the second round matches by its inputResponses', async () => {
    const content = { username: 'ada', email: 'ada@example.com' }
    const recording = await record(
      '2026-07-28',
      async (client) => {
        await client.callTool('test_elicitation', { message: 'who?' })
      },
      { onElicit: async () => ({ action: 'accept', content }) },
    )

    await using replay = serveRecordingHttp(recording, settings)
    const client = new ModernClient(
      { name: 'sdk2', version: '1.0.0' },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    )
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content }))
    await client.connect(new ModernHttp(new URL(replay.url)))
    try {
      const result = await client.callTool({ name: 'test_elicitation', arguments: { message: 'who?' } })
      expect(result.content).toEqual([
        { type: 'text', text: 'User response: action=accept, content={"username":"ada","email":"ada@example.com"}' },
      ])
    } finally {
      await client.close()
    }
  })

  test('a 2026 listen stream still open at the end of the recording is held open until the client cancels it', async () => {
    const recording = await record('2026-07-28', async (client) => {
      const listener = client.listen({ toolsListChanged: true }, () => {})
      await listener.acknowledged
      await client.callTool('test_simple_text', {})
      listener.close()
      await listener.done.catch(() => {})
    })
    expect(recording.messages.some((m) => m.message.method === 'subscriptions/listen')).toBe(true)

    await using replay = serveRecordingHttp(recording, settings)
    const client = await connect({ url: replay.url }, { settings, revision: '2026-07-28', noCache: true, serverStream: false })
    try {
      const listener = client.listen({ toolsListChanged: true }, () => {})
      // The recorded acknowledgement is replayed on the held stream.
      expect(await listener.acknowledged).toEqual({ toolsListChanged: true })
      expect((await client.callTool('test_simple_text', {})).content).toEqual([
        { type: 'text', text: 'This is a simple text response for testing.' },
      ])
      listener.close()
      // Ended by our cancellation, not by an error from the replay server.
      expect(((await listener.done.catch((error: McpxError) => error)) as McpxError).code).toBe('CANCELLED')
    } finally {
      await client.close()
    }
  })
})
