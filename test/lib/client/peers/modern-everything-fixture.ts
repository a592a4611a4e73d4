/**
 * A 2026-era server on @modelcontextprotocol/server 2.x with the client engine tests' surface:
 * tools echo {text}, progress {steps}, ask {question} (elicitation as an input_required round),
 * slow {ms} (abort-aware);
 * prompt greet {name}; resource test://hello. Usage: bun modern-everything-fixture.ts
 * <stdio | http | http-strict>; http serves legacy requests statelessly too (dual era),
 * http-strict rejects them. HTTP modes print `{"url": …}`.
 */
import { McpServer, acceptedContent, createMcpHandler, inputRequired } from '@modelcontextprotocol/server'
import { serveStdio } from '@modelcontextprotocol/server/stdio'
import { z } from 'zod'

const mode = process.argv[2] ?? 'http'
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })

function buildServer(): McpServer {
  const server = new McpServer({ name: 'modern-everything', version: '2.3.4' }, { capabilities: { tools: {}, prompts: {}, resources: {} } })
  server.registerTool('echo', { description: 'Echo', inputSchema: { text: z.string() } }, async ({ text: value }) => text(value))
  server.registerTool('progress', { inputSchema: { steps: z.number().int() } }, async ({ steps }, ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken
    for (let i = 1; i <= steps && progressToken !== undefined; i++) {
      await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: i, total: steps } })
    }
    return text(`done ${steps}`)
  })
  server.registerTool('ask', { inputSchema: { question: z.string() } }, async ({ question }, ctx) => {
    const answer = acceptedContent(ctx.mcpReq.inputResponses, 'answer')
    if (!answer) {
      return inputRequired({
        inputRequests: { answer: inputRequired.elicit({ message: question, requestedSchema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] } }) },
        requestState: 'opaque-state-1',
      })
    }
    return text(`answer=${String(answer.answer)} state=${String(ctx.mcpReq.requestState ?? '')}`)
  })
  server.registerTool('slow', { inputSchema: { ms: z.number().int() } }, async ({ ms }, ctx) => {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms)
      ctx.mcpReq.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()))
    })
    return text(`slept ${ms}`)
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
} else if (mode === 'http' || mode === 'http-strict') {
  const handler = createMcpHandler(() => buildServer(), { legacy: mode === 'http' ? 'stateless' : 'reject' })
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', idleTimeout: 0, fetch: (request) => handler.fetch(request) })
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.port}/mcp` })}\n`)
} else {
  process.stderr.write(`unknown mode ${mode}\n`)
  process.exit(2)
}
