/**
 * Replicas, in paired blocks so both sides of each comparison see the same machine noise:
 *  - sealing: tools/call straight to two daemons in replica mode (sealed legacy session ids, each
 *    id's owner looked up per request, requestState and task ids naming the replica, the forwarder's
 *    look at each request) vs two plain daemons (random session ids, no forwarder), for a legacy
 *    session and for 2026 requests; target: paired p50 ratio ≤ 1.05. In the same rounds, two other
 *    plain daemons vs the same two: the noise floor, a comparison with nothing to find;
 *  - balancing: tools/call through HAProxy + 3 replicas (scripts/cluster.ts, deploy/haproxy.cfg as
 *    shipped) vs straight to one replica, 2026-07-28 requests (stateless), with the daemons' CPU per
 *    call (from /proc) to estimate calls/s per core. On a 2-core box three replicas cannot scale:
 *    this measures the load balancer's overhead, not throughput. Then what the shipped config's
 *    closing of each host connection costs against its keep-alive opt-out, and `option httpclose`
 *    against the same opt-out.
 * Part of `bun scripts/bench.ts --only cluster`; alone: `bun scripts/bench/cluster.ts [--calls 8000]
 * [--block 50] [--part all|sealing|balancing] [--warmup 2000]` (the daemon: MCPX_EXE, else the sources).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import {
  type Cluster,
  findEngine,
  type Replica,
  freePort,
  type HostConnections,
  haproxyConfig,
  startCluster,
  waitListening,
} from '../cluster.ts'
import { fmt, median, quantile, ratio } from './stats.ts'

const REPO = new URL('../..', import.meta.url).pathname.replace(/\/$/, '')
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
}
/** The sealing target: replica mode may cost at most this much on a call's p50. */
export const SEALING_TARGET = 1.05
/** Default of measureCluster's warmup. */
export const DAEMON_WARMUP = 2000

export interface Side {
  readonly p50Ms: number
  readonly p99Ms: number
}
export interface Pair {
  readonly a: Side
  readonly b: Side
  /** Median over block pairs of (block p50 of a / block p50 of b). */
  readonly pairedRatio: number
  /** CPU per call of each side's processes (ms, from /proc: the daemons, or HAProxy): less sensitive to scheduling noise than latency. */
  readonly cpuMsPerCall?: { readonly a: number; readonly b: number }
}
export type ClusterPart = 'all' | 'sealing' | 'balancing'

export interface ClusterFigures {
  readonly calls: number
  readonly block: number
  readonly sealing?: {
    readonly legacy: Pair
    readonly modern: Pair
    /** The same comparisons between two pairs of plain daemons: how far apart two sides of one kind land on this machine now. */
    readonly legacyNoise: Pair
    readonly modernNoise: Pair
  }
  readonly balancing?: {
    readonly balanced: Pair
    /** Daemon CPU (all replicas) per call of the balanced comparison, ms. */
    readonly cpuMsPerCall: number
    /** The same replicas: deploy/haproxy.cfg as shipped (each host connection closed after its response) vs its keep-alive opt-out. */
    readonly shipped: Pair
    /** `option httpclose` (a connection per request on both sides) vs the keep-alive opt-out. */
    readonly httpclose: Pair
  }
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
  const [pair] = await pairedWith({ calls: b, ...(pids && { pids: pids.b }) }, [{ calls: a, ...(pids && { pids: pids.a }) }], calls, block)
  return pair!
}

interface PairedSide {
  readonly calls: Call | Call[]
  /** Its processes, for CPU per call. */
  readonly pids?: number[]
}

/**
 * Several sides against one base in the same blocks: each round runs a block of every side, in an
 * order that rotates round by round, so every side sees the same stretch of machine noise and the
 * same history (no side's daemons serve more calls, and so compile further, than another's).
 * One Pair per side in `others` (a = that side, b = the base).
 */
export async function pairedWith(base: PairedSide, others: PairedSide[], calls: number, block: number): Promise<Pair[]> {
  const sides = [base, ...others].map((side) => ({ calls: [side.calls].flat(), pids: side.pids }))
  for (let i = 0; i < 100; i++) for (const side of sides) for (const call of side.calls) await call()
  const cpuOf = (list: number[] | undefined) => (list ?? []).reduce((sum, pid) => sum + cpuMs(pid), 0)
  const cpuBefore = sides.map((side) => cpuOf(side.pids))
  const samples = sides.map(() => [] as number[])
  const ratios = others.map(() => [] as number[])
  for (let done = 0, k = 0; done < calls; done += block, k++) {
    const order = sides.map((_, i) => (i + k) % sides.length)
    if (k % 2 === 1) order.reverse()
    const blocks = sides.map(() => [] as number[])
    for (const s of order) {
      const list = sides[s]!.calls
      const call = list[Math.floor(k / 2) % list.length]!
      for (let i = 0; i < block; i++) blocks[s]!.push(await call())
    }
    blocks.forEach((b, s) => samples[s]!.push(...b))
    for (let o = 0; o < others.length; o++) ratios[o]!.push(median(blocks[o + 1]!) / median(blocks[0]!))
  }
  const side = (s: number[]): Side => ({ p50Ms: median(s), p99Ms: quantile(s, 0.99) })
  const cpuPerCall = (s: number) => (cpuOf(sides[s]!.pids) - cpuBefore[s]!) / samples[s]!.length
  return others.map((other, o) => ({
    a: side(samples[o + 1]!),
    b: side(samples[0]!),
    pairedRatio: median(ratios[o]!),
    ...(other.pids && base.pids && { cpuMsPerCall: { a: cpuPerCall(o + 1), b: cpuPerCall(0) } }),
  }))
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
  part?: ClusterPart
  /** Calls of each era every daemon of the sealing rows serves before any is measured (JIT tiering done, the same history everywhere). */
  warmup?: number
  mcpx?: string[]
  progress?: (message: string) => void
}): Promise<ClusterFigures> {
  const { calls, block } = options
  const warmup = options.warmup ?? DAEMON_WARMUP
  const part = options.part ?? 'all'
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
  const balancers: ReturnType<typeof Bun.spawn>[] = []
  try {
    const mcpx = options.mcpx && { mcpx: options.mcpx }
    cluster = await startCluster({ config, replicas: 3, dir: join(dir, 'cluster'), sticky: false, ...mcpx })
    const urlOf = (port: number) => `http://127.0.0.1:${port}/mcp?codemode=false`
    const sealedUrls = cluster.replicas.slice(0, 2).map((r) => urlOf(r.port))
    let sealing: ClusterFigures['sealing']
    if (part !== 'balancing') {
      // Daemons of the same config with no replica settings: random session ids, no forwarder. Each side
      // of the sealing rows is two daemons (replicas 1 and 2 against plain 1 and 2); plain 3 and 4 against
      // plain 1 and 2 are the same comparison with nothing to find, for the noise floor.
      plain = await startCluster({
        config,
        replicas: 4,
        dir: join(dir, 'plain'),
        ...mcpx,
        env: { MCPX_REPLICA_ID: '', MCPX_REPLICA_PEERS: '', MCPX_SEAL_KEY_FILE: '' },
      })
      const plainUrls = plain.replicas.slice(0, 2).map((r) => urlOf(r.port))
      const otherUrls = plain.replicas.slice(2).map((r) => urlOf(r.port))
      const pidsOf = (replicas: Replica[]) => replicas.map((r) => r.pid)
      const sides = { a: pidsOf(cluster.replicas.slice(0, 2)), b: pidsOf(plain.replicas.slice(0, 2)) }
      const noiseSides = { a: pidsOf(plain.replicas.slice(2)), b: sides.b }
      // A fresh daemon is still compiling its hot paths (JSC tiers up on background threads, which on a
      // loaded 2-core machine lag): one side caught mid-way cost up to 1.5x CPU per call here. So every
      // daemon serves the same calls first.
      progress(`cluster: warming the 6 daemons of the sealing rows, ${warmup} calls of each era each`)
      for (const [url, token] of [
        ...sealedUrls.map((url) => [url, cluster!.token] as const),
        ...[...plainUrls, ...otherUrls].map((url) => [url, plain!.token] as const),
      ]) {
        const calls = [await legacyCall(url, token), modernCall(url, token)]
        for (let i = 0; i < warmup; i++) for (const call of calls) await call()
      }
      // Replica mode against plain daemons, and other plain daemons against the same ones (the noise
      // floor), in the same blocks.
      const legacySessions = async (urls: string[], token: string) => Promise.all(urls.map((url) => legacyCall(url, token)))
      progress(`cluster: sealing and its noise floor, legacy session, ${calls} calls per side`)
      const [legacy, legacyNoise] = await pairedWith(
        { calls: await legacySessions(plainUrls, plain.token), pids: sides.b },
        [
          { calls: await legacySessions(sealedUrls, cluster.token), pids: sides.a },
          { calls: await legacySessions(otherUrls, plain.token), pids: noiseSides.a },
        ],
        calls,
        block,
      )
      progress(`cluster: sealing and its noise floor, 2026 requests, ${calls} calls per side`)
      const [modern, modernNoise] = await pairedWith(
        { calls: plainUrls.map((url) => modernCall(url, plain!.token)), pids: sides.b },
        [
          { calls: sealedUrls.map((url) => modernCall(url, cluster!.token)), pids: sides.a },
          { calls: otherUrls.map((url) => modernCall(url, plain!.token)), pids: noiseSides.a },
        ],
        calls,
        block,
      )
      sealing = { legacy: legacy!, modern: modern!, legacyNoise: legacyNoise!, modernNoise: modernNoise! }
    }
    let balancing: ClusterFigures['balancing']
    if (part !== 'sealing') {
      progress(`cluster: HAProxy + 3 replicas vs one replica direct, ${calls} calls per side`)
      const pids = cluster.replicas.map((r) => r.pid)
      const before = pids.map(cpuMs)
      const balanced = await paired(
        modernCall(`${cluster.url}?codemode=false`, cluster.token),
        modernCall(sealedUrls[0]!, cluster.token),
        calls,
        block,
      )
      // Both sides' calls (and their warm-up of 100 each) ran on the replicas.
      const cpuMsPerCall = pids.map(cpuMs).reduce((sum, ms, i) => sum + ms - before[i]!, 0) / (2 * (calls + 100))
      // The same replicas behind three balancers of their own (so their CPU is measured): as shipped, the
      // keep-alive opt-out and `option httpclose`.
      const balancer = async (hostConnections: HostConnections) => {
        const port = await freePort()
        const file = join(dir, `haproxy-${hostConnections}.cfg`)
        writeFileSync(file, haproxyConfig(port, cluster!.replicas, false, hostConnections))
        const proc = Bun.spawn([findEngine('haproxy'), '-db', '-f', file], { stdout: 'ignore', stderr: 'pipe' })
        balancers.push(proc)
        await waitListening(port, proc)
        return { call: modernCall(`http://127.0.0.1:${port}/mcp?codemode=false`, cluster!.token), pid: proc.pid }
      }
      const [asShipped, keepalive, closing] = [await balancer('close'), await balancer('keepalive'), await balancer('httpclose')]
      progress(`cluster: HAProxy as shipped (host connection closed per response) vs keep-alive, ${calls} calls per side`)
      const shipped = await paired(asShipped.call, keepalive.call, calls, block, { a: [asShipped.pid], b: [keepalive.pid] })
      progress(`cluster: HAProxy option httpclose vs keep-alive, ${calls} calls per side`)
      const httpclose = await paired(closing.call, keepalive.call, calls, block, { a: [closing.pid], b: [keepalive.pid] })
      balancing = { balanced, cpuMsPerCall, shipped, httpclose }
    }
    return { calls, block, ...(sealing && { sealing }), ...(balancing && { balancing }) }
  } finally {
    for (const proc of balancers) proc.kill()
    await Promise.all(balancers.map((proc) => proc.exited))
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
  const rows = [
    `| tools/call, ${f.calls} per side, paired blocks of ${f.block} | p50 ms (a) | p50 ms (b) | paired p50 ratio a/b | p99 ratio | CPU µs/call a / b (ratio): daemons, or HAProxy | target |`,
    '|---|---|---|---|---|---|---|',
  ]
  if (f.sealing)
    rows.push(
      row(
        'sealing, legacy session: (a) 2 daemons in replica mode, sealed session ids vs (b) 2 plain daemons',
        f.sealing.legacy,
        SEALING_TARGET,
      ),
      row('sealing, 2026-07-28: (a) 2 daemons in replica mode vs (b) 2 plain daemons', f.sealing.modern, SEALING_TARGET),
      row('noise floor, legacy session: (a) 2 other plain daemons vs (b) the same 2 plain daemons', f.sealing.legacyNoise),
      row('noise floor, 2026-07-28: (a) 2 other plain daemons vs (b) the same 2 plain daemons', f.sealing.modernNoise),
    )
  const b = f.balancing
  if (b)
    rows.push(
      row('(a) HAProxy + 3 replicas round-robin (deploy/haproxy.cfg as shipped) vs (b) one replica direct, 2026-07-28', b.balanced),
      row(
        '(a) deploy/haproxy.cfg as shipped (host connection closed after each response, replica connections shared) vs (b) its keep-alive opt-out, 3 replicas, 2026-07-28; HAProxy CPU',
        b.shipped,
      ),
      row(
        '(a) HAProxy `option httpclose` (a connection per request, both sides) vs (b) the keep-alive opt-out, 3 replicas, 2026-07-28; HAProxy CPU',
        b.httpclose,
      ),
      '',
      `Daemon CPU per call (all replicas, balanced comparison): ${fmt(b.cpuMsPerCall, 3)} ms ⇒ about ${fmt(1000 / b.cpuMsPerCall, 0)} calls/s per core for the daemons alone (HAProxy and the upstream not counted). This machine has 2 cores shared by three replicas, HAProxy, the upstreams and the client: the balanced ratio measures the load balancer's overhead, not scaling.`,
    )
  return rows.join('\n')
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      calls: { type: 'string', default: '8000' },
      block: { type: 'string', default: '50' },
      part: { type: 'string', default: 'all' },
      warmup: { type: 'string', default: String(DAEMON_WARMUP) },
    },
  })
  if (!['all', 'sealing', 'balancing'].includes(values.part))
    throw new Error(`--part must be all, sealing or balancing, got ${values.part}`)
  console.log(
    renderCluster(
      await measureCluster({
        calls: Number(values.calls),
        block: Number(values.block),
        part: values.part as ClusterPart,
        warmup: Number(values.warmup),
        progress: (m) => process.stderr.write(`bench: ${m}\n`),
      }),
    ),
  )
}
