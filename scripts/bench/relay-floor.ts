/**
 * The relay floor for part 1: the least any gateway process can do. A separate bun process that
 * answers `initialize` itself and forwards every other request, as is, to the echo upstream over
 * stdio (node scripts/bench/echo-server.mjs), one line each way: no validation, no sessions, no
 * auth, no shaping. An SDK client against it shows what the second process hop itself costs on this
 * machine, so mcpx's own work is what remains above it. Prints `{"url": …}` once listening.
 */
import { join } from 'node:path'

// Arguments: the echo server's path, for a compiled copy (bench/startup.ts), whose import.meta.dir is
// Bun's embedded /$bunfs; `--upstream-session=own`: the upstream in a session of its own, as mcpx
// starts every stdio upstream (its own process group, for cleanup; Bun's `detached` is setsid), so
// that both relays' upstreams are scheduled alike (peers.ts RelayArrangement says why that matters).
const args = process.argv.slice(2)
const upstream = Bun.spawn(['node', args.find((arg) => !arg.startsWith('--')) ?? join(import.meta.dir, 'echo-server.mjs')], {
  stdin: 'pipe',
  stdout: 'pipe',
  stderr: 'inherit',
  detached: args.includes('--upstream-session=own'),
})
const waiting = new Map<number, (message: { result?: unknown; error?: unknown }) => void>()
let nextId = 1

async function readReplies(): Promise<void> {
  const decoder = new TextDecoder()
  let buffered = ''
  const reader = upstream.stdout.getReader()
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    buffered += decoder.decode(chunk.value, { stream: true })
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const message = JSON.parse(buffered.slice(0, end)) as { id?: number; result?: unknown; error?: unknown }
      buffered = buffered.slice(end + 1)
      if (message.id !== undefined) waiting.get(message.id)?.(message)
      waiting.delete(message.id!)
    }
  }
}
void readReplies()

function forward(method: string, params: unknown): Promise<{ result?: unknown; error?: unknown }> {
  const id = nextId++
  return new Promise((resolve) => {
    waiting.set(id, resolve)
    upstream.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`)
    upstream.stdin.flush()
  })
}

const initialized = await forward('initialize', {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'relay-floor', version: '1.0.0' },
})
upstream.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`)

const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  development: false,
  async fetch(request) {
    if (request.method !== 'POST') return new Response(null, { status: 405, headers: { Allow: 'POST' } })
    const message = (await request.json()) as { id?: number | string; method: string; params?: { protocolVersion?: string } }
    if (message.id === undefined) return new Response(null, { status: 202 })
    if (message.method === 'initialize') {
      const result = { ...(initialized.result as object), protocolVersion: message.params?.protocolVersion ?? '2025-06-18' }
      return Response.json({ jsonrpc: '2.0', id: message.id, result })
    }
    const reply = await forward(message.method, message.params)
    return Response.json(
      reply.error === undefined
        ? { jsonrpc: '2.0', id: message.id, result: reply.result }
        : { jsonrpc: '2.0', id: message.id, error: reply.error },
    )
  },
})
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.port}/mcp` })}\n`)
process.stdin.on('end', () => {
  upstream.kill()
  process.exit(0)
})
process.stdin.resume()
