/**
 * The everything fixture against the official SDK clients, over stdio (spawned fixture) and
 * Streamable HTTP (Bun.serve): SDK 1.x at every legacy revision (its initialize offer rewritten to
 * the revision under test), SDK 2.x pinned to 2026-07-28. Each lists and calls tools, reads a
 * resource, gets a prompt and answers a request for input (legacy: a real request; modern: MRTR).
 */
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client'
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio'
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport as LegacyStdio } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { Engine, serveHttp } from '../../lib/server/index.ts'
import { REPO_ROOT, testSettings } from '../harness.ts'
import { everythingServer } from '../fixtures/everything/server.ts'

const FIXTURE = join(REPO_ROOT, 'test/fixtures/everything/main.ts')
const LEGACY = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const
type Transport = 'stdio' | 'http'

async function withHttpServer<T>(run: (url: string) => Promise<T>): Promise<T> {
  const settings = testSettings()
  await using server = serveHttp(new Engine(everythingServer, settings), settings)
  return await run(server.url)
}

interface Negotiated {
  revision?: string
}

/**
 * Make the SDK 1.x client offer `revision` in initialize (it always offers its latest otherwise), and
 * note the revision the server answered with: the client hands it to `setProtocolVersion` (stdio has none).
 */
function offering<T extends { send: (message: any, options?: any) => Promise<void>; setProtocolVersion?: (version: string) => void }>(
  transport: T,
  revision: string,
  negotiated: Negotiated,
): T {
  const send = transport.send.bind(transport)
  transport.send = (message, options) =>
    send(message.method === 'initialize' ? { ...message, params: { ...message.params, protocolVersion: revision } } : message, options)
  const setProtocolVersion = transport.setProtocolVersion?.bind(transport)
  transport.setProtocolVersion = (version) => {
    negotiated.revision = version
    setProtocolVersion?.(version)
  }
  return transport
}

async function legacySession(
  revision: string,
  kind: Transport,
  run: (client: LegacyClient, negotiated: string | undefined) => Promise<void>,
): Promise<void> {
  const client = new LegacyClient({ name: 'sdk1-peer', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } })
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
    role: 'assistant',
    content: { type: 'text', text: `echo ${(request.params.messages[0]!.content as { text: string }).text}` },
    model: 'test-model',
  }))
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { username: 'ada', email: 'ada@example.com' } }))
  const go = async (transport: LegacyStdio | LegacyHttp) => {
    const negotiated: Negotiated = {}
    await client.connect(offering(transport, revision, negotiated))
    try {
      await run(client, negotiated.revision)
    } finally {
      await client.close()
    }
  }
  if (kind === 'stdio') return go(new LegacyStdio({ command: process.execPath, args: [FIXTURE, '--stdio'], stderr: 'ignore' }))
  return withHttpServer((url) => go(new LegacyHttp(new URL(url))))
}

describe.each(['stdio', 'http'] as const)('SDK 1.x client over %s', (kind) => {
  test.each(LEGACY)('negotiates %s and uses tools, resources, prompts and sampling', async (revision) => {
    await legacySession(revision, kind, async (client, negotiated) => {
      expect(negotiated).toBe(revision)
      expect(client.getServerVersion()?.name).toBe('mcpx-everything')
      const tools = await client.listTools()
      expect(tools.tools.map((t) => t.name)).toContain('test_simple_text')
      expect(await client.callTool({ name: 'test_simple_text' })).toEqual({
        content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
      })
      const read = await client.readResource({ uri: 'test://template/42/data' })
      expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual({ id: '42', templateTest: true, data: 'Data for ID: 42' })
      const prompt = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a', arg2: 'b' } })
      expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: "Prompt with arguments: arg1='a', arg2='b'" })
      const sampled = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'hi' } })
      expect(sampled.content).toEqual([{ type: 'text', text: 'LLM response: echo hi' }])
    })
  })

  test('answers an elicitation on the call stream (2025-11-25)', async () => {
    await legacySession('2025-11-25', kind, async (client, negotiated) => {
      expect(negotiated).toBe('2025-11-25')
      const result = await client.callTool({ name: 'test_elicitation', arguments: { message: 'who?' } })
      expect(result.content).toEqual([
        { type: 'text', text: 'User response: action=accept, content={"username":"ada","email":"ada@example.com"}' },
      ])
    })
  })
})

async function modernSession(kind: Transport, run: (client: ModernClient) => Promise<void>): Promise<void> {
  const client = new ModernClient(
    { name: 'sdk2-peer', version: '2.0.0' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  )
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Grace' } }))
  const go = async (transport: ModernStdio | ModernHttp) => {
    await client.connect(transport)
    try {
      await run(client)
    } finally {
      await client.close()
    }
  }
  if (kind === 'stdio') return go(new ModernStdio({ command: process.execPath, args: [FIXTURE, '--stdio'], stderr: 'ignore' }))
  return withHttpServer((url) => go(new ModernHttp(new URL(url))))
}

describe.each(['stdio', 'http'] as const)('SDK 2.x client pinned to 2026-07-28 over %s', (kind) => {
  test('discovers, lists, calls, reads, gets and completes an MRTR round', async () => {
    await modernSession(kind, async (client) => {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
      const tools = await client.listTools()
      expect(tools.tools.map((t) => t.name)).toContain('test_input_required_result_elicitation')
      const simple = await client.callTool({ name: 'test_simple_text', arguments: {} })
      expect(simple.content).toEqual([{ type: 'text', text: 'This is a simple text response for testing.' }])
      const read = await client.readResource({ uri: 'test://static-text' })
      expect(read.contents[0]).toMatchObject({ uri: 'test://static-text', text: 'This is the content of the static text resource.' })
      const prompt = await client.getPrompt({ name: 'test_simple_prompt' })
      expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: 'This is a simple prompt for testing.' })
      const answered = await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} })
      expect(answered.content).toEqual([{ type: 'text', text: 'Hello, Grace!' }])
    })
  })
})
