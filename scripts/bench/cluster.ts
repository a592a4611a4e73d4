/**
 * tools/call through HAProxy + 3 replicas (scripts/cluster.ts) vs straight to one replica, in
 * paired blocks so both sides see the same machine noise; plus CPU per call of the daemons and
 * HAProxy (from /proc) to estimate calls/s per core. On a 2-core box three replicas cannot scale:
 * this measures the load balancer's overhead, not throughput. 2026-07-28 requests (stateless).
 * Usage: bun scripts/bench/cluster.ts [--calls 2000] [--block 50]. Markdown on stdout.
 */
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { startCluster } from '../cluster.ts'
import { fmt, median, quantile, ratio } from './stats.ts'

const { values } = parseArgs({ options: { calls: { type: 'string', default: '2000' }, block: { type: 'string', default: '50' } } })
const calls = Number(values.calls)
const block = Number(values.block)
const REPO = new URL('../..', import.meta.url).pathname.replace(/\/$/, '')
const dir = mkdtempSync(join(tmpdir(), 'mcpx-bench-cluster-'))
const config = join(dir, 'config.json')
writeFileSync(config, JSON.stringify({ mcpServers: { up: { command: process.execPath, args: [join(REPO, 'test/fixtures/peers/gateway-upstream-fixture.ts')] } } }))
const cluster = await startCluster({ config, replicas: 3, dir })

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' } }
let id = 0
async function call(url: string): Promise<number> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'up_echo', arguments: { text: `n${id}` }, _meta: META } })
  const start = performance.now()
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${cluster.token}`, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'up_echo' },
    body,
  })
  const text = await response.text()
  if (!text.includes(`n${id}`)) throw new Error(`unexpected answer: ${text.slice(0, 200)}`)
  return performance.now() - start
}

/** utime+stime of a process in ms (/proc/<pid>/stat fields 14 and 15, clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

try {
  const direct = `http://127.0.0.1:${cluster.replicas[0]!.port}/mcp?codemode=false`
  const balanced = `${cluster.url}?codemode=false`
  for (let i = 0; i < 100; i++) {
    await call(direct)
    await call(balanced)
  }
  const samples = { direct: [] as number[], balanced: [] as number[] }
  const pids = cluster.replicas.map((r) => r.pid)
  const cpuBefore = pids.map(cpuMs)
  for (let done = 0; done < calls; done += block) {
    // Alternate which side goes first in each pair of blocks.
    const order = (done / block) % 2 === 0 ? (['direct', 'balanced'] as const) : (['balanced', 'direct'] as const)
    for (const side of order) for (let i = 0; i < block; i++) samples[side].push(await call(side === 'direct' ? direct : balanced))
  }
  const daemonCpu = pids.map(cpuMs).reduce((sum, ms, i) => sum + ms - cpuBefore[i]!, 0)
  const perCallCpuMs = daemonCpu / (2 * calls)
  console.log(`| tools/call, 2026-07-28, ${calls} per side, blocks of ${block} | p50 ms | p99 ms |`)
  console.log('|---|---|---|')
  console.log(`| one replica direct | ${fmt(median(samples.direct), 3)} | ${fmt(quantile(samples.direct, 0.99), 3)} |`)
  console.log(`| HAProxy + 3 replicas, round-robin | ${fmt(median(samples.balanced), 3)} | ${fmt(quantile(samples.balanced, 0.99), 3)} |`)
  console.log(`| ratio (balanced / direct, p50) | ${fmt(ratio(median(samples.balanced), median(samples.direct)), 2)} | |`)
  console.log(`\nDaemon CPU per call (all replicas, both sides): ${fmt(perCallCpuMs, 3)} ms ⇒ about ${fmt(1000 / perCallCpuMs, 0)} calls/s per core for the daemons alone (HAProxy and the upstream not counted). On this 2-core machine the ratio is overhead, not scaling.`)
} finally {
  await cluster.close()
  rmSync(dir, { recursive: true, force: true })
}
