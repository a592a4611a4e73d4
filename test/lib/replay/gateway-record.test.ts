/**
 * The gateway's per-upstream switch, `record: "<path>"` on a server entry (lib/gateway/upstream.ts
 * with recordingTransports): an HTTP upstream's session is recorded with its HTTP framing and
 * replays against the same server without divergence; after a crash the reconnection is recorded
 * beside the first file (`<name>.2<ext>`), so the session that ended badly is kept.
 */
import { describe, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { ServerConfig } from '../../../lib/config/index.ts'
import { Upstream } from '../../../lib/gateway/index.ts'
import { readRecording, replayAgainst } from '../../../lib/replay/index.ts'
import { Engine, serveHttp } from '../../../lib/server/index.ts'
import { createHttpTransport } from '../../../lib/transport/index.ts'
import { everythingServer } from '../../fixtures/everything/server.ts'
import { REPO_ROOT, tempDir, testSettings } from '../../harness.ts'

const settings = testSettings({ restartBackoffMs: 1 })
const context = { settings, emit: () => {} }

describe('record: on a gateway upstream', () => {
  test('an HTTP upstream is recorded with its framing and replays without divergence', async () => {
    using dir = tempDir('gateway-record')
    const file = join(dir.path, 'everything.jsonl')
    await using server = serveHttp(new Engine(everythingServer, settings), settings)
    const config: ServerConfig = {
      name: 'everything',
      target: { kind: 'http', url: server.url, headers: {}, transport: 'streamable-http' },
      disabled: false,
      codemode: true,
      record: file,
    }
    const upstream = new Upstream(config, context)
    try {
      expect(await upstream.call('test_simple_text', {})).toMatchObject({
        content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
      })
    } finally {
      await upstream.close()
    }
    const recording = readRecording(file)
    expect([recording.header.transport, recording.peer?.name]).toEqual(['streamable-http', 'mcpx-everything'])
    const answers = recording.messages.filter((m) => m.direction === 'to-client')
    expect(answers.length).toBeGreaterThan(0)
    expect(answers.every((m) => m.http?.status === 200)).toBe(true)
    expect(recording.messages.some((m) => m.message.method === 'tools/call')).toBe(true)
    expect(recording.entries.at(-1)?.type).toBe('close')
    const report = await replayAgainst(recording, createHttpTransport({ url: server.url }, settings), { settings })
    expect(report.divergences).toEqual([])
  })

  test('a reconnection after a crash is recorded beside the first recording', async () => {
    using dir = tempDir('gateway-record')
    const file = join(dir.path, 'up.jsonl')
    const target = {
      kind: 'stdio' as const,
      command: process.execPath,
      args: [join(REPO_ROOT, 'test/fixtures/peers/gateway-upstream-fixture.ts')],
      env: {},
    }
    const upstream = new Upstream({ name: 'up', target, disabled: false, codemode: true, protocol: '2025-11-25', record: file }, context)
    try {
      await expect(upstream.call('crash', {})).rejects.toThrow()
      expect(await upstream.call('echo', { text: 'again' })).toMatchObject({ content: [{ type: 'text', text: 'again' }] })
    } finally {
      await upstream.close()
    }
    const first = readRecording(file)
    expect(first.messages.some((m) => (m.message.params as { name?: string } | undefined)?.name === 'crash')).toBe(true)
    expect(first.entries.at(-1)).toMatchObject({ type: 'close' })
    const second = join(dir.path, 'up.2.jsonl')
    expect(existsSync(second)).toBe(true)
    const calls = readRecording(second)
      .messages.filter((m) => m.message.method === 'tools/call')
      .map((m) => (m.message.params as { name: string }).name)
    expect(calls).toEqual(['echo'])
  })
})
