/**
 * Replicas, in paired blocks so both sides of each comparison see the same machine noise:
 *  - sealing: tools/call straight to one daemon in replica mode (sealed legacy session ids opened on
 *    every request, requestState and task ids naming the replica, the forwarder's look at each body)
 *    vs one plain daemon (random session ids, no forwarder), for a legacy session and for 2026
 *    requests; target: paired p50 ratio ≤ 1.05;
 *  - balancing: tools/call through HAProxy + 3 replicas (scripts/cluster.ts) vs straight to one
 *    replica, 2026-07-28 requests (stateless), with the daemons' CPU per call (from /proc) to
 *    estimate calls/s per core. On a 2-core box three replicas cannot scale: this measures the load
 *    balancer's overhead, not throughput.
 * Part of `bun scripts/bench.ts --only cluster`; alone: `bun scripts/bench/cluster.ts [--calls 2000] [--block 50]`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { type Cluster, freePort, haproxyConfig, startCluster, waitListening } from '../cluster.ts'
import { fmt, median, quantile, ratio } from './stats.ts'

const REPO = new URL('../..', import.meta.url).pathname.replace(/\/$/, '')
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
}
/** The sealing target: replica mode may cost at most this much on a call's p50. */
export const SEALING_TARGET = 1.05

export interface Side {
  readonly p50Ms: number
  readonly p99Ms: number
}
export interface Pair {
  readonly a: Side
  readonly b: Side
  /** Median over block pairs of (block p50 of a / block p50 of b). */
  readonly pairedRatio: number
  /** Daemon CPU per call of each side (ms, from /proc), when each side is one daemon: less sensitive to scheduling noise than latency. */
  readonly cpuMsPerCall?: { readonly a: number; readonly b: number }
}
export interface ClusterFigures {
  readonly calls: number
  readonly block: number
  readonly sealingLegacy: Pair
  readonly sealingModern: Pair
  readonly balanced: Pair
  /** The same replicas behind HAProxy with `option httpclose` (a connection per request) vs the shipped keep-alive config. */
  readonly httpclose: Pair
  /** Daemon CPU (all replicas) per call of the balanced comparison, ms. */
  readonly cpuMsPerCall: number
}

let id = 0
type Call = () => Promise<number>

export function modernCall(url: string, token: string): Call {
  return async () => {
    const n = ++id
    const start = performance.now()
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'up_echo',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: n,
        method: 'tools/call',
        params: { name: 'up_echo', arguments: { text: `n${n}` }, _meta: META },
      }),
    })
    const text = await response.text()
    if (!text.includes(`n${n}`)) throw new Error(`unexpected answer: ${text.slice(0, 200)}`)
    return performance.now() - start
  }
}

/** A legacy 2025-11-25 session opened by hand; each call carries its Mcp-Session-Id. */
export async function legacyCall(url: string, token: string): Promise<Call> {
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` }
  const init = await fetch(url, {
    method: 'POST',
    headers: base,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    }),
  })
  const session = init.headers.get('mcp-session-id')
  await init.text()
  if (!session) throw new Error(`initialize answered ${init.status} without a session`)
  const headers = { ...base, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }
  await (
    await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })
  ).text()
  return async () => {
    const n = ++id
    const start = performance.now()
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: 'up_echo', arguments: { text: `n${n}` } } }),
    })
    const text = await response.text()
    if (!text.includes(`n${n}`)) throw new Error(`unexpected answer: ${text.slice(0, 200)}`)
    return performance.now() - start
  }
}

/** Alternating blocks of `block` calls per side (which side goes first alternates too). */
/**
 * Alternating blocks of `block` calls per side (which side goes first alternates too). A side may
 * be several daemons of the same kind (their calls take turns block by block), so one process's
 * luck — its core, its heap — does not pass for the difference between the kinds.
 */
export async function paired(
  a: Call | Call[],
  b: Call | Call[],
  calls: number,
  block: number,
  pids?: { a: number[]; b: number[] },
): Promise<Pair> {
  const calls_ = { a: [a].flat(), b: [b].flat() }
  for (let i = 0; i < 100; i++) for (const call of [...calls_.a, ...calls_.b]) await call()
  const cpuOf = (list: number[]) => list.reduce((sum, pid) => sum + cpuMs(pid), 0)
  const cpuBefore = pids && { a: cpuOf(pids.a), b: cpuOf(pids.b) }
  const samples = { a: [] as number[], b: [] as number[] }
  const ratios: number[] = []
  for (let done = 0, k = 0; done < calls; done += block, k++) {
    const blocks = { a: [] as number[], b: [] as number[] }
    for (const side of k % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const)) {
      const call = calls_[side][Math.floor(k / 2) % calls_[side].length]!
      for (let i = 0; i < block; i++) blocks[side].push(await call())
    }
    samples.a.push(...blocks.a)
    samples.b.push(...blocks.b)
    ratios.push(median(blocks.a) / median(blocks.b))
  }
  const side = (s: number[]): Side => ({ p50Ms: median(s), p99Ms: quantile(s, 0.99) })
  const cpu = pids &&
    cpuBefore && { a: (cpuOf(pids.a) - cpuBefore.a) / samples.a.length, b: (cpuOf(pids.b) - cpuBefore.b) / samples.b.length }
  return { a: side(samples.a), b: side(samples.b), pairedRatio: median(ratios), ...(cpu && { cpuMsPerCall: cpu }) }
}

/** utime+stime of a process in ms (/proc/<pid>/stat fields 14 and 15, in clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

/** `mcpx`: argv of the daemon (default as scripts/cluster.ts: MCPX_EXE, else the sources). */
export async function measureCluster(options: {
  calls: number
  block: number
  mcpx?: string[]
  progress?: (message: string) => void
}): Promise<ClusterFigures> {
  const { calls, block } = options
  const progress = options.progress ?? (() => {})
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-bench-cluster-'))
  const config = join(dir, 'config.json')
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { up: { command: process.execPath, args: [join(REPO, 'test/fixtures/peers/gateway-upstream-fixture.ts')] } },
    }),
  )
  let cluster: Cluster | undefined
  let plain: Cluster | undefined
  let closing: ReturnType<typeof Bun.spawn> | undefined
  try {
    const mcpx = options.mcpx && { mcpx: options.mcpx }
    cluster = await startCluster({ config, replicas: 3, dir: join(dir, 'cluster'), sticky: false, ...mcpx })
    // Two daemons of the same config with no replica settings: random session ids, no forwarder.
    // Each side of the sealing rows is two daemons (replicas 1 and 2 against these two).
    plain = await startCluster({
      config,
      replicas: 2,
      dir: join(dir, 'plain'),
      ...mcpx,
      env: { MCPX_REPLICA_ID: '', MCPX_REPLICA_PEERS: '', MCPX_SEAL_KEY_FILE: '' },
    })
    const urlOf = (port: number) => `http://127.0.0.1:${port}/mcp?codemode=false`
    const sealedUrls = cluster.replicas.slice(0, 2).map((r) => urlOf(r.port))
    const plainUrls = plain.replicas.map((r) => urlOf(r.port))
    const sealedUrl = sealedUrls[0]!
    const sides = { a: cluster.replicas.slice(0, 2).map((r) => r.pid), b: plain.replicas.map((r) => r.pid) }
    progress(`cluster: sealing, legacy session, ${calls} calls per side`)
    const legacySessions = async (urls: string[], token: string) => Promise.all(urls.map((url) => legacyCall(url, token)))
    const sealingLegacy = await paired(
      await legacySessions(sealedUrls, cluster.token),
      await legacySessions(plainUrls, plain.token),
      calls,
      block,
      sides,
    )
    progress(`cluster: sealing, 2026 requests, ${calls} calls per side`)
    const sealingModern = await paired(
      sealedUrls.map((url) => modernCall(url, cluster!.token)),
      plainUrls.map((url) => modernCall(url, plain!.token)),
      calls,
      block,
      sides,
    )
    progress(`cluster: HAProxy + 3 replicas vs one replica direct, ${calls} calls per side`)
    const pids = cluster.replicas.map((r) => r.pid)
    const before = pids.map(cpuMs)
    const balanced = await paired(
      modernCall(`${cluster.url}?codemode=false`, cluster.token),
      modernCall(sealedUrl, cluster.token),
      calls,
      block,
    )
    // Both sides' calls (and their warm-up of 100 each) ran on the replicas.
    const cpuMsPerCall = pids.map(cpuMs).reduce((sum, ms, i) => sum + ms - before[i]!, 0) / (2 * (calls + 100))
    progress(`cluster: HAProxy with option httpclose vs keep-alive (deploy/haproxy.cfg), ${calls} calls per side`)
    // What turning a cut request into a 502 costs (deploy/haproxy.cfg: on a kept-alive connection HAProxy closes it instead).
    const closingPort = await freePort()
    const closingConfig = join(dir, 'haproxy-httpclose.cfg')
    writeFileSync(closingConfig, haproxyConfig(closingPort, cluster.replicas, false, true))
    closing = Bun.spawn(['haproxy', '-db', '-f', closingConfig], { stdout: 'ignore', stderr: 'pipe' })
    await waitListening(closingPort, closing)
    const httpclose = await paired(
      modernCall(`http://127.0.0.1:${closingPort}/mcp?codemode=false`, cluster.token),
      modernCall(`${cluster.url}?codemode=false`, cluster.token),
      calls,
      block,
    )
    return { calls, block, sealingLegacy, sealingModern, balanced, httpclose, cpuMsPerCall }
  } finally {
    closing?.kill()
    await closing?.exited
    await cluster?.close()
    await plain?.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

const mark = (ok: boolean) => (ok ? '✅' : '❌')

export function renderCluster(f: ClusterFigures): string {
  const cpu = (p: Pair) =>
    p.cpuMsPerCall
      ? `${fmt(p.cpuMsPerCall.a * 1000, 0)} / ${fmt(p.cpuMsPerCall.b * 1000, 0)} (${fmt(ratio(p.cpuMsPerCall.a, p.cpuMsPerCall.b), 2)})`
      : '–'
  const row = (name: string, p: Pair, target?: number) =>
    `| ${name} | ${fmt(p.a.p50Ms, 3)} | ${fmt(p.b.p50Ms, 3)} | ${fmt(p.pairedRatio, 3)} | ${fmt(ratio(p.a.p99Ms, p.b.p99Ms), 2)} | ${cpu(p)} | ${target === undefined ? 'report' : `≤ ${target} ${mark(p.pairedRatio <= target)}`} |`
  return [
    `| tools/call, ${f.calls} per side, paired blocks of ${f.block} | p50 ms (a) | p50 ms (b) | paired p50 ratio a/b | p99 ratio | daemon CPU µs/call a / b (ratio) | target |`,
    '|---|---|---|---|---|---|---|',
    row(
      'sealing, legacy session: (a) 2 daemons in replica mode, sealed id opened per request vs (b) 2 plain daemons',
      f.sealingLegacy,
      SEALING_TARGET,
    ),
    row('sealing, 2026-07-28: (a) 2 daemons in replica mode vs (b) 2 plain daemons', f.sealingModern, SEALING_TARGET),
    row('(a) HAProxy + 3 replicas round-robin vs (b) one replica direct, 2026-07-28', f.balanced),
    row(
      '(a) HAProxy `option httpclose` (a connection per request) vs (b) the shipped keep-alive config, 3 replicas, 2026-07-28',
      f.httpclose,
    ),
    '',
    `Daemon CPU per call (all replicas, balanced comparison): ${fmt(f.cpuMsPerCall, 3)} ms ⇒ about ${fmt(1000 / f.cpuMsPerCall, 0)} calls/s per core for the daemons alone (HAProxy and the upstream not counted). This machine has 2 cores shared by three replicas, HAProxy, the upstreams and the client: the balanced ratio measures the load balancer's overhead, not scaling.`,
  ].join('\n')
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { calls: { type: 'string', default: '2000' }, block: { type: 'string', default: '50' } } })
  console.log(
    renderCluster(
      await measureCluster({
        calls: Number(values.calls),
        block: Number(values.block),
        progress: (m) => process.stderr.write(`bench: ${m}\n`),
      }),
    ),
  )
}
