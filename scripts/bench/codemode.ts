/**
 * Part 3: code mode. In-process sandbox figures come from lib/codemode's and lib/search's own
 * helpers; the end-to-end figures go through the running daemon: one mcpx_exec whose script makes
 * `calls` sequential echo calls, against the same number of direct stdio calls and of host calls
 * over /mcp, alternated `reps` times; and the byte size of tools/list on both /mcp surfaces.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  type LatencySummary,
  createSandboxPool,
  echoBridge,
  measureExecStart,
  measureToolCalls,
  summarize,
} from '../../lib/codemode/index.ts'
import { type SearchBench, measureSearch } from '../../lib/search/index.ts'
import { defaultSettings } from '../../lib/settings/index.ts'
import { median } from './stats.ts'

/**
 * Idle time before each timed exec in the "warm" figure: the child rebuilds its spare QuickJS
 * instances after each exec (a fresh wasm Memory per exec is the memory cap), so back-to-back execs
 * measure that rebuild rate instead; an agent's execs are a model round trip apart.
 */
export const EXEC_IDLE_MS = 20

export interface SandboxFigures {
  /** `return 1` with the spares rebuilt (EXEC_IDLE_MS idle before each run). */
  readonly execStart: LatencySummary
  /** `return 1` back to back (lib/codemode's measureExecStart): bounded by the instance rebuild. */
  readonly execStartBackToBack: LatencySummary
  readonly toolCalls: { sequentialMs: number; parallelMs: number; calls: number }
}

/** Warm exec start and 1000 bridge calls in a pool whose children are the compiled binary. */
export async function measureSandbox(binary: string, calls: number): Promise<SandboxFigures> {
  await using pool = createSandboxPool(defaultSettings(), { command: [binary, 'sandbox-child'] })
  const execStartBackToBack = await measureExecStart(pool, 50, 10)
  const bridge = echoBridge()
  const samples: number[] = []
  for (let i = 0; i < 50; i++) {
    await Bun.sleep(EXEC_IDLE_MS)
    const start = performance.now()
    await pool.exec('return 1', bridge)
    samples.push(performance.now() - start)
  }
  const toolCalls = await measureToolCalls(pool, calls)
  return { execStart: summarize(samples), execStartBackToBack, toolCalls }
}

/** `mcpx_exec` of `return 1` through the daemon's /mcp (HTTP + MCP + sandbox), idle before each. */
export async function measureExecOverMcp(codeMode: Client, runs = 30): Promise<LatencySummary> {
  const samples: number[] = []
  for (let i = 0; i < runs + 5; i++) {
    await Bun.sleep(EXEC_IDLE_MS)
    const start = performance.now()
    const result = await codeMode.callTool({ name: 'mcpx_exec', arguments: { code: 'return 1' } })
    if (i >= 5) samples.push(performance.now() - start)
    if (result.isError) throw new Error(`mcpx_exec failed: ${JSON.stringify(result).slice(0, 300)}`)
  }
  return summarize(samples)
}

export function measureSearchFigures(tools: number): SearchBench {
  measureSearch(1_000, 2) // warm the JIT on a small corpus first
  return measureSearch(tools, 20)
}

export interface BatchFigures {
  readonly calls: number
  readonly reps: number
  /** Median wall of `calls` sequential direct stdio calls. */
  readonly directMs: number
  /** Median wall of `calls` sequential host calls to <ns>_echo over /mcp?codemode=false. */
  readonly hostRawMs: number
  /** Median wall of ONE mcpx_exec whose script makes `calls` sequential echo calls. */
  readonly execMs: number
}

export async function measureBatch(
  direct: Client,
  raw: Client,
  codeMode: Client,
  ns: string,
  calls: number,
  reps: number,
): Promise<BatchFigures> {
  const code = `for (let i = 0; i < ${calls}; i++) { const r = await ${ns}.echo({ message: 'hello' }); if (i === 0 && !JSON.stringify(r).includes('Echo: hello')) throw new Error('bad echo') } return ${calls}`
  const timeLoop = async (client: Client, name: string) => {
    const start = performance.now()
    for (let i = 0; i < calls; i++) await client.callTool({ name, arguments: { message: 'hello' } })
    return performance.now() - start
  }
  const timeExec = async () => {
    const start = performance.now()
    const result = await codeMode.callTool({ name: 'mcpx_exec', arguments: { code } }, undefined, { timeout: 120_000 })
    const elapsed = performance.now() - start
    if (result.isError || !JSON.stringify(result.content).includes(String(calls)))
      throw new Error(`mcpx_exec failed: ${JSON.stringify(result).slice(0, 400)}`)
    return elapsed
  }
  await timeExec() // warm the sandbox and the upstream path
  const d: number[] = []
  const h: number[] = []
  const e: number[] = []
  for (let r = 0; r < reps; r++) {
    d.push(await timeLoop(direct, 'echo'))
    e.push(await timeExec())
    h.push(await timeLoop(raw, `${ns}_echo`))
  }
  return { calls, reps, directMs: median(d), hostRawMs: median(h), execMs: median(e) }
}

export interface ListBytes {
  readonly servers: string[]
  readonly codeModeBytes: number
  readonly codeModeTools: number
  readonly rawBytes: number
  readonly rawTools: number
  /** Bytes per code-mode tool (where the budget goes). */
  readonly codeModePerTool: Record<string, number>
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8')

/** Compact `JSON.stringify(result.tools)` in UTF-8 (what a host holds in its context for the list), both surfaces. */
export async function measureListBytes(codeMode: Client, raw: Client, servers: string[]): Promise<ListBytes> {
  const cm = (await codeMode.listTools()).tools
  const rw = (await raw.listTools()).tools
  return {
    servers,
    codeModeBytes: bytes(cm),
    codeModeTools: cm.length,
    rawBytes: bytes(rw),
    rawTools: rw.length,
    codeModePerTool: Object.fromEntries(cm.map((t) => [t.name, bytes(t)])),
  }
}
