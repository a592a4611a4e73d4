/**
 * The official modern-era server (@modelcontextprotocol/server 2.x: 2026-07-28 stateless,
 * `server/discover`, per-request `_meta`) for the record/replay acceptance tests: tools echo {text},
 * add {a, b}, progress {steps}; prompt greet {name}; resource test://hello.
 * Usage: bun sdk-modern-fixture.ts <stdio | http> [--changed-add]. `--changed-add` changes ONE
 * tool's behaviour (add answers a + b + 1). http prints one line `{"url": …}` once listening.
 */
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server'
import { serveStdio } from '@modelcontextprotocol/server/stdio'
import { z } from 'zod'

const mode = process.argv[2] ?? 'stdio'
const changedAdd = process.argv.includes('--changed-add')
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })

function buildServer(): McpServer {
  const server = new McpServer({ name: 'sdk-modern-replay', version: '2.0.0' }, { capabilities: { tools: {}, prompts: {}, resources: {} } })
  server.registerTool('echo', { description: 'Echo', inputSchema: { text: z.string() } }, async ({ text: value }) => text(value))
  server.registerTool('add', { description: 'Add two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) =>
    text(`sum=${changedAdd ? a + b + 1 : a + b}`),
  )
  server.registerTool('progress', { inputSchema: { steps: z.number().int() } }, async ({ steps }, ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken
    for (let i = 1; i <= steps && progressToken !== undefined; i++) {
      await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: i, total: steps } })
    }
    return text(`done ${steps}`)
  })
  server.registerPrompt('greet', { description: 'Greet someone', argsSchema: { name: z.string() } }, ({ name }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${name}!` } }],
  }))
  server.registerResource('hello', 'test://hello', { mimeType: 'text/plain', description: 'A greeting' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'hello from modern' }],
  }))
  return server
}

if (mode === 'stdio') {
  serveStdio(() => buildServer())
} else if (mode === 'http') {
  const handler = createMcpHandler(() => buildServer(), { legacy: 'reject' })
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', idleTimeout: 0, fetch: (request) => handler.fetch(request) })
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.port}/mcp` })}\n`)
} else {
  process.stderr.write(`unknown mode ${mode}\n`)
  process.exit(2)
}
