/**
 * The acceptance with the OFFICIAL SDKs on both ends, in each era and over stdio and HTTP:
 * an SDK client records a session through `mcpx record` with an SDK server (1.x legacy, 2.x
 * modern); `mcpx replay --serve` gives the same SDK client the same results; `--against` the live
 * server reports no divergence; `--against` the server with one tool changed (`--changed-add`)
 * reports exactly that tool's difference and exits 6.
 */
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client'
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio'
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport as LegacyStdio } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { readRecording } from '../../../lib/replay/index.ts'
import { mcpxCommand, runMcpx, tempDir } from '../../harness.ts'
import { SDK_LEGACY, SDK_MODERN, replayServer, sdkServer } from './peers/run.ts'

type Era = 'legacy' | 'modern'
/** Where the SDK client connects: a command it spawns (stdio) or a URL. */
type Endpoint = { command: string[] } | { url: string }

/** What a session observed: every answer the SDK client handed back. */
interface Observed {
  server: unknown
  tools: string[]
  echo: unknown
  add: unknown
  progress: unknown
  prompt: unknown
  resource: unknown
}

async function legacySession(endpoint: Endpoint): Promise<Observed> {
  const client = new LegacyClient({ name: 'sdk1-host', version: '1.0.0' })
  await client.connect(
    'url' in endpoint
      ? new LegacyHttp(new URL(endpoint.url))
      : new LegacyStdio({ command: endpoint.command[0]!, args: endpoint.command.slice(1), stderr: 'ignore' }),
  )
  try {
    // Progress notifications are asked for (and recorded), but not compared: the SDK clients hand
    // them to onprogress asynchronously and drop one that arrives in the same read as the result.
    return {
      server: client.getServerVersion(),
      tools: (await client.listTools()).tools.map((t) => t.name),
      echo: await client.callTool({ name: 'echo', arguments: { text: 'hi' } }),
      add: await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }),
      progress: await client.callTool({ name: 'progress', arguments: { steps: 3 } }, undefined, { onprogress: () => {} }),
      prompt: await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } }),
      resource: await client.readResource({ uri: 'test://hello' }),
    }
  } finally {
    await client.close()
  }
}

async function modernSession(endpoint: Endpoint): Promise<Observed> {
  const client = new ModernClient({ name: 'sdk2-host', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
  await client.connect(
    'url' in endpoint
      ? new ModernHttp(new URL(endpoint.url))
      : new ModernStdio({ command: endpoint.command[0]!, args: endpoint.command.slice(1), stderr: 'ignore' }),
  )
  try {
    // Progress notifications are asked for (and recorded), but not compared: the SDK clients hand
    // them to onprogress asynchronously and drop one that arrives in the same read as the result.
    return {
      server: client.getServerVersion(),
      tools: (await client.listTools()).tools.map((t) => t.name),
      echo: await client.callTool({ name: 'echo', arguments: { text: 'hi' } }),
      add: await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }),
      progress: await client.callTool({ name: 'progress', arguments: { steps: 3 } }, { onprogress: () => {} }),
      prompt: await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } }),
      resource: await client.readResource({ uri: 'test://hello' }),
    }
  } finally {
    await client.close()
  }
}

const ERAS = {
  legacy: { fixture: SDK_LEGACY, session: legacySession, revision: '2025-11-25', greeting: 'hello from legacy' },
  modern: { fixture: SDK_MODERN, session: modernSession, revision: '2026-07-28', greeting: 'hello from modern' },
} as const

describe.each(['legacy', 'modern'] as const)('official SDK peers, %s era', (era: Era) => {
  const { fixture, session, revision, greeting } = ERAS[era]

  test('over stdio: record, serve, against the live server, against a changed server', async () => {
    using dir = tempDir('replay-sdk')
    const file = join(dir.path, `${era}-stdio.jsonl`)
    const server = [process.execPath, fixture, 'stdio']
    const live = await session({ command: [...mcpxCommand(), 'record', file, '--', ...server] })
    expect([...live.tools].sort()).toEqual(['add', 'echo', 'progress'])
    expect(live.add).toMatchObject({ content: [{ type: 'text', text: 'sum=5' }] })
    expect(JSON.stringify(live.resource)).toContain(greeting)

    const recording = readRecording(file)
    expect([recording.header.transport, recording.era, recording.revision]).toEqual(['stdio', era, revision])
    expect(recording.messages.filter((m) => m.message.method === 'notifications/progress')).toHaveLength(3)

    // --serve: the same SDK client gets the same results from the recording.
    expect(await session({ command: [...mcpxCommand(), 'replay', file, '--serve', '--stdio'] })).toEqual(live)

    const same = await runMcpx(['replay', file, '--against', '--', ...server])
    expect(same.stdout).toContain('0 diverged')
    expect(same.exitCode).toBe(0)

    await expectOnlyAddChanged(await runMcpx(['replay', file, '--json', '--against', '--', ...server, '--changed-add']))
  })

  test('over Streamable HTTP: record --url (HTTP framing kept), serve over stdio and HTTP, against live and changed', async () => {
    using dir = tempDir('replay-sdk')
    const file = join(dir.path, `${era}-http.jsonl`)
    await using server = await sdkServer(fixture)
    const live = await session({ command: [...mcpxCommand(), 'record', file, '--url', server.url] })
    expect(live.add).toMatchObject({ content: [{ type: 'text', text: 'sum=5' }] })

    const recording = readRecording(file)
    expect([recording.header.transport, recording.era, recording.revision]).toEqual(['streamable-http', era, revision])
    // recordingFetch (HttpTransportParams.fetch): every answer keeps its HTTP status; SSE answers keep their framing.
    const answers = recording.messages.filter((m) => m.direction === 'to-client')
    expect(answers.length).toBeGreaterThan(0)
    expect(answers.every((m) => m.http?.status === 200)).toBe(true)
    const progressed = answers.filter((m) => m.message.method === 'notifications/progress')
    expect(progressed).toHaveLength(3)
    expect(progressed.every((m) => m.http?.sse !== undefined)).toBe(true)
    if (era === 'legacy') {
      // The 1.x server numbers its SSE events (it has an event store).
      expect(progressed.every((m) => typeof m.http?.sse?.id === 'string')).toBe(true)
    }

    expect(await session({ command: [...mcpxCommand(), 'replay', file, '--serve', '--stdio'] })).toEqual(live)
    {
      await using replay = await replayServer(file)
      expect(await session({ url: replay.url })).toEqual(live)
    }

    const same = await runMcpx(['replay', file, '--against', server.url])
    expect(same.stdout).toContain('0 diverged')
    expect(same.exitCode).toBe(0)

    await using changed = await sdkServer(fixture, '--changed-add')
    await expectOnlyAddChanged(await runMcpx(['replay', file, '--json', '--against', changed.url]))
  })
})

/** Exactly one divergence: tools/call add, at /result/content/0/text, recorded sum=5, observed sum=6. */
async function expectOnlyAddChanged(result: { stdout: string; exitCode: number }): Promise<void> {
  expect(result.exitCode).toBe(6)
  const report = JSON.parse(result.stdout) as {
    requests: number
    matched: number
    divergences: { method: string; params: { name?: string }; differences: unknown[] }[]
  }
  expect(report.divergences).toHaveLength(1)
  const [only] = report.divergences
  expect(only!.method).toBe('tools/call')
  expect(only!.params.name).toBe('add')
  expect(only!.differences).toEqual([{ path: '/result/content/0/text', recorded: 'sum=5', observed: 'sum=6', kind: 'changed' }])
  expect(report.matched).toBe(report.requests - 1)
}
