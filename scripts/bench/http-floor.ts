/**
 * The loopback HTTP floor for part 1: a separate bun process that answers MCP JSON-RPC over HTTP
 * with canned JSON at once (initialize, tools/list, tools/call `echo`; GET → 405, notifications →
 * 202), no upstream behind it. An SDK client against it shows what the SDK's Streamable HTTP client
 * plus loopback HTTP cost before any gateway work. Prints `{"url": …}` once listening.
 */
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(request) {
    if (request.method !== 'POST') return new Response(null, { status: 405, headers: { Allow: 'POST' } })
    const message = (await request.json()) as {
      id?: number | string
      method: string
      params?: { arguments?: { message?: string }; protocolVersion?: string }
    }
    if (message.id === undefined) return new Response(null, { status: 202 })
    const result =
      message.method === 'initialize'
        ? {
            protocolVersion: message.params?.protocolVersion ?? '2025-06-18',
            capabilities: { tools: {} },
            serverInfo: { name: 'http-floor', version: '1.0.0' },
          }
        : message.method === 'tools/list'
          ? { tools: [{ name: 'echo', inputSchema: { type: 'object', properties: { message: { type: 'string' } } } }] }
          : { content: [{ type: 'text', text: `Echo: ${message.params?.arguments?.message ?? ''}` }] }
    return Response.json({ jsonrpc: '2.0', id: message.id, result })
  },
})
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.port}/mcp` })}\n`)
process.stdin.on('end', () => process.exit(0))
process.stdin.resume()
