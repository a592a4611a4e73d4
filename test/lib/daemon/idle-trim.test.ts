/**
 * The idle trim (lib/daemon/idle-trim.ts): a full collection, then dropping the compiled code, once
 * per quiet period; and the daemon's FTL switch (lib/daemon/spawn.ts). The unit half runs the real
 * Bun.gc/Bun.shrink in this process; the daemon half reads a real daemon's environment and log.
 */
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { spawnEnvironment } from '../../../lib/daemon/spawn.ts'
import { type IdleTrimStage, startIdleTrim } from '../../../lib/daemon/idle-trim.ts'
import { pageOutFileMappings } from '../../../lib/daemon/page-out.ts'
import { mcpxCommand, REPO_ROOT, runMcpx, tempDir } from '../../harness.ts'
import { layoutForEnv } from '../../support/layout.ts'
import { startTestDaemon } from './daemon-process.ts'

function recorder(gcAfterMs: number, shrinkAfterMs: number) {
  let lastActive = performance.now()
  const stages: IdleTrimStage[] = []
  const trim = startIdleTrim({ gcAfterMs, shrinkAfterMs, lastActive: () => lastActive, onTrim: (stage) => stages.push(stage) })
  return {
    stages,
    touch: () => {
      lastActive = performance.now()
    },
    [Symbol.dispose]: () => trim.stop(),
  }
}

/** The lines of a daemon's stderr as they come: waitFor resolves with the first new line matching. */
function stderrLines(stream: ReadableStream<Uint8Array>) {
  const reader = stream.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let from = 0
  return {
    async waitFor(pattern: RegExp): Promise<string> {
      const deadline = performance.now() + 20_000
      for (;;) {
        const lines = text.slice(from).split('\n')
        const index = lines.slice(0, -1).findIndex((candidate) => pattern.test(candidate))
        if (index >= 0) {
          from += lines.slice(0, index + 1).join('\n').length + 1
          return lines[index]!
        }
        if (performance.now() > deadline) throw new Error(`no ${pattern} in the daemon's stderr:\n${text}`)
        const { value, done } = await reader.read()
        if (done) throw new Error(`daemon run exited: ${text}`)
        text += decoder.decode(value)
      }
    },
  }
}

/** `mcpx daemon run --verbose` in a temp home with `settings`: its stderr as lines, a health request, stopped on dispose. */
async function verboseDaemon(prefix: string, settings: Record<string, string>) {
  const dir = tempDir(prefix)
  const env = { MCPX_HOME: join(dir.path, 'home'), HOME: dir.path, XDG_CONFIG_HOME: join(dir.path, 'xdg'), ...settings }
  const proc = Bun.spawn([...mcpxCommand(), 'daemon', 'run', '--verbose'], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdin: 'ignore',
    stdout: 'ignore',
    stderr: 'pipe',
  })
  return {
    pid: proc.pid,
    env,
    log: stderrLines(proc.stderr),
    health: () => fetch('http://localhost/v1/health', { unix: layoutForEnv(env).socket } as RequestInit),
    async [Symbol.asyncDispose]() {
      proc.kill('SIGTERM')
      await proc.exited
      dir[Symbol.dispose]()
    },
  }
}

/** The code-mode sandbox processes below `root` (their command line names the sandbox-child command). */
function sandboxesOf(root: number): number[] {
  const parents = new Map<number, number>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]))
    } catch {}
  }
  const below = (pid: number): boolean => {
    for (let parent = parents.get(pid); parent !== undefined && parent > 1; parent = parents.get(parent)) if (parent === root) return true
    return false
  }
  return [...parents.keys()].filter((pid) => {
    if (!below(pid)) return false
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('sandbox-child')
    } catch {
      return false
    }
  })
}

/** Wait until `done()` holds, at most `ms` (a loaded machine delays timers, it does not reorder them). */
async function until(done: () => boolean, ms: number): Promise<void> {
  const deadline = performance.now() + ms
  while (!done() && performance.now() < deadline) await Bun.sleep(10)
}

describe('startIdleTrim', () => {
  test('a quiet period gets the collection, then the shrink, once each; new activity starts another period', async () => {
    using trim = recorder(60, 200)
    await until(() => trim.stages.length === 2, 5_000)
    expect(trim.stages).toEqual(['gc', 'shrink'])
    // Nothing more while the quiet period goes on.
    await Bun.sleep(300)
    expect(trim.stages).toEqual(['gc', 'shrink'])
    trim.touch()
    await until(() => trim.stages.length === 4, 5_000)
    expect(trim.stages).toEqual(['gc', 'shrink', 'gc', 'shrink'])
  })

  test('activity after the collection starts a new period whose collection comes on time, not at the shrink', async () => {
    // Before, the one timer was re-armed for the shrink (a minute here): the second collection waited for it.
    using trim = recorder(50, 60_000)
    await until(() => trim.stages.length === 1, 5_000)
    trim.touch()
    await until(() => trim.stages.length === 2, 5_000)
    expect(trim.stages).toEqual(['gc', 'gc'])
  })

  test('each stage is followed by a page-out of the file pages, sliced; new activity stops it', async () => {
    const reports: string[] = []
    const lastActive = performance.now()
    const trim = startIdleTrim({
      gcAfterMs: 30,
      shrinkAfterMs: 90,
      lastActive: () => lastActive,
      pageOutSliceMb: 4,
      onPageOut: (report) => reports.push(report),
    })
    try {
      await until(() => reports.length === 2, 5_000)
    } finally {
      trim.stop()
    }
    for (const report of reports) expect(report).toMatch(/^\d+ slices of file mappings advised, \d+ refused, in [\d.]+ ms$/)
    // This process maps bun's executable: well over one 4 MiB slice.
    expect(Number(reports[0]!.split(' ')[0])).toBeGreaterThan(1)
    let asked = 0
    expect(await pageOutFileMappings({ sliceMb: 1, stop: () => ++asked > 3 })).toBe('stopped by new activity after 3 slices')
  })

  test('activity more often than the delay keeps it from running; 0 turns a stage off', async () => {
    using busy = recorder(500, 0)
    const started = performance.now()
    let gap = 0
    for (let i = 0; i < 10; i++) {
      const before = performance.now()
      busy.touch()
      await Bun.sleep(20)
      gap = Math.max(gap, performance.now() - before)
    }
    // Only meaningful when no pause between two touches reached the delay.
    if (gap < 500) expect(busy.stages).toEqual([])
    await until(() => busy.stages.length > 0, 5_000)
    expect(busy.stages).toEqual(['gc'])
    expect(performance.now() - started).toBeGreaterThanOrEqual(500)
  })

  test('both stages due at once: only the shrink runs, which collects too', async () => {
    using late = recorder(30, 30)
    await until(() => late.stages.length > 0, 5_000)
    await Bun.sleep(100)
    expect(late.stages).toEqual(['shrink'])
  })
})

describe('the daemon', () => {
  test('a daemon the CLI starts runs with FTL off, unless daemonFtlJit or the variable itself says otherwise', async () => {
    expect(spawnEnvironment({ env: { PATH: '/bin' } })).toEqual({ PATH: '/bin', BUN_JSC_useFTLJIT: '0' })
    expect(spawnEnvironment({ env: { PATH: '/bin' }, ftlJit: true })).toEqual({ PATH: '/bin' })
    expect(spawnEnvironment({ env: { BUN_JSC_useFTLJIT: '1' } })).toEqual({ BUN_JSC_useFTLJIT: '1' })
    const environ = (pid: number) => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')
    {
      await using daemon = await startTestDaemon()
      expect(environ(daemon.info.pid)).toContain('BUN_JSC_useFTLJIT=0')
    }
    {
      await using daemon = await startTestDaemon({ MCPX_DAEMON_FTL_JIT: 'true' })
      expect(environ(daemon.info.pid).filter((line) => line.startsWith('BUN_JSC_useFTLJIT='))).toEqual([])
    }
  })

  test('a quiet daemon hands its clean file pages back: the clean pages only it maps fall by more than half', async () => {
    await using daemon = await verboseDaemon('mcpx-idle-page-out', { MCPX_DAEMON_IDLE_GC_MS: '1000' })
    await daemon.log.waitFor(/listening on/)
    // The clean pages only this process maps: the ones the kernel may reclaim (pages of an executable
    // another process runs too, as the test's own bun when the daemon runs from source, stay).
    const privateCleanKb = () => Number(/Private_Clean:\s+(\d+)/.exec(readFileSync(`/proc/${daemon.pid}/smaps_rollup`, 'utf8'))![1])
    const before = privateCleanKb()
    const line = await daemon.log.waitFor(/idle page-out: (\d+) slices of file mappings advised, (\d+) refused/)
    const [, advised, refused] = /(\d+) slices of file mappings advised, (\d+) refused/.exec(line)!
    expect(Number(advised) + Number(refused)).toBeGreaterThan(0)
    // A kernel without MADV_PAGEOUT (before 5.4) refuses every mapping: the daemon goes on the same.
    if (Number(advised) > 0) expect(privateCleanKb()).toBeLessThan(before / 2)
    expect((await daemon.health()).status).toBe(200)
  }, 30_000)

  test('a long-quiet daemon ends its idle sandboxes; the next exec starts one again', async () => {
    await using daemon = await verboseDaemon('mcpx-idle-sandboxes', { MCPX_DAEMON_IDLE_GC_MS: '300', MCPX_DAEMON_IDLE_SHRINK_MS: '1500' })
    await daemon.log.waitFor(/listening on/)
    const exec = () => runMcpx(['exec', '-'], { env: daemon.env, stdin: 'return 6 * 7' })
    expect((await exec()).stdout).toBe('42\n')
    expect(sandboxesOf(daemon.pid).length).toBeGreaterThan(0)
    await daemon.log.waitFor(/idle trim: shrink/)
    await until(() => sandboxesOf(daemon.pid).length === 0, 10_000)
    expect(sandboxesOf(daemon.pid)).toEqual([])
    expect((await exec()).stdout).toBe('42\n')
    expect(sandboxesOf(daemon.pid).length).toBeGreaterThan(0)
  }, 30_000)

  test('a quiet daemon collects, then drops its compiled code; a request starts a new quiet period', async () => {
    await using daemon = await verboseDaemon('mcpx-idle-trim', { MCPX_DAEMON_IDLE_GC_MS: '300', MCPX_DAEMON_IDLE_SHRINK_MS: '700' })
    await daemon.log.waitFor(/listening on/)
    // The log's lines are read in order: the shrink's line comes after the collection's.
    await daemon.log.waitFor(/idle trim: gc/)
    await daemon.log.waitFor(/idle trim: shrink/)
    expect((await daemon.health()).status).toBe(200)
    await daemon.log.waitFor(/idle trim: gc/)
    await daemon.log.waitFor(/idle trim: shrink/)
  }, 30_000)
})
