/**
 * Where a `/mcp` tools/call spends the daemon's CPU, layer by layer, in one process: each layer is
 * called through its room's door (the stdio transport, the peer, the client, Upstream.call,
 * UpstreamPool.call, Engine.answer of the raw surface and the Streamable HTTP handler), each over
 * its own upstream, in interleaved, rotated blocks, and the CPU
 * of this process per call is read with process.cpuUsage. The difference between two rows is what
 * that layer adds. `--upstream memory` (the default) answers from an in-memory transport a turn
 * later (setImmediate, as I/O would), so the figures are mcpx's own JavaScript and nothing else;
 * `--upstream stdio` runs the bench's echo server under node for each layer, so the rows include
 * the pipe round trip (the `bare` row: a minimal write/flush/read of the same lines, the floor).
 * A tight loop keeps everything in cache: between real reads and writes (the stdio rows) the same
 * work costs about twice as much (README "Benchmarks").
 * Usage: bun scripts/bench/layers.ts [--upstream memory|stdio] [--calls 20000] [--block 500] [--warmup 2000]
 *        [--only name,name…]. Markdown on stdout.
 */
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type { ConnectOptions, TransportFactory } from '../../lib/client/index.ts'
import { parseConfig } from '../../lib/config/index.ts'
import { GatewaySurface, UpstreamPool } from '../../lib/gateway/index.ts'
import { createSchemaValidator } from '../../lib/schema/index.ts'
import { type Channel, createHttpHandler } from '../../lib/server/index.ts'
import { resolveSettings } from '../../lib/settings/index.ts'
import { createStdioTransport, type Transport, type TransportHandlers } from '../../lib/transport/index.ts'
import type { JsonRpcMessage, JsonRpcRequest } from '../../lib/wire/index.ts'
import { integerFlag } from './flags.ts'
import { fmt } from './stats.ts'

const { values: flags } = parseArgs({
  options: {
    upstream: { type: 'string', default: 'memory' },
    calls: { type: 'string', default: '20000' },
    block: { type: 'string', default: '500' },
    warmup: { type: 'string', default: '2000' },
    only: { type: 'string' },
  },
})
if (flags.upstream !== 'memory' && flags.upstream !== 'stdio') throw new Error(`--upstream must be memory or stdio, got ${flags.upstream}`)
const inMemory = flags.upstream === 'memory'
const count = (name: 'calls' | 'block' | 'warmup') => integerFlag(name, flags[name])

const ECHO_SERVER = join(import.meta.dir, 'echo-server.mjs')
const settings = resolveSettings({}, {})
const INITIALIZE = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'mcpx-bench', version: '1.0.0' } }
const ARGS = { message: 'hello' }

/** The echo server's answers, as the JSON lines it writes (scripts/bench/echo-server.mjs). */
function echoAnswer(message: JsonRpcRequest): string | undefined {
  const id = JSON.stringify(message.id)
  switch (message.method) {
    case 'initialize':
      return `{"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"bench-echo","version":"1.0.0"}},"jsonrpc":"2.0","id":${id}}`
    case 'tools/list':
      return `{"result":{"tools":[{"name":"echo","description":"Echo back the message","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"message":{"type":"string"}},"required":["message"]},"execution":{"taskSupport":"forbidden"}}]},"jsonrpc":"2.0","id":${id}}`
    case 'tools/call': {
      const text = JSON.stringify(`Echo: ${(message.params?.arguments as { message?: string } | undefined)?.message}`)
      return `{"result":{"content":[{"type":"text","text":${text}}]},"jsonrpc":"2.0","id":${id}}`
    }
    default:
      return `{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":"Method not found"}}`
  }
}

/** The echo server in memory: each request is serialized, parsed back and answered a turn later. */
function memoryTransport(): Transport {
  let handlers: TransportHandlers | undefined
  return {
    kind: 'stdio',
    async start(h) {
      handlers = h
    },
    async send(message) {
      const sent = JSON.parse(JSON.stringify(message)) as JsonRpcMessage
      if (!('method' in sent) || !('id' in sent)) return
      const answer = echoAnswer(sent as JsonRpcRequest)
      if (answer !== undefined) setImmediate(() => handlers?.onMessage(JSON.parse(answer) as JsonRpcMessage))
    },
    async close() {
      handlers?.onClose()
    },
  }
}

const memoryTransports: TransportFactory = {
  stdio: () => memoryTransport(),
  http: () => {
    throw new Error('the layers bench has only stdio upstreams')
  },
}

function echoPool(): UpstreamPool {
  const config = parseConfig(JSON.stringify({ mcpServers: { echo: { command: 'node', args: [ECHO_SERVER] } } }), 'layers.json', {})
  return new UpstreamPool({
    config,
    settings,
    validator: createSchemaValidator(settings),
    ...(inMemory && { connectOptions: () => ({ transports: memoryTransports }) as Partial<ConnectOptions> }),
  })
}

/** One tools/call (or ping) through a layer; awaited whether or not it returns a promise. */
type Call = () => unknown

/** Write/flush/read of the same lines with nothing else: what any stdio relay pays (relay-floor.ts does this). */
async function bare(): Promise<Call> {
  const child = Bun.spawn(['node', ECHO_SERVER], { stdin: 'pipe', stdout: 'pipe', stderr: 'inherit' })
  const waiting = new Map<number, () => void>()
  void (async () => {
    const decoder = new TextDecoder()
    let buffered = ''
    const reader = child.stdout.getReader()
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      buffered += decoder.decode(chunk.value, { stream: true })
      for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
        const message = JSON.parse(buffered.slice(0, end)) as { id?: number }
        buffered = buffered.slice(end + 1)
        waiting.get(message.id!)?.()
        waiting.delete(message.id!)
      }
    }
  })()
  let next = 1
  const request = (method: string, params: unknown) =>
    new Promise<void>((resolve) => {
      const id = next++
      waiting.set(id, resolve)
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`)
      child.stdin.flush()
    })
  await request('initialize', INITIALIZE)
  child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
  cleanups.push(() => child.kill())
  return () => request('tools/call', { name: 'echo', arguments: ARGS })
}

async function transport(): Promise<Call> {
  const stdio = createStdioTransport({ command: 'node', args: [ECHO_SERVER] }, settings)
  const waiting = new Map<unknown, () => void>()
  await stdio.start({
    onMessage: (message) => {
      const id = (message as { id?: unknown }).id
      waiting.get(id)?.()
      waiting.delete(id)
    },
    onClose() {},
  })
  cleanups.push(() => stdio.close())
  let next = 1
  const request = (method: string, params: Record<string, unknown>) =>
    new Promise<void>((resolve) => {
      const id = next++
      waiting.set(id, resolve)
      void stdio.send({ jsonrpc: '2.0', id, method, params })
    })
  await request('initialize', INITIALIZE)
  await stdio.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
  return () => request('tools/call', { name: 'echo', arguments: ARGS })
}

async function connected() {
  const pool = echoPool()
  cleanups.push(() => pool.close())
  await pool.catalog('echo')
  return { pool, upstream: pool.upstream('echo'), client: await pool.upstream('echo').client() }
}

async function rawSurface() {
  const pool = echoPool()
  cleanups.push(() => pool.close())
  const surface = new GatewaySurface({ pool, settings, mode: 'raw', version: '0' })
  cleanups.push(() => surface.close())
  await surface.ready()
  const engine = surface.engine
  const connection = engine.connect('http')
  const channel: Channel = { connection, outlet: { send() {} }, era: 'legacy' }
  await engine.answer({ jsonrpc: '2.0', id: 0, method: 'initialize', params: INITIALIZE }, channel)
  await engine.answer({ jsonrpc: '2.0', method: 'notifications/initialized' }, channel)
  return { surface, engine, connection, channel }
}

async function http(method: 'ping' | 'tools/call'): Promise<Call> {
  const { surface } = await rawSurface()
  const handler = createHttpHandler({ engine: surface.engine, settings, guarded: true })
  const url = 'http://127.0.0.1/mcp?codemode=false'
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
  const post = async (body: string) => {
    const response = await handler.fetch(
      new Request(url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, body }),
    )
    await response.text()
    return response
  }
  const opened = await post(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: INITIALIZE }))
  headers['mcp-session-id'] = opened.headers.get('mcp-session-id')!
  headers['mcp-protocol-version'] = '2025-11-25'
  await post('{"jsonrpc":"2.0","method":"notifications/initialized"}')
  let next = 1
  const params = method === 'ping' ? '' : `,"params":${JSON.stringify({ name: 'echo_echo', arguments: ARGS })}`
  return () => post(`{"jsonrpc":"2.0","id":${next++},"method":"${method}"${params}}`)
}

/** What the http rows pay for building the Request and reading the Response in this process (not the handler's). */
async function httpHarness(): Promise<Call> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo_echo', arguments: ARGS } })
  const answer = '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Echo: hello"}]}}'
  // The same headers as the http rows' requests carry.
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-session-id': 'x'.repeat(32),
    'mcp-protocol-version': '2025-11-25',
    'content-length': String(Buffer.byteLength(body)),
  }
  return async () => {
    await new Request('http://127.0.0.1/mcp?codemode=false', { method: 'POST', headers, body }).text()
    await new Response(answer, { headers: { 'content-type': 'application/json' } }).text()
  }
}

interface Layer {
  readonly name: string
  readonly adds: string
  readonly make: () => Promise<Call>
}

const LAYERS: Layer[] = [
  ...(inMemory
    ? []
    : [
        { name: 'bare', adds: 'a minimal stdio write/flush/read of the same lines (the floor)', make: bare },
        { name: 'transport', adds: 'lib/transport stdio client (line framer, envelope check)', make: transport },
      ]),
  {
    name: 'peer',
    adds: 'lib/session Peer.request: id, deadline, abort listener',
    make: async () => {
      const { client } = await connected()
      return () => client.peer.request('tools/call', { name: 'echo', arguments: ARGS })
    },
  },
  {
    name: 'client',
    adds: 'McpClient.callTool: era shaping up to the newest result shape, retry hook',
    make: async () => {
      const { client } = await connected()
      return () => client.callTool('echo', ARGS)
    },
  },
  {
    name: 'upstream',
    adds: 'Upstream.call: tool lookup, task decision, broker scope (AsyncLocalStorage)',
    make: async () => {
      const { upstream } = await connected()
      return () => upstream.call('echo', ARGS, { argumentsChecked: true })
    },
  },
  {
    name: 'pool',
    adds: 'UpstreamPool.call with the argument check against inputSchema',
    make: async () => {
      const { pool } = await connected()
      return () => pool.call('echo', 'echo', ARGS)
    },
  },
  {
    name: 'engine',
    adds: 'Engine.answer of the raw surface: the plain call relayed (lib/server/relay.ts), argument check, result for the revision',
    make: async () => {
      const s = await rawSurface()
      let next = 1
      return () =>
        s.engine.answer({ jsonrpc: '2.0', id: next++, method: 'tools/call', params: { name: 'echo_echo', arguments: ARGS } }, s.channel)
    },
  },
  {
    name: 'engine ping',
    adds: 'Engine.answer of a ping (no upstream)',
    make: async () => {
      const s = await rawSurface()
      let next = 1
      return () => s.engine.answer({ jsonrpc: '2.0', id: next++, method: 'ping' }, s.channel)
    },
  },
  { name: 'http', adds: 'the Streamable HTTP handler: session, body, classification, JSON response', make: () => http('tools/call') },
  { name: 'http ping', adds: 'the same for a ping (no upstream)', make: () => http('ping') },
  { name: 'http harness', adds: "this bench's own Request/Response building in the http rows (not mcpx's)", make: httpHarness },
]

const cleanups: Array<() => unknown> = []
const calls = count('calls')
const block = count('block')
const picked = flags.only === undefined ? LAYERS : LAYERS.filter((l) => flags.only!.split(',').includes(l.name))
const made: Array<{ layer: Layer; call: Call }> = []
for (const layer of picked) made.push({ layer, call: await layer.make() })
for (const { call } of made) for (let i = 0; i < count('warmup'); i++) await call()
const used = new Map<string, number>(LAYERS.map((l) => [l.name, 0]))
const rounds = Math.ceil(calls / block)
for (let round = 0; round < rounds; round++) {
  for (let k = 0; k < made.length; k++) {
    const { layer, call } = made[(k + round) % made.length]!
    const before = process.cpuUsage()
    for (let i = 0; i < block; i++) await call()
    const spent = process.cpuUsage(before)
    used.set(layer.name, used.get(layer.name)! + spent.user + spent.system)
  }
}
for (const cleanup of cleanups.reverse()) await cleanup()
const perCall = (name: string) => used.get(name)! / (rounds * block)
const loads = (await import('node:os')).loadavg().map((l) => fmt(l))
const rows = picked.map((l) => `| ${l.name} | ${l.adds} | ${fmt(perCall(l.name), 1)} |`)
process.stdout.write(
  [
    `Run ${new Date().toISOString()} · bun ${Bun.version} · upstream ${flags.upstream} · ${rounds * block} calls per layer in interleaved blocks of ${block} · load average ${loads.join(' / ')}`,
    '',
    '| layer | what it adds to the row above it | µs of this process per call |',
    '|---|---|---|',
    ...rows,
    '',
  ].join('\n'),
)
process.exit(0)
