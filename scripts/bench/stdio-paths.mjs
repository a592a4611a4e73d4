// The stdio-host part of the benchmark, run by **node** (as desktop hosts run their MCP clients):
// one SDK 1.x client per target over StdioClientTransport, timed in interleaved blocks of sequential
// tools/call, the order rotated each round (the method of persistent.ts). Targets come as JSON in
// argv[2]: [{name, command, args, env, tool?, preCalls?}] (tool: else the listed tool whose name ends in
// "echo"; preCalls: sequential calls made before the common warm-up, the first block of which is
// reported as firstBlockUs — what a session sees of a daemon as the run found it).
// Prints {"targets": [{name, samplesUs, blockP50Us, firstBlockUs?}]} on stdout.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

const { targets, calls, block, warmup } = JSON.parse(process.argv[2])
const median = (values) => [...values].sort((a, b) => a - b)[Math.ceil(values.length / 2) - 1]

const clients = []
for (const target of targets) {
  const client = new Client({ name: 'mcpx-bench-stdio', version: '1.0.0' })
  await client.connect(new StdioClientTransport({ command: target.command, args: target.args, env: target.env, stderr: 'inherit' }))
  const tool = target.tool ?? (await client.listTools()).tools.map((t) => t.name).find((name) => name.endsWith('echo'))
  if (!tool) throw new Error(`${target.name}: no echo tool listed`)
  const call = async () => {
    const result = await client.callTool({ name: tool, arguments: { message: 'hello' } })
    if (result.isError) throw new Error(`${target.name}: ${JSON.stringify(result).slice(0, 300)}`)
  }
  clients.push({ name: target.name, client, call, preCalls: target.preCalls ?? 0, samples: [], blocks: [] })
}
const FIRST_BLOCK = 1000
for (const c of clients) {
  if (c.preCalls === 0) continue
  c.firstBlockUs = []
  for (let i = 0; i < c.preCalls; i++) {
    const start = performance.now()
    await c.call()
    if (i < FIRST_BLOCK) c.firstBlockUs.push((performance.now() - start) * 1000)
  }
}
for (const c of clients) for (let i = 0; i < warmup; i++) await c.call()
const rounds = Math.max(1, Math.ceil(calls / block))
for (let round = 0; round < rounds; round++) {
  const k = round % clients.length
  for (const c of [...clients.slice(k), ...clients.slice(0, k)]) {
    const times = []
    for (let i = 0; i < block; i++) {
      const start = performance.now()
      await c.call()
      times.push((performance.now() - start) * 1000)
    }
    c.samples.push(...times)
    c.blocks.push(median(times))
  }
}
for (const c of clients) await c.client.close()
process.stdout.write(
  `${JSON.stringify({ targets: clients.map((c) => ({ name: c.name, samplesUs: c.samples, blockP50Us: c.blocks, ...(c.firstBlockUs && { firstBlockUs: c.firstBlockUs }) })) })}\n`,
)
