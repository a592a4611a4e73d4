// scratch: object allocations per call of each layer, in process (memory upstream), no GC in between
import { heapStats } from 'bun:jsc'
import { parseConfig } from '../lib/config/index.ts'
import { GatewaySurface, UpstreamPool } from '../lib/gateway/index.ts'
import { createSchemaValidator } from '../lib/schema/index.ts'
import { type Channel, createHttpHandler } from '../lib/server/index.ts'
import { resolveSettings } from '../lib/settings/index.ts'
import type { Transport, TransportHandlers } from '../lib/transport/index.ts'
import type { JsonRpcMessage, JsonRpcRequest } from '../lib/wire/index.ts'

const settings = resolveSettings({}, {})
const INITIALIZE = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'b', version: '1' } }
function echoAnswer(m: JsonRpcRequest): string {
  const id = JSON.stringify(m.id)
  if (m.method === 'initialize') return `{"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"e","version":"1"}},"jsonrpc":"2.0","id":${id}}`
  if (m.method === 'tools/list') return `{"result":{"tools":[{"name":"echo","inputSchema":{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}}]},"jsonrpc":"2.0","id":${id}}`
  if (m.method === 'tools/call') return `{"result":{"content":[{"type":"text","text":"Echo: hello"}]},"jsonrpc":"2.0","id":${id}}`
  return `{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":"nf"}}`
}
function memoryTransport(): Transport {
  let handlers: TransportHandlers | undefined
  return { kind: 'stdio', async start(h) { handlers = h }, send(message) { const sent = message as JsonRpcRequest; if ('id' in sent && 'method' in sent) { const a = echoAnswer(sent); setImmediate(() => handlers?.onMessage(JSON.parse(a) as JsonRpcMessage)) } return Promise.resolve() }, async close() { handlers?.onClose() } }
}
const config = parseConfig(JSON.stringify({ mcpServers: { echo: { command: 'node', args: ['x'] } } }), 'a.json', {})
const pool = new UpstreamPool({ config, settings, validator: createSchemaValidator(settings), connectOptions: () => ({ transports: { stdio: () => memoryTransport(), http: () => { throw new Error('no') } } }) as never })
await pool.catalog('echo')
const client = await pool.upstream('echo').client()
const surface = new GatewaySurface({ pool, settings, mode: 'raw', version: '0' })
await surface.ready()
const handler = createHttpHandler({ engine: surface.engine, settings, guarded: true })
const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
const post = async (body: string) => { const r = await handler.fetch(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, body })); await r.text(); return r }
const opened = await post(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: INITIALIZE }))
headers['mcp-session-id'] = opened.headers.get('mcp-session-id')!
headers['mcp-protocol-version'] = '2025-11-25'
await post('{"jsonrpc":"2.0","method":"notifications/initialized"}')
const engine = surface.engine
const connection = engine.connect('http')
const channel: Channel = { connection, outlet: { send() {} }, era: 'legacy' }
await engine.answer({ jsonrpc: '2.0', id: 0, method: 'initialize', params: INITIALIZE }, channel)
let n = 1
const body = (id: number) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo_echo","arguments":{"message":"hello"}}}`
const rows: Record<string, () => Promise<unknown>> = {
  harness: async () => { await new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { ...headers, 'content-length': '100' }, body: body(1) }).text(); await new Response('{"a":1}', { headers: { 'content-type': 'application/json' } }).text() },
  peer: () => client.peer.request('tools/call', { name: 'echo', arguments: { message: 'hello' } }),
  client: () => client.callTool('echo', { message: 'hello' }),
  pool: () => pool.call('echo', 'echo', { message: 'hello' }),
  engine: () => engine.answer({ jsonrpc: '2.0', id: n++, method: 'tools/call', params: { name: 'echo_echo', arguments: { message: 'hello' } } }, channel),
  http: () => post(body(n++)),
}
const only = process.argv[2]?.split(',')
for (const [name, call] of Object.entries(rows)) {
  if (only && !only.includes(name)) continue
  for (let i = 0; i < 3000; i++) await call()
  Bun.gc(true)
  const a = heapStats()
  const N = 200
  for (let i = 0; i < N; i++) await call()
  const b = heapStats()
  const diffs = Object.entries(b.objectTypeCounts).map(([k, v]) => [k, (v - (a.objectTypeCounts[k] ?? 0)) / N] as const).filter(([, v]) => v >= 0.5).sort((x, y) => y[1] - x[1])
  console.log(`## ${name}: ` + diffs.map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', '))
}
process.exit(0)
