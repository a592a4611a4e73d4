/**
 * What the idle page-out (lib/daemon/page-out.ts) costs the call that ends a quiet period. Two
 * daemons of one binary, one with the page-out and one with it off (daemonIdlePageOutSliceMb 0),
 * each serve 1,000 `/mcp?codemode=false` calls through the SDK client, then `--rounds` times: idle
 * long enough for the idle collection and page-out, read the RSS, time the first call and the
 * second, count the page faults each took (/proc/<pid>/stat), then 200 more calls.
 * Usage: bun scripts/bench/idle-return.ts [--binary path] [--rounds 3]. Markdown on stdout.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { resolveSettings } from '../../lib/settings/index.ts'
import { ECHO_SERVER, NODE, buildBinary, httpClient, startMcpxDaemon } from './peers.ts'
import { integerFlag } from './flags.ts'
import { fmt } from './stats.ts'

const { values: flags } = parseArgs({ options: { binary: { type: 'string' }, rounds: { type: 'string', default: '3' } } })
const rounds = integerFlag('rounds', flags.rounds)
const CALLS_BEFORE = 1000
const CALLS_BETWEEN = 200
/** Past the idle collection: the page-out runs right after it, in slices of about a millisecond each. */
const AFTER_TRIM_MS = 2000
const idleMs = resolveSettings({}).daemonIdleGcMs + AFTER_TRIM_MS

/** Minor and major faults of a process so far (/proc/<pid>/stat fields 10 and 12). */
function faults(pid: number): { minor: number; major: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return { minor: Number(fields[7]), major: Number(fields[9]) }
}
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024

const dir = mkdtempSync(join(tmpdir(), 'mcpx-idle-return-'))
try {
  const binary = flags.binary ?? (await buildBinary(dir))
  console.log(`## The call after a quiet period (${new Date().toISOString()}, ${idleMs} ms idle before each)\n`)
  console.log('| page-out | round | idle RSS | first call | its faults (minor/major) | second call | RSS after 200 more |')
  console.log('|---|---|---|---|---|---|---|')
  for (const [label, env] of [
    ['on', {}],
    ['off', { MCPX_DAEMON_IDLE_PAGE_OUT_SLICE_MB: '0' }],
  ] as const) {
    const home = mkdtempSync(join(dir, `daemon-${label}-`))
    const daemon = await startMcpxDaemon(binary, home, { echo: { command: NODE, args: [ECHO_SERVER] } }, env)
    const client = await httpClient(`${daemon.baseUrl}/mcp?codemode=false`, daemon.token)
    const call = () => client.callTool({ name: 'echo_echo', arguments: { message: 'hello' } })
    try {
      for (let i = 0; i < CALLS_BEFORE; i++) await call()
      for (let round = 1; round <= rounds; round++) {
        await Bun.sleep(idleMs)
        const idleRss = rssMb(daemon.pid)
        const before = faults(daemon.pid)
        const firstStarted = performance.now()
        await call()
        const firstMs = performance.now() - firstStarted
        const after = faults(daemon.pid)
        const secondStarted = performance.now()
        await call()
        const secondMs = performance.now() - secondStarted
        for (let i = 0; i < CALLS_BETWEEN; i++) await call()
        const faulted = `${after.minor - before.minor}/${after.major - before.major}`
        console.log(
          `| ${label} | ${round} | ${fmt(idleRss, 1)} MB | ${fmt(firstMs)} ms | ${faulted} | ${fmt(secondMs)} ms | ${fmt(rssMb(daemon.pid), 1)} MB |`,
        )
      }
    } finally {
      await client.close()
      await daemon.stop()
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
