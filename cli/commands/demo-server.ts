/**
 * `mcpx demo-server` (hidden): the built-in `demo` server of the embedded default config, served
 * on stdio by lib/server in both eras. Tools echo, add and time, a `greet` prompt and a
 * `demo://readme` resource: enough to try every mcpx command with no configuration at all.
 */
import { defineCommand } from 'citty'
import { RPC, RpcError } from '../../lib/errors/index.ts'
import { Engine, type JsonObject, defineServer, serveStdio } from '../../lib/server/index.ts'
import { loadContext } from '../context.ts'
import { VERSION } from '../version.ts'

const text = (value: string) => ({ content: [{ type: 'text', text: value }] })

function requireType(args: JsonObject, name: string, type: 'string' | 'number'): void {
  if (typeof args[name] !== type) throw new RpcError(RPC.INVALID_PARAMS, `argument "${name}" must be a ${type}`, { argument: name })
}

const README = `mcpx demo server

This server is built into mcpx and is what an empty configuration gives you.
Try: mcpx call demo.echo text=hello · mcpx call demo.add a=2 b=40 · mcpx call demo.time
Add your own servers to ~/.config/mcpx/config.json, or copy them from your editor with \`mcpx import\`.
`

const demoServer = defineServer({
  info: { name: 'mcpx-demo', title: 'mcpx demo server', version: VERSION },
  instructions: 'A small built-in server for trying mcpx: echo text, add numbers, tell the time.',
  tools: [
    {
      name: 'echo',
      description: 'Echo the text back',
      inputSchema: { type: 'object', properties: { text: { type: 'string', description: 'Text to echo' } }, required: ['text'] },
      annotations: { readOnlyHint: true, openWorldHint: false },
      handler: (args) => {
        requireType(args, 'text', 'string')
        return text(args.text as string)
      },
    },
    {
      name: 'add',
      description: 'Add two numbers',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
      annotations: { readOnlyHint: true, openWorldHint: false },
      handler: (args) => {
        requireType(args, 'a', 'number')
        requireType(args, 'b', 'number')
        const sum = (args.a as number) + (args.b as number)
        return { ...text(String(sum)), structuredContent: { sum } }
      },
    },
    {
      name: 'time',
      description: 'The current time (ISO 8601, UTC)',
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true, openWorldHint: false },
      handler: () => text(new Date().toISOString()),
    },
  ],
  prompts: [
    {
      name: 'greet',
      description: 'A greeting for someone',
      arguments: [{ name: 'name', description: 'Who to greet', required: true }],
      handler: (args) => ({
        messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${args.name ?? 'someone'} in one friendly sentence.` } }],
      }),
    },
  ],
  resources: [
    {
      uri: 'demo://readme',
      name: 'readme',
      title: 'About the demo server',
      mimeType: 'text/plain',
      read: () => ({ contents: [{ uri: 'demo://readme', mimeType: 'text/plain', text: README }] }),
    },
  ],
})

export default defineCommand({
  meta: { name: 'demo-server', description: 'Serve the built-in demo MCP server on stdio', hidden: true },
  async run() {
    const ctx = loadContext({})
    const server = serveStdio(new Engine(demoServer, ctx.settings), ctx.settings)
    await server.closed
  },
})
