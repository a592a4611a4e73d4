/**
 * `perf record` attached to one process while the bench makes its calls: what native-profile.ts
 * (CPU samples) and critical-path.ts (syscall tracepoints) both do. Needs `perf` (Debian: linux-perf)
 * and permission to attach to the process.
 */

/** How long perf gets to attach before the first measured call. */
const PERF_ATTACH_WAIT_MS = 1000

/** Exit 2 with a one-line message when perf is not installed (`tool` names the script). */
export function requirePerf(tool: string): void {
  if (Bun.which('perf') !== null) return
  console.error(`${tool}: perf is not installed (Debian: apt-get install -y linux-perf)`)
  process.exit(2)
}

/** Record process `pid` into `data` with `options` (`-e …`, `-F …`, `-g`) while `run` makes its calls. */
export async function recordWhile(pid: number, options: readonly string[], data: string, run: () => Promise<void>): Promise<void> {
  const perf = Bun.spawn(['perf', 'record', ...options, '-p', String(pid), '-o', data], { stdout: 'ignore', stderr: 'pipe' })
  await Bun.sleep(PERF_ATTACH_WAIT_MS)
  await run()
  perf.kill('SIGINT')
  await perf.exited
  // perf exits non-zero after SIGINT even when it wrote its file; its report line says whether it did.
  const report = await new Response(perf.stderr).text()
  if (!report.includes('Captured and wrote')) throw new Error(`perf record failed: ${report.trim()}`)
}
