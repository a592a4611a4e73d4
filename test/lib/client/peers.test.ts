/**
 * lib/client against real SDK servers (spawned): list, call, read, get prompts, answer an
 * elicitation (legacy request or 2026 input_required round), receive progress — over every
 * transport each peer offers.
 */
import { describe, expect, test } from 'bun:test'
import { type ClientHandlers, type McpClient, type Target, connect } from '../../../lib/client/index.ts'
import type { ProgressUpdate } from '../../../lib/session/index.ts'
import { testSettings } from '../../harness.ts'
import { LEGACY, MODERN, serveFixture } from './sdk-peers.ts'

const settings = testSettings()

const handlers: ClientHandlers = {
  onElicit: (params) => ({ action: 'accept', content: { answer: `42 to ${String(params.message)}` } }),
}

async function exercise(client: McpClient, flavour: string): Promise<void> {
  const tools = (await client.listAllTools()).map((t) => t.name).sort()
  expect(tools).toEqual(
    flavour === 'legacy'
      ? ['ask', 'capabilities', 'echo', 'exit', 'expire', 'notify', 'poll', 'progress', 'sample', 'slow', 'touch']
      : ['ask', 'echo', 'progress', 'slow'],
  )
  expect(await client.callTool('echo', { text: 'hi' })).toMatchObject({ content: [{ type: 'text', text: 'hi' }], resultType: 'complete' })

  const read = await client.readResource('test://hello')
  expect(read.contents).toEqual([{ uri: 'test://hello', mimeType: 'text/plain', text: `hello from ${flavour}` }])
  expect((await client.listAllResources()).map((r) => r.uri)).toEqual(['test://hello'])

  expect((await client.listAllPrompts()).map((p) => p.name)).toEqual(['greet'])
  const prompt = await client.getPrompt('greet', { name: 'Ada' })
  expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Hello, Ada!' } }])

  const asked = await client.callTool('ask', { question: 'meaning?' })
  expect(JSON.stringify(asked.content)).toContain('42 to meaning?')

  const updates: ProgressUpdate[] = []
  const done = await client.callTool('progress', { steps: 3 }, { onProgress: (u) => updates.push(u) })
  expect(JSON.stringify(done.content)).toContain('done 3')
  expect(updates.map((u) => u.progress)).toEqual([1, 2, 3])
}

async function connected(target: Target) {
  // The spawned peer inherits the test's environment as the CLI hands its own down (TR-04).
  const client = await connect(target, { settings, handlers, noCache: true, parentEnv: process.env })
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() })
}

describe('legacy SDK 1.x server', () => {
  test('stdio', async () => {
    await using client = await connected({ command: process.execPath, args: [LEGACY, 'stdio'] })
    expect([client.era, client.transport, client.revision]).toEqual(['legacy', 'stdio', '2025-11-25'])
    expect(client.server.serverInfo).toMatchObject({ name: 'sdk-legacy-fixture', version: '1.0.0' })
    await exercise(client, 'legacy')
  })

  test('Streamable HTTP', async () => {
    await using server = await serveFixture(LEGACY, 'http')
    await using client = await connected({ url: server.url })
    expect([client.era, client.transport]).toEqual(['legacy', 'streamable-http'])
    await exercise(client, 'legacy')
  })

  test('HTTP+SSE (2024-11-05 transport), reached by falling back', async () => {
    await using server = await serveFixture(LEGACY, 'sse')
    await using client = await connected({ url: server.url })
    expect([client.era, client.transport]).toEqual(['legacy', 'http+sse'])
    await exercise(client, 'legacy')
  })
})

describe('legacy Streamable HTTP session handling', () => {
  test('an expired session (404) is re-initialized once and the request retried (TR-29)', async () => {
    await using server = await serveFixture(LEGACY, 'http')
    await using client = await connected({ url: server.url })
    const first = sessionOf(client)
    expect(first).toBeString()
    expect(JSON.stringify((await client.callTool('expire')).content)).toContain('expired 1')
    expect(await client.callTool('echo', { text: 'after' })).toMatchObject({ content: [{ text: 'after' }] })
    expect(sessionOf(client)).toBeString()
    expect(sessionOf(client)).not.toBe(first)
  })

  test('cancelling a call and a deadline leave the connection usable', async () => {
    await using server = await serveFixture(LEGACY, 'http')
    await using client = await connected({ url: server.url })
    const controller = new AbortController()
    const cancelled = client.callTool('slow', { ms: 60_000 }, { signal: controller.signal }).catch((e) => e)
    controller.abort()
    expect((await cancelled).code).toBe('CANCELLED')
    const timedOut = await client.callTool('slow', { ms: 60_000 }, { timeoutMs: 50 }).catch((e) => e)
    expect(timedOut.code).toBe('TIMEOUT')
    expect(await client.callTool('echo', { text: 'still here' })).toMatchObject({ content: [{ text: 'still here' }] })
  })
})

function sessionOf(client: McpClient): unknown {
  return (client.peer.transport as unknown as { sessionId?: string }).sessionId
}

describe('modern SDK 2.x server', () => {
  test('HTTP cancellation closes the stream and the connection stays usable', async () => {
    await using server = await serveFixture(MODERN, 'http-strict')
    await using client = await connected({ url: server.url })
    const controller = new AbortController()
    const cancelled = client.callTool('slow', { ms: 60_000 }, { signal: controller.signal }).catch((e) => e)
    controller.abort()
    expect((await cancelled).code).toBe('CANCELLED')
    expect(await client.callTool('echo', { text: 'next' })).toMatchObject({ content: [{ text: 'next' }] })
  })

  test('stdio', async () => {
    await using client = await connected({ command: process.execPath, args: [MODERN, 'stdio'] })
    expect([client.era, client.transport, client.revision]).toEqual(['modern', 'stdio', '2026-07-28'])
    expect(client.server.serverInfo).toMatchObject({ name: 'sdk-modern-fixture', version: '2.0.0' })
    await exercise(client, 'modern')
  })

  test('Streamable HTTP (dual-era server: modern wins)', async () => {
    await using server = await serveFixture(MODERN, 'http')
    await using client = await connected({ url: server.url })
    expect([client.era, client.transport]).toEqual(['modern', 'streamable-http'])
    await exercise(client, 'modern')
  })

  test('Streamable HTTP, modern only', async () => {
    await using server = await serveFixture(MODERN, 'http-strict')
    await using client = await connected({ url: server.url })
    expect([client.era, client.transport]).toEqual(['modern', 'streamable-http'])
    await exercise(client, 'modern')
  })
})
