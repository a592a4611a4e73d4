/**
 * Part 4: what a desktop host waits for per call through each stdio path, the SDK 1.x client under
 * node (stdio-paths.mjs) against the same echo server: straight to it; through the byte-pump floor
 * (two bun pumps and a Unix socket, byte-pump.ts); through `mcpx serve --mode raw` (the shim and the
 * daemon's stdio engine); through `mcporter serve --stdio` (its keep-alive daemon). Paired blocks.
 */
import { join } from 'node:path'
import { ECHO_SERVER, MCPORTER, NODE, REPO, isolatedEnv, type McpxDaemon, type Mcporter } from './peers.ts'
import { type RatioRow, type TargetResult, ratioRow } from './persistent.ts'
import { quantile, ratio } from './stats.ts'

export interface StdioFigures {
  readonly targets: TargetResult[]
  readonly ratios: RatioRow[]
  /** The daemon's warm-up through `mcpx serve` before the measured blocks, and the p50 of its first calls. */
  readonly daemonWarmup: {
    readonly calls: number
    readonly firstCalls: number
    readonly firstP50Us: number
    readonly firstPumpRatio: number
  }
}

export interface StdioOptions {
  readonly dir: string
  readonly daemon: McpxDaemon
  readonly mcporter: Mcporter
  /** Namespace of the echo server in the daemon's config. */
  readonly ns: string
  readonly calls: number
  readonly block: number
  readonly warmup: number
  /**
   * Sequential calls through `mcpx serve --mode raw` before the common warm-up: the daemon's hot
   * path reaches JSC's optimising tiers only after thousands of calls (a fresh daemon's first
   * 1000 calls measured ~2× slower than after 20,000 on this machine), and the target is the
   * steady state a long-lived daemon serves hosts in. The first 1000 are reported beside it.
   */
  readonly daemonWarmup: number
}

const DESCRIBE: Record<string, string> = {
  direct: 'node SDK client → echo server over stdio',
  'pump-floor': 'node SDK client → bun pump → Unix socket → bun pump → echo server stdio (no parsing)',
  'serve-raw': 'node SDK client → `mcpx serve --mode raw` → channel → daemon stdio engine → echo server',
  'mcporter-serve': 'node SDK client → `mcporter serve --stdio` → its keep-alive daemon → echo server',
}

export async function measureStdioPaths(options: StdioOptions): Promise<StdioFigures> {
  const socket = join(options.dir, 'pump.sock')
  const pump = Bun.spawn([process.execPath, join(REPO, 'scripts/bench/byte-pump.ts'), 'listen', socket, '--', NODE, ECHO_SERVER], {
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'inherit',
  })
  try {
    const reader = pump.stdout.getReader()
    const { value } = await reader.read()
    if (!new TextDecoder().decode(value).includes('ready')) throw new Error('byte pump did not start')
    reader.releaseLock()
    const env = isolatedEnv(options.dir)
    const targets = [
      { name: 'direct', command: NODE, args: [ECHO_SERVER], env, tool: 'echo' },
      {
        name: 'pump-floor',
        command: process.execPath,
        args: [join(REPO, 'scripts/bench/byte-pump.ts'), 'connect', socket],
        env,
        tool: 'echo',
      },
      {
        name: 'serve-raw',
        command: options.daemon.binary,
        args: ['serve', '--mode', 'raw'],
        env: options.daemon.env,
        tool: `${options.ns}_echo`,
        preCalls: options.daemonWarmup,
      },
      {
        name: 'mcporter-serve',
        command: NODE,
        args: [MCPORTER, '--config', options.mcporter.config, 'serve', '--stdio'],
        env: options.mcporter.env,
      },
    ]
    const spec = JSON.stringify({ targets, calls: options.calls, block: options.block, warmup: options.warmup })
    const run = Bun.spawn([NODE, join(REPO, 'scripts/bench/stdio-paths.mjs'), spec], { stdout: 'pipe', stderr: 'inherit' })
    const [text, code] = await Promise.all([new Response(run.stdout).text(), run.exited])
    if (code !== 0) throw new Error(`stdio-paths.mjs failed (${code})`)
    const raw = JSON.parse(text) as { targets: { name: string; samplesUs: number[]; blockP50Us: number[]; firstBlockUs?: number[] }[] }
    const results: TargetResult[] = raw.targets.map((t) => ({
      name: t.name,
      describe: DESCRIBE[t.name] ?? t.name,
      calls: t.samplesUs.length,
      p50Us: quantile(t.samplesUs, 0.5),
      p99Us: quantile(t.samplesUs, 0.99),
      blockP50Us: t.blockP50Us,
    }))
    const by = Object.fromEntries(results.map((r) => [r.name, r]))
    const row = (a: string, b: string): RatioRow => ratioRow(by[a]!, by[b]!)
    const first = raw.targets.find((t) => t.name === 'serve-raw')?.firstBlockUs ?? []
    const firstP50Us = quantile(first, 0.5)
    return {
      daemonWarmup: {
        calls: options.daemonWarmup,
        firstCalls: first.length,
        firstP50Us,
        firstPumpRatio: ratio(firstP50Us, by['pump-floor']!.p50Us),
      },
      targets: results,
      ratios: [
        row('serve-raw', 'pump-floor'),
        row('serve-raw', 'mcporter-serve'),
        row('serve-raw', 'direct'),
        row('pump-floor', 'direct'),
        row('pump-floor', 'mcporter-serve'),
        row('mcporter-serve', 'direct'),
      ],
    }
  } finally {
    pump.stdin.end()
    pump.kill()
    await pump.exited
  }
}
