/**
 * The official legacy-era server (@modelcontextprotocol/sdk 1.x) for the record/replay acceptance
 * tests: tools echo {text}, add {a, b}, progress {steps}; prompt greet {name}; resource test://hello.
 * Usage: bun sdk-legacy-fixture.ts <stdio | http> [--changed-add]. `--changed-add` changes ONE
 * tool's behaviour (add answers a + b + 1), so a replay against it must report exactly that tool.
 * http prints one line `{"url": …}` once listening (Streamable HTTP with sessions and SSE ids).
 */
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { z } from 'zod'

const mode = process.argv[2] ?? 'stdio'
const changedAdd = process.argv.includes('--changed-add')
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })

function buildServer(): McpServer {
  const server = new McpServer({ name: 'sdk-legacy-replay', version: '1.0.0' })
  server.registerTool('echo', { description: 'Echo', inputSchema: { text: z.string() } }, async ({ text: value }) => text(value))
  server.registerTool('add', { description: 'Add two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) =>
    text(`sum=${changedAdd ? a + b + 1 : a + b}`),
  )
  server.registerTool('progress', { inputSchema: { steps: z.number().int() } }, async ({ steps }, extra) => {
    const progressToken = extra._meta?.progressToken
    for (let i = 1; i <= steps && progressToken !== undefined; i++) {
      await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: i, total: steps } })
    }
    return text(`done ${steps}`)
  })
  server.registerPrompt('greet', { description: 'Greet someone', argsSchema: { name: z.string() } }, ({ name }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${name}!` } }],
  }))
  server.registerResource('hello', 'test://hello', { mimeType: 'text/plain', description: 'A greeting' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'hello from legacy' }],
  }))
  return server
}

if (mode === 'stdio') {
  await buildServer().connect(new StdioServerTransport())
} else if (mode === 'http') {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>()
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    idleTimeout: 0,
    async fetch(request) {
      const sessionId = request.headers.get('mcp-session-id')
      const existing = sessionId ? sessions.get(sessionId) : undefined
      if (existing) return existing.handleRequest(request)
      if (sessionId) return new Response('unknown session', { status: 404 })
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        eventStore: new InMemoryEventStore(),
        onsessioninitialized: (id) => void sessions.set(id, transport),
        onsessionclosed: (id) => void sessions.delete(id),
      })
      await buildServer().connect(transport)
      return transport.handleRequest(request)
    },
  })
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.port}/mcp` })}\n`)
} else {
  process.stderr.write(`unknown mode ${mode}\n`)
  process.exit(2)
}
