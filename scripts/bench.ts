/**
 * mcpx benchmarks, all in one run so every comparison is a same-run ratio (the machine is shared
 * and noisy, so only same-run paired ratios mean anything):
 *  1a. CPU per call of the daemon's own process vs the relay floor's own process (`--cpu-calls`,
 *     default 10,000 each after a fifth as many warm-up calls, so 10 ms ticks and JIT compiling do
 *     not count; it also leaves both warm for what follows);
 *  1. tools/call p50/p99 — SDK client straight to the upstream over stdio vs the daemon's /mcp
 *     (raw surface and mcpx_call) vs supergateway --stateful;
 *  2. start-up and memory: wall time of `mcpx --version` and of a warm `mcpx call` (compiled binary,
 *     warm daemon) vs a bun-compiled hello binary and vs `mcporter call` (keep-alive daemon), and the
 *     idle daemon's RSS after --memory-calls calls (children separately; bench/startup.ts);
 *  3. code mode — warm exec start, 1000 calls from one script vs 1000 direct calls, search over
 *     10,000 synthetic tools, tools/list bytes of the code-mode vs raw surface;
 *  4. stdio hosts — the SDK 1.x client under node: direct stdio vs the byte-pump floor vs
 *     `mcpx serve --mode raw` vs `mcporter serve --stdio` (bench/stdio.ts);
 *  5. replicas — µs per seal and per open (bench/seal.ts); tools/call through one daemon in replica
 *     mode (sealed ids) vs a plain one, and through HAProxy + 3 replicas vs one direct, in paired
 *     blocks, with the daemons' CPU per call (bench/cluster.ts; needs haproxy).
 * Usage: bun scripts/bench.ts [--only all|mcp|stdio|startup|cluster] [--calls 1000] [--block 50] [--warmup 100] [--cpu-calls 10000]
 *        [--baseline path/to/mcpx] [--daemon-warmup 20000] [--oneshot-runs 15]
 *        [--batch-calls 1000] [--batch-reps 3] [--search-tools 10000] [--memory-calls 1000] [--idle-ms 2000]
 *        [--seal-ops 20000] [--cluster-calls 8000] [--cluster-part all|sealing|balancing] [--json] [--out file.json]
 * `--only mcp` runs part 1a and the paired /mcp?codemode=false vs relay-floor blocks of part 1 alone (about a minute);
 * with `--baseline <mcpx binary>` a second daemon from that binary joins both as `mcpx-raw-baseline`, for a same-run A/B.
 * `--only stdio` runs part 4 alone, `--only startup` part 2 alone (both with only the echo server configured), `--only cluster` part 5
 * (`--cluster-part sealing` only its sealing rows, `balancing` only the HAProxy rows).
 * Markdown on stdout (JSON with --json); progress on stderr. Every process it starts is stopped.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { type ClusterFigures, type ClusterPart, measureCluster, renderCluster } from './bench/cluster.ts'
import { type SealFigures, measureSeal, renderSeal } from './bench/seal.ts'
import { measureBatch, measureExecOverMcp, measureListBytes, measureSandbox, measureSearchFigures } from './bench/codemode.ts'
import { type CpuPerCall, cpuPerCall, type OwnCpuPerCall, ownCpuPerCall } from './bench/cpu.ts'
import {
  type MemoryFigures,
  type StartupFigures,
  buildHello,
  measureAfterCodeModeHost,
  measureDaemonMemory,
  measureFloorMemory,
  measureStartup,
} from './bench/startup.ts'
import {
  ECHO_SERVER,
  NODE,
  REPO,
  buildBinary,
  directClient,
  httpClient,
  mcporterPeer,
  startHttpFloor,
  startRelayFloor,
  startMcpxDaemon,
  startSupergateway,
  type Peer,
  type McpxDaemon,
  type Mcporter,
} from './bench/peers.ts'
import { type CallTarget, measurePersistent, ratioRow } from './bench/persistent.ts'
import {
  type McpOnlyReport,
  renderMarkdown,
  renderMcpOnly,
  renderStartupOnly,
  renderStdioOnly,
  type BenchReport,
  type StartupOnlyReport,
  type StdioOnlyReport,
} from './bench/report.ts'
import { type StdioFigures, measureStdioPaths } from './bench/stdio.ts'
import { integerFlag } from './bench/flags.ts'
import { resolveSettings } from '../lib/settings/index.ts'

const { values: flags } = parseArgs({
  options: {
    only: { type: 'string', default: 'all' },
    calls: { type: 'string', default: '1000' },
    block: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '100' },
    'cpu-calls': { type: 'string', default: '10000' },
    baseline: { type: 'string' },
    'daemon-warmup': { type: 'string', default: '20000' },
    'oneshot-runs': { type: 'string', default: '15' },
    'batch-calls': { type: 'string', default: '1000' },
    'batch-reps': { type: 'string', default: '3' },
    'search-tools': { type: 'string', default: '10000' },
    'memory-calls': { type: 'string', default: '1000' },
    'idle-ms': { type: 'string', default: '2000' },
    'seal-ops': { type: 'string', default: '20000' },
    // 8,000 per side: at 2,000 the same-kind noise-floor rows of the sealing comparison swung 0.96-1.06 between runs,
    // as wide as the 1.05 target; at 8,000 they held 0.98-1.00 (README, Benchmarks, Part 5).
    'cluster-calls': { type: 'string', default: '8000' },
    'cluster-part': { type: 'string', default: 'all' },
    json: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
})
const num = (name: keyof typeof flags) => integerFlag(name, flags[name] as string | undefined, name === 'daemon-warmup' ? 0 : 1)
const progress = (message: string) => process.stderr.write(`bench: ${message}\n`)

const NS = 'echo'
const dir = mkdtempSync(join(tmpdir(), 'mcpx-bench-'))
const cleanups: Array<() => Promise<unknown> | unknown> = []
const clients: Client[] = []

const machine = async () => ({
  loadAverage: (await import('node:os')).loadavg().map((l) => Math.round(l * 100) / 100),
  bun: Bun.version,
  node: Bun.spawnSync([NODE, '--version']).stdout.toString().trim(),
})

if (!['all', 'mcp', 'stdio', 'startup', 'cluster'].includes(flags.only!))
  throw new Error(`--only must be all, mcp, stdio, startup or cluster, got ${flags.only}`)
if (flags.baseline !== undefined && flags.only !== 'mcp') throw new Error('--baseline goes with --only mcp')
if (!['all', 'sealing', 'balancing'].includes(flags['cluster-part']!))
  throw new Error(`--cluster-part must be all, sealing or balancing, got ${flags['cluster-part']}`)

interface ReplicaFigures {
  readonly seal: SealFigures
  readonly cluster: ClusterFigures
}

/** Part 5: the seal micro-benchmark and the replica comparisons (bench/seal.ts, bench/cluster.ts). */
async function replicas(): Promise<ReplicaFigures> {
  progress(`part 5: seal micro-benchmark, ${num('seal-ops')} ops each`)
  const seal = measureSeal(num('seal-ops'))
  // The compiled binary, as the other parts measure it (its own copy: part 1's daemons may still run theirs).
  const binary = await buildBinary(mkdtempSync(join(dir, 'part5-')))
  const cluster = await measureCluster({
    calls: num('cluster-calls'),
    block: num('block'),
    part: flags['cluster-part'] as ClusterPart,
    mcpx: [binary],
    progress,
  })
  return { seal, cluster }
}

function renderReplicas(figures: ReplicaFigures): string {
  return `\n## 5. Replicas (sealed state, HAProxy + 3 replicas)\n\n${renderSeal(figures.seal)}\n\n${renderCluster(figures.cluster)}\n`
}

function stdioPaths(daemon: McpxDaemon, mcporter: Mcporter): Promise<StdioFigures> {
  progress(`part 4: stdio hosts (SDK 1.x under node), ${num('calls')} calls per path, blocks of ${num('block')}`)
  return measureStdioPaths({
    dir,
    daemon,
    mcporter,
    ns: NS,
    calls: num('calls'),
    block: num('block'),
    warmup: num('warmup'),
    daemonWarmup: num('daemon-warmup'),
  })
}

/** Part 2: one-shot pairs against the hello binary and mcporter, then the daemon's idle RSS. */
async function startupAndMemory(
  binary: string,
  daemon: McpxDaemon,
  mcporter: Mcporter,
): Promise<{ startup: StartupFigures; memory: MemoryFigures }> {
  const runs = num('oneshot-runs')
  const hello = await buildHello(dir)
  progress(`part 2: one-shot pairs, ${runs} runs per side; then the daemon's RSS around ${num('memory-calls')} calls`)
  const startup = await measureStartup(
    {
      version: { name: 'mcpx --version', argv: [binary, '--version'], env: daemon.env, expect: '.' },
      call: {
        name: `mcpx call ${NS}.echo (warm daemon)`,
        argv: [binary, 'call', `${NS}.echo`, 'message=hello'],
        env: daemon.env,
        expect: 'Echo: hello',
      },
      mcporterCall: {
        name: 'mcporter call echo-ka.echo (keep-alive daemon)',
        argv: mcporter.argv('echo-ka', 'echo'),
        env: mcporter.env,
        expect: 'Echo: hello',
      },
      hello: { name: 'bun-compiled hello', argv: [hello], env: daemon.env, expect: 'hello' },
    },
    runs,
  )
  const raw = await httpClient(`${daemon.baseUrl}/mcp?codemode=false`, daemon.token)
  clients.push(raw)
  // The daemon's own idle collection (lib/daemon/idle-trim.ts), as its environment sets it.
  const idleGcMs = resolveSettings(daemon.env).daemonIdleGcMs
  const daemonMemory = await measureDaemonMemory(
    daemon.pid,
    () => raw.callTool({ name: `${NS}_echo`, arguments: { message: 'hello' } }),
    num('memory-calls'),
    num('idle-ms'),
    idleGcMs,
  )
  const floor = await measureFloorMemory(
    dir,
    ECHO_SERVER,
    async (url) => {
      const client = await httpClient(url)
      return { call: () => client.callTool({ name: 'echo', arguments: { message: 'hello' } }), close: () => client.close() }
    },
    num('memory-calls'),
    // As long idle as the daemon's last reading.
    num('idle-ms') + idleGcMs,
  )
  const afterCodeModeHost = await measureAfterCodeModeHost(
    daemon.pid,
    async () => {
      const host = await httpClient(`${daemon.baseUrl}/mcp`, daemon.token)
      await host.listTools()
      await host.close()
    },
    num('idle-ms'),
    idleGcMs,
  )
  return { startup, memory: { ...daemonMemory, floor, afterCodeModeHost } }
}

/** The binary, a daemon that pools just the echo server, and mcporter's keep-alive peer: the set-up of a part run alone. */
async function echoOnly() {
  progress(`temp dir ${dir}; building the binary`)
  const binary = await buildBinary(dir)
  const daemon = await startMcpxDaemon(binary, dir, { [NS]: { command: NODE, args: [ECHO_SERVER] } })
  cleanups.push(() => daemon.stop())
  const mcporter = mcporterPeer(dir)
  cleanups.push(() => mcporter.stop())
  return { binary, daemon, mcporter }
}

/** `--only startup`: part 2 alone, against a daemon that pools just the echo server. */
async function mainStartup(): Promise<StartupOnlyReport> {
  const { binary, daemon, mcporter } = await echoOnly()
  const { startup, memory } = await startupAndMemory(binary, daemon, mcporter)
  return {
    when: new Date().toISOString(),
    machine: await machine(),
    flags: { oneshotRuns: num('oneshot-runs'), memoryCalls: num('memory-calls'), idleMs: num('idle-ms') },
    startup,
    memory,
  }
}

/** `--only stdio`: part 4 alone, against a daemon that pools just the echo server. */
async function mainStdio(): Promise<StdioOnlyReport> {
  const { daemon, mcporter } = await echoOnly()
  const stdio = await stdioPaths(daemon, mcporter)
  return {
    when: new Date().toISOString(),
    machine: await machine(),
    flags: { calls: num('calls'), block: num('block'), warmup: num('warmup'), daemonWarmup: num('daemon-warmup') },
    stdio,
  }
}

/**
 * Part 1a, each server's own CPU per call, after a fifth as many warm-up calls (unwarmed, the
 * daemon's figure includes JSC compiling its hot path on background threads of the same process:
 * measured 208 µs per call over a fresh daemon's first 10,000 calls, 141-171 after).
 */
async function ownCpu(cpuTargets: readonly { name: string; pid: number; call: () => Promise<void> }[]): Promise<OwnCpuPerCall[]> {
  const cpuOwnCalls = num('cpu-calls')
  const cpuWarmup = Math.ceil(cpuOwnCalls / 5)
  progress(`part 1a: CPU of each server's own process, ${cpuWarmup} warm-up then ${cpuOwnCalls} calls each in interleaved blocks of 500`)
  for (const target of cpuTargets) for (let i = 0; i < cpuWarmup; i++) await target.call()
  return ownCpuPerCall(cpuTargets, cpuOwnCalls, 500)
}

const RELAY_FLOOR_DESCRIPTION =
  'SDK client → minimal bun HTTP→stdio relay (no validation, sessions or auth), placed in sessions as the daemon is → stdio upstream'
const RELAY_FLOOR_SHARED_DESCRIPTION = "the same relay floor, it and its upstream in the bench's own session (with the client)"

const toolCall = (client: Client, name: string, args: Record<string, unknown>) => async () => {
  const result = await client.callTool({ name, arguments: args })
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result).slice(0, 300)}`)
}

/** Part 1's interleaved latency blocks over `targets`, and a ratio row between any two of them by name. */
async function measureLatency(targets: Parameters<typeof measurePersistent>[0], calls: number) {
  const persistent = await measurePersistent(targets, { calls, block: num('block'), warmup: num('warmup') })
  const byName = Object.fromEntries(persistent.map((r) => [r.name, r]))
  const ratios = (a: string, b: string) => ratioRow(byName[a]!, byName[b]!)
  return { persistent, ratios }
}

/** `--only mcp`: part 1a and the paired /mcp?codemode=false vs relay-floor blocks, optionally against a baseline binary. */
async function mainMcp(): Promise<McpOnlyReport> {
  const { daemon } = await echoOnly()
  const relay: Peer = await startRelayFloor('daemon')
  cleanups.push(() => relay.stop())
  const relayShared: Peer = await startRelayFloor('shared')
  cleanups.push(() => relayShared.stop())
  const raw = await httpClient(`${daemon.baseUrl}/mcp?codemode=false`, daemon.token)
  const relaySdk = await httpClient(relay.url)
  const relaySharedSdk = await httpClient(relayShared.url)
  clients.push(raw, relaySdk, relaySharedSdk)
  const targets: Array<CallTarget & { pid: number }> = [
    {
      name: 'mcpx-raw',
      describe: `SDK client → daemon /mcp?codemode=false \`${NS}_echo\` → stdio upstream`,
      pid: daemon.pid,
      call: toolCall(raw, `${NS}_echo`, { message: 'hello' }),
    },
    {
      name: 'relay-floor',
      describe: RELAY_FLOOR_DESCRIPTION,
      pid: relay.pid,
      call: toolCall(relaySdk, 'echo', { message: 'hello' }),
    },
    {
      name: 'relay-floor-shared',
      describe: RELAY_FLOOR_SHARED_DESCRIPTION,
      pid: relayShared.pid,
      call: toolCall(relaySharedSdk, 'echo', { message: 'hello' }),
    },
  ]
  if (flags.baseline !== undefined) {
    const baseline = await startMcpxDaemon(flags.baseline, mkdtempSync(join(dir, 'baseline-')), {
      [NS]: { command: NODE, args: [ECHO_SERVER] },
    })
    cleanups.push(() => baseline.stop())
    const client = await httpClient(`${baseline.baseUrl}/mcp?codemode=false`, baseline.token)
    clients.push(client)
    targets.push({
      name: 'mcpx-raw-baseline',
      describe: `the same path through a daemon of ${flags.baseline}`,
      pid: baseline.pid,
      call: toolCall(client, `${NS}_echo`, { message: 'hello' }),
    })
  }
  const daemonCpu = await ownCpu(targets)
  const calls = num('calls')
  progress(`part 1: ${calls} calls per target, blocks of ${num('block')}, warm-up ${num('warmup')}`)
  const { persistent, ratios } = await measureLatency(targets, calls)
  const persistentRatios = [
    ratios('mcpx-raw', 'relay-floor'),
    ratios('mcpx-raw', 'relay-floor-shared'),
    ratios('relay-floor', 'relay-floor-shared'),
  ]
  if (flags.baseline !== undefined)
    persistentRatios.push(ratios('mcpx-raw-baseline', 'relay-floor'), ratios('mcpx-raw', 'mcpx-raw-baseline'))
  return {
    when: new Date().toISOString(),
    machine: await machine(),
    flags: { calls, block: num('block'), warmup: num('warmup'), cpuCalls: num('cpu-calls') },
    persistent,
    persistentRatios,
    daemonCpu,
  }
}

async function main(): Promise<BenchReport> {
  progress(`temp dir ${dir}; building the binary`)
  const binary = await buildBinary(dir)

  // The upstreams of the daemon: the echo server, plus the servers the gateway e2e tests use
  // (for the tools/list size comparison only).
  const servers = {
    [NS]: { command: NODE, args: [ECHO_SERVER] },
    up: { command: process.execPath, args: [join(REPO, 'test/fixtures/peers/gateway-upstream-fixture.ts')] },
    ev: { command: process.execPath, args: [join(REPO, 'test/fixtures/everything/main.ts'), '--stdio'] },
  }
  progress('starting the mcpx daemon, supergateway and clients')
  const daemon: McpxDaemon = await startMcpxDaemon(binary, dir, servers)
  cleanups.push(() => daemon.stop())
  const supergateway: Peer = await startSupergateway(dir)
  cleanups.push(() => supergateway.stop())
  const mcporter: Mcporter = mcporterPeer(dir)
  cleanups.push(() => mcporter.stop())
  const floor: Peer = await startHttpFloor()
  cleanups.push(() => floor.stop())
  const relay: Peer = await startRelayFloor('daemon')
  cleanups.push(() => relay.stop())
  const relayShared: Peer = await startRelayFloor('shared')
  cleanups.push(() => relayShared.stop())

  const { client: direct, pid: directPid } = await directClient(dir)
  const raw = await httpClient(`${daemon.baseUrl}/mcp?codemode=false`, daemon.token)
  const codeMode = await httpClient(`${daemon.baseUrl}/mcp`, daemon.token)
  const sg = await httpClient(supergateway.url)
  const floorSdk = await httpClient(floor.url)
  const relaySdk = await httpClient(relay.url)
  const relaySharedSdk = await httpClient(relayShared.url)
  clients.push(direct, raw, codeMode, sg, floorSdk, relaySdk, relaySharedSdk)
  const floorBody = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'echo', arguments: { message: 'hello' } },
  })
  const floorFetch = async () => {
    const response = await fetch(floor.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: floorBody,
    })
    if (!response.ok) throw new Error(`http floor answered ${response.status}`)
    await response.json()
  }

  const call = toolCall
  const targets: CallTarget[] = [
    { name: 'direct', describe: 'SDK client → echo upstream over stdio', call: call(direct, 'echo', { message: 'hello' }) },
    {
      name: 'mcpx-raw',
      describe: `SDK client → daemon /mcp?codemode=false \`${NS}_echo\` → stdio upstream`,
      call: call(raw, `${NS}_echo`, { message: 'hello' }),
    },
    {
      name: 'mcpx-call',
      describe: `SDK client → daemon /mcp \`mcpx_call\` {tool: "${NS}.echo"} → stdio upstream`,
      call: call(codeMode, 'mcpx_call', { tool: `${NS}.echo`, arguments: { message: 'hello' } }),
    },
    {
      name: 'supergateway',
      describe: 'SDK client → supergateway --stateful (Streamable HTTP) → stdio upstream',
      call: call(sg, 'echo', { message: 'hello' }),
    },
    {
      name: 'http-floor-sdk',
      describe: 'SDK client → canned-JSON bun HTTP server, no upstream (SDK HTTP client + loopback floor)',
      call: call(floorSdk, 'echo', { message: 'hello' }),
    },
    { name: 'http-floor-fetch', describe: 'bare fetch POST → the same canned-JSON server (loopback HTTP floor)', call: floorFetch },
    { name: 'relay-floor', describe: RELAY_FLOOR_DESCRIPTION, call: call(relaySdk, 'echo', { message: 'hello' }) },
    { name: 'relay-floor-shared', describe: RELAY_FLOOR_SHARED_DESCRIPTION, call: call(relaySharedSdk, 'echo', { message: 'hello' }) },
  ]
  const cpuOwnCalls = num('cpu-calls')
  const byTarget = Object.fromEntries(targets.map((t) => [t.name, t]))
  const daemonCpu: OwnCpuPerCall[] = await ownCpu([
    { name: 'mcpx-raw', pid: daemon.pid, call: byTarget['mcpx-raw']!.call },
    { name: 'relay-floor', pid: relay.pid, call: byTarget['relay-floor']!.call },
    { name: 'relay-floor-shared', pid: relayShared.pid, call: byTarget['relay-floor-shared']!.call },
  ])
  const calls = num('calls')
  progress(`part 1: ${calls} calls per target, blocks of ${num('block')}, warm-up ${num('warmup')}`)
  const { persistent, ratios } = await measureLatency(targets, calls)
  const cpuCalls = Math.max(200, Math.min(calls, 1000))
  progress(`part 1b: CPU per call, ${cpuCalls} calls per target in interleaved blocks of 100`)
  const serverRoot: Record<string, number> = {
    direct: directPid,
    'mcpx-raw': daemon.pid,
    'mcpx-call': daemon.pid,
    supergateway: supergateway.pid,
    'http-floor-sdk': floor.pid,
    'http-floor-fetch': floor.pid,
    'relay-floor': relay.pid,
    'relay-floor-shared': relayShared.pid,
  }
  const cpu: CpuPerCall[] = await cpuPerCall(
    targets.map((t) => ({ name: t.name, serverRoot: serverRoot[t.name]!, call: t.call })),
    cpuCalls,
    100,
  )
  const persistentRatios = [
    ratios('mcpx-raw', 'direct'),
    ratios('mcpx-call', 'direct'),
    ratios('mcpx-raw', 'supergateway'),
    ratios('mcpx-call', 'supergateway'),
    ratios('supergateway', 'direct'),
    ratios('http-floor-sdk', 'direct'),
    ratios('http-floor-fetch', 'direct'),
    ratios('relay-floor', 'direct'),
    ratios('mcpx-raw', 'relay-floor'),
    ratios('mcpx-raw', 'relay-floor-shared'),
    ratios('relay-floor', 'relay-floor-shared'),
    ratios('mcpx-raw', 'http-floor-sdk'),
  ]

  const { startup, memory } = await startupAndMemory(binary, daemon, mcporter)

  progress('part 3: code mode')
  const sandbox = await measureSandbox(binary, num('batch-calls'))
  const search = measureSearchFigures(num('search-tools'))
  const execOverMcp = await measureExecOverMcp(codeMode)
  const batch = await measureBatch(direct, raw, codeMode, NS, num('batch-calls'), num('batch-reps'))
  const listAll = await measureListBytes(codeMode, raw, Object.keys(servers))
  const stdio = await stdioPaths(daemon, mcporter)

  return {
    when: new Date().toISOString(),
    machine: await machine(),
    flags: {
      calls,
      block: num('block'),
      warmup: num('warmup'),
      cpuCalls: cpuOwnCalls,
      daemonWarmup: num('daemon-warmup'),
      oneshotRuns: num('oneshot-runs'),
      memoryCalls: num('memory-calls'),
      idleMs: num('idle-ms'),
      batchCalls: num('batch-calls'),
      batchReps: num('batch-reps'),
      searchTools: num('search-tools'),
    },
    persistent,
    persistentRatios,
    cpu,
    daemonCpu,
    startup,
    memory,
    sandbox,
    execOverMcp,
    search,
    batch,
    listBytes: listAll,
    stdio,
  }
}

let cleaning: Promise<void> | undefined
/** Stop everything the run started, once: a signal and main()'s own failure may both ask. */
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const client of clients) await client.close().catch(() => {})
    for (const step of cleanups.reverse()) {
      try {
        await step()
      } catch (error) {
        progress(`cleanup: ${(error as Error).message}`)
      }
    }
    rmSync(dir, { recursive: true, force: true })
  })()
  return cleaning
}

// The daemon and supergateway run detached: an interrupted run must still stop them.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    progress(`${signal}: stopping what the run started`)
    void cleanup().finally(() => process.exit(130))
  })
}

let report: BenchReport | McpOnlyReport | StdioOnlyReport | StartupOnlyReport | { replicas: ReplicaFigures }
let replicaFigures: ReplicaFigures | undefined
try {
  if (flags.only === 'cluster') report = { replicas: (replicaFigures = await replicas()) }
  else if (flags.only === 'startup') report = await mainStartup()
  else if (flags.only === 'mcp') report = await mainMcp()
  else {
    report = flags.only === 'stdio' ? await mainStdio() : await main()
    if (flags.only === 'all') report = { ...report, replicas: (replicaFigures = await replicas()) }
  }
} catch (error) {
  const interrupted = cleaning !== undefined
  await cleanup()
  if (interrupted) await new Promise(() => {}) // the signal handler exits once cleanup is done
  throw error
}
await cleanup()
if (flags.out) writeFileSync(flags.out, `${JSON.stringify(report, null, 2)}\n`)
const markdown = () =>
  (flags.only === 'cluster'
    ? ''
    : flags.only === 'stdio'
      ? renderStdioOnly(report as StdioOnlyReport)
      : flags.only === 'startup'
        ? renderStartupOnly(report as StartupOnlyReport)
        : flags.only === 'mcp'
          ? renderMcpOnly(report as McpOnlyReport)
          : renderMarkdown(report as BenchReport)) + (replicaFigures ? renderReplicas(replicaFigures) : '')
process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : markdown())
