/**
 * A legacy-era server on @modelcontextprotocol/sdk 1.x with the surface the client engine tests
 * exercise: tools echo {text}, progress {steps} (progress notifications), ask {question}
 * (elicitation/create back to the client), slow {ms} (abort-aware), expire {} (http: forgets every
 * session, so the next request gets 404); prompt greet {name}; resource test://hello.
 * Usage: bun legacy-everything-fixture.ts <stdio | http | sse>; HTTP modes print `{"url": …}`.
 */
import { createServer } from 'node:http'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { z } from 'zod'

const mode = process.argv[2] ?? 'stdio'
// Streamable HTTP sessions by id (http mode).
const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>()
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })

function buildServer(): McpServer {
  const server = new McpServer({ name: 'legacy-everything', version: '1.2.3' })
  server.registerTool('echo', { description: 'Echo', inputSchema: { text: z.string() } }, async ({ text: value }) => text(value))
  server.registerTool('progress', { inputSchema: { steps: z.number().int() } }, async ({ steps }, extra) => {
    const progressToken = extra._meta?.progressToken
    for (let i = 1; i <= steps && progressToken !== undefined; i++) {
      await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: i, total: steps } })
    }
    return text(`done ${steps}`)
  })
  server.registerTool('ask', { inputSchema: { question: z.string() } }, async ({ question }) => {
    const answer = await server.server.elicitInput({ message: question, requestedSchema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] } })
    return text(`action=${answer.action} answer=${String(answer.content?.answer ?? '')}`)
  })
  server.registerTool('slow', { inputSchema: { ms: z.number().int() } }, async ({ ms }, extra) => {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms)
      extra.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()))
    })
    return text(`slept ${ms}`)
  })
  server.registerTool('expire', {}, async () => {
    const count = sessions.size
    sessions.clear()
    return text(`expired ${count}`)
  })
  server.registerPrompt('greet', { description: 'Greet someone', argsSchema: { name: z.string() } }, ({ name }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${name}!` } }],
  }))
  server.registerResource('hello', 'test://hello', { mimeType: 'text/plain', description: 'A greeting' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'hello from legacy' }],
  }))
  return server
}

const announce = (url: string) => process.stdout.write(`${JSON.stringify({ url })}\n`)

if (mode === 'stdio') {
  await buildServer().connect(new StdioServerTransport())
} else if (mode === 'http') {
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    idleTimeout: 0,
    async fetch(request) {
      const id = request.headers.get('mcp-session-id')
      const existing = id ? sessions.get(id) : undefined
      if (existing) return existing.handleRequest(request)
      if (id) return new Response('unknown session', { status: 404 })
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (sid) => void sessions.set(sid, transport),
        onsessionclosed: (sid) => void sessions.delete(sid),
      })
      await buildServer().connect(transport)
      return transport.handleRequest(request)
    },
  })
  announce(`http://127.0.0.1:${server.port}/mcp`)
} else if (mode === 'sse') {
  const transports = new Map<string, SSEServerTransport>()
  const http = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    if (req.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', res)
      transports.set(transport.sessionId, transport)
      res.on('close', () => transports.delete(transport.sessionId))
      await buildServer().connect(transport)
      return
    }
    const transport = req.method === 'POST' && url.pathname === '/messages' ? transports.get(url.searchParams.get('sessionId') ?? '') : undefined
    if (!transport) {
      res.writeHead(url.pathname === '/sse' ? 405 : 404).end('no such session')
      return
    }
    await transport.handlePostMessage(req, res)
  })
  http.listen(0, '127.0.0.1', () => {
    const address = http.address()
    announce(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/sse`)
  })
} else {
  process.stderr.write(`unknown mode ${mode}\n`)
  process.exit(2)
}
