/**
 * The one upstream every latency path in scripts/bench.ts talks to: an SDK 1.x server over stdio
 * with a single `echo {message}` tool, run under node as MCP servers usually are, so the
 * direct, daemon and supergateway paths differ only in what sits between the client and it.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { z } from 'zod'

const server = new McpServer({ name: 'bench-echo', version: '1.0.0' })
server.registerTool('echo', { description: 'Echo back the message', inputSchema: { message: z.string() } }, async ({ message }) => ({
  content: [{ type: 'text', text: `Echo: ${message}` }],
}))
await server.connect(new StdioServerTransport())
