/**
 * Start-up and memory (part 2): whole-process wall time of `mcpx --version` and of a warm `mcpx call`
 * against a bun-compiled hello-world binary built in the run's temp dir (the floor any compiled
 * bun program pays to start), as alternated A/B pairs (oneshot.ts), with warm `mcporter call`
 * beside them; and the daemon process's resident memory, idle after a number of calls, with its
 * children (upstreams, sandbox workers) reported separately. Linux /proc only.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Command, type PairResult, measurePair } from './oneshot.ts'

/**
 * The floor: the one-line hello world, with console.log (Bun's native writer). Writing through
 * process.stdout instead builds Node's stream objects and costs about as much again as the
 * whole program, so a hello that did would be a floor mcpx could pass by avoiding that.
 */
const HELLO_SOURCE = "console.log('hello')\n"

/** Plain `bun build --compile` of the hello world, in `dir` (the same bun as mcpx's build). */
export async function buildHello(dir: string): Promise<string> {
  const source = join(dir, 'hello.ts')
  const outfile = join(dir, 'hello')
  writeFileSync(source, HELLO_SOURCE)
  const proc = Bun.spawn([process.execPath, 'build', '--compile', source, '--outfile', outfile], {
    cwd: dir,
    stdout: 'ignore',
    stderr: 'pipe',
  })
  const code = await proc.exited
  if (code !== 0) throw new Error(`hello build failed (${code}): ${await new Response(proc.stderr).text()}`)
  return outfile
}

export interface StartupFigures {
  readonly versionVsHello: PairResult
  readonly callVsHello: PairResult
  readonly callVsMcporter: PairResult
}

export async function measureStartup(
  commands: { version: Command; call: Command; mcporterCall: Command; hello: Command },
  runs: number,
): Promise<StartupFigures> {
  return {
    versionVsHello: await measurePair(commands.version, commands.hello, runs),
    callVsHello: await measurePair(commands.call, commands.hello, runs),
    callVsMcporter: await measurePair(commands.call, commands.mcporterCall, runs),
  }
}

/** Resident memory of one process, from /proc/<pid>/status (kB → MB). */
export interface Rss {
  /** VmRSS: everything resident. */
  readonly totalMb: number
  /** RssAnon: heap, stacks, JIT code — what the process itself allocated. */
  readonly anonMb: number
  /** RssFile: pages of the executable and other mapped files (shared with every process mapping them). */
  readonly fileMb: number
  /** Pss (smaps_rollup): each page divided by the processes mapping it, what this process costs the machine. */
  readonly pssMb: number
}

export function readRss(pid: number): Rss | null {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? Number.NaN)
    const mb = (value: number) => Math.round((value / 1024) * 10) / 10
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')
    const pssKb = Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? Number.NaN)
    return { totalMb: mb(kb('VmRSS')), anonMb: mb(kb('RssAnon')), fileMb: mb(kb('RssFile') + kb('RssShmem')), pssMb: mb(pssKb) }
  } catch {
    return null
  }
}

/** Every live descendant of `root` (not `root` itself). */
export function descendants(root: number): number[] {
  const parents = new Map<number, number[]>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const text = readFileSync(`/proc/${name}/stat`, 'utf8')
      const ppid = Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1])
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(name)])
    } catch {
      // Gone while listing.
    }
  }
  const found: number[] = []
  const stack = [...(parents.get(root) ?? [])]
  while (stack.length) {
    const pid = stack.pop()!
    found.push(pid)
    stack.push(...(parents.get(pid) ?? []))
  }
  return found
}

/**
 * The memory floor of any bun daemon doing this job: scripts/bench/relay-floor.ts (a minimal
 * HTTP→stdio relay, no validation, sessions or auth) compiled like mcpx, idle after the same
 * number of calls through the SDK client, measured the same way.
 */
export async function measureFloorMemory(
  dir: string,
  echoServer: string,
  connect: (url: string) => Promise<{ call(): Promise<unknown>; close(): Promise<void> }>,
  calls: number,
  idleMs: number,
): Promise<Rss> {
  const outfile = join(dir, 'relay-floor')
  const build = Bun.spawn([process.execPath, 'build', '--compile', join(import.meta.dir, 'relay-floor.ts'), '--outfile', outfile], {
    stdout: 'ignore',
    stderr: 'pipe',
  })
  if ((await build.exited) !== 0) throw new Error(`relay floor build failed: ${await new Response(build.stderr).text()}`)
  const child = Bun.spawn([outfile, echoServer], { stdin: 'pipe', stdout: 'pipe', stderr: 'inherit' })
  try {
    const reader = child.stdout.getReader()
    let text = ''
    while (!text.includes('\n')) {
      const { value, done } = await reader.read()
      if (done) throw new Error('the compiled relay floor exited before announcing its URL')
      text += new TextDecoder().decode(value)
    }
    const { url } = JSON.parse(text.slice(0, text.indexOf('\n'))) as { url: string }
    const client = await connect(url)
    for (let i = 0; i < calls; i++) await client.call()
    await client.close()
    await Bun.sleep(idleMs)
    const rss = readRss(child.pid)
    if (rss === null) throw new Error('the compiled relay floor exited during the calls')
    return rss
  } finally {
    child.stdin.end()
    await child.exited
  }
}

export interface MemoryFigures {
  readonly calls: number
  readonly idleMs: number
  /** The daemon process alone, idle before the calls. */
  readonly before: Rss
  /** The daemon process alone, idle after the calls. */
  readonly after: Rss
  /**
   * The same, once its idle collection ran (setting daemonIdleGcMs, lib/daemon/idle-trim.ts): read
   * `idleGcMs + idleMs` after the calls. The target is read here: the daemon has been idle that long.
   */
  readonly afterIdleGc?: Rss
  readonly idleGcMs?: number
  /** Its children after the calls (upstreams over stdio, sandbox workers), summed VmRSS. */
  readonly childrenMb: number
  readonly childCount: number
  /** Of those, the code-mode sandbox processes (`mcpx sandbox-child`, the pool keeps them warm). */
  readonly sandboxMb: number
  readonly sandboxCount: number
  /** The compiled relay floor after the same calls (measureFloorMemory). */
  readonly floor?: Rss
  /** After that, a code-mode host came and went (its first request starts the sandboxes) and the daemon idled again. */
  readonly afterCodeModeHost?: CodeModeHostFigures
}

export interface CodeModeHostFigures {
  readonly daemon: Rss
  readonly sandboxMb: number
  readonly sandboxCount: number
  /** How long after the host left the daemon was read (two idle-trim delays and `idleMs`). */
  readonly idleMs: number
}

/**
 * `calls` sequential calls through `call`, then `idleMs` of idle, then the daemon's RSS; with
 * `idleGcMs`, once more when the daemon's idle collection has run (`idleMs` after it was due).
 */
export async function measureDaemonMemory(
  pid: number,
  call: () => Promise<unknown>,
  calls: number,
  idleMs: number,
  idleGcMs = 0,
): Promise<MemoryFigures> {
  await Bun.sleep(idleMs)
  const before = readRss(pid)
  if (before === null) throw new Error(`daemon ${pid} is not running`)
  for (let i = 0; i < calls; i++) await call()
  await Bun.sleep(idleMs)
  const after = readRss(pid)
  if (after === null) throw new Error(`daemon ${pid} exited during the calls`)
  let afterIdleGc: Rss | null = null
  if (idleGcMs > 0) {
    await Bun.sleep(idleGcMs)
    afterIdleGc = readRss(pid)
    if (afterIdleGc === null) throw new Error(`daemon ${pid} exited while idle`)
  }
  const { childrenMb, childCount, sandboxMb, sandboxCount } = childrenOf(pid)
  return {
    calls,
    idleMs,
    before,
    after,
    ...(afterIdleGc && { afterIdleGc, idleGcMs }),
    childrenMb,
    childCount,
    sandboxMb,
    sandboxCount,
  }
}

function childrenOf(pid: number) {
  const children = descendants(pid)
  const sum = (pids: number[]) => Math.round(pids.reduce((total, child) => total + (readRss(child)?.totalMb ?? 0), 0) * 10) / 10
  const sandboxes = children.filter((child) => commandLine(child).includes('sandbox-child'))
  return { childrenMb: sum(children), childCount: children.length, sandboxMb: sum(sandboxes), sandboxCount: sandboxes.length }
}

/**
 * A code-mode host connects, lists its tools and leaves: its first request starts the sandbox pool
 * (lib/daemon/gateway.ts), whose processes run the same executable, so the pages they share with
 * the daemon stay resident through its idle page-out. Read once the idle trim ran again: the trim
 * looks every `idleGcMs` and collects `idleGcMs` into the new quiet period, so at most twice that.
 */
export async function measureAfterCodeModeHost(
  pid: number,
  host: () => Promise<void>,
  idleMs: number,
  idleGcMs: number,
): Promise<CodeModeHostFigures> {
  await host()
  const waitedMs = 2 * idleGcMs + idleMs
  await Bun.sleep(waitedMs)
  const daemon = readRss(pid)
  if (daemon === null) throw new Error(`daemon ${pid} exited while idle`)
  const { sandboxMb, sandboxCount } = childrenOf(pid)
  return { daemon, sandboxMb, sandboxCount, idleMs: waitedMs }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')
  } catch {
    return ''
  }
}
