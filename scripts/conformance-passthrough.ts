/**
 * The official conformance suite against the gateway's pass-through surface: an isolated daemon
 * (MCPX_HOME = a temp dir, a fixed free loopback port, token check off — the suite cannot send
 * one, and daemonRequireToken=false is accepted on loopback only) whose one upstream is mcpx's
 * everything fixture, reached over stdio (default) or Streamable HTTP (`--upstream http`), or the
 * official `@modelcontextprotocol/server-everything` over Streamable HTTP (`--upstream
 * server-everything`: the suite runs against that server alone, then through mcpx, and every
 * scenario it passes alone must pass through; prints `conformance parity: N passed, M failed`), offered
 * at plain `/mcp` by the setting mcpPassthrough (= `/mcp?passthrough=everything`; some scenarios
 * drop the query string). It should score what the fixture scores alone.
 *   bun scripts/conformance-passthrough.ts [--upstream stdio|http|server-everything] [TARGET (default both)] [-- extra run args]
 * Environment (CONF_STRICT, CONF_DETAILS...) passes through to ../shared/conformance/run.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from './free-port.ts'

const root = new URL('..', import.meta.url).pathname.replace(/\/$/, '')
const bun = process.execPath
const argv = process.argv.slice(2)
const dash = argv.indexOf('--')
const extra = dash === -1 ? [] : argv.splice(dash).slice(1)
const upstreamFlag = argv.indexOf('--upstream')
const upstreamKind = upstreamFlag === -1 ? 'stdio' : argv.splice(upstreamFlag, 2)[1]
if (upstreamKind !== 'stdio' && upstreamKind !== 'http' && upstreamKind !== 'server-everything')
  throw new Error(`--upstream must be stdio, http or server-everything, not ${upstreamKind}`)
const target = argv[0] ?? 'both'
const conformanceRun = process.env.MCPX_CONFORMANCE_RUN ?? join(root, '../shared/conformance/run')

/**
 * Scenarios (as `<requirement set>/<name>`) whose checks.json under a run's CONF_OUT has a SUCCESS
 * and no FAILURE (the runner's layout: <out>/<set>/results/server-<name>-<timestamp>/checks.json).
 */
function passingScenarios(out: string): Set<string> {
  const passing = new Set<string>()
  if (!existsSync(out)) return passing
  for (const set of readdirSync(out)) {
    const results = join(out, set, 'results')
    if (!existsSync(results)) continue
    for (const dir of readdirSync(results)) {
      const file = join(results, dir, 'checks.json')
      if (!existsSync(file)) continue
      const checks = JSON.parse(readFileSync(file, 'utf8')) as { status?: string }[]
      const name = dir.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T.*$/, '')
      if (checks.some((c) => c.status === 'SUCCESS') && !checks.some((c) => c.status === 'FAILURE')) passing.add(`${set}/${name}`)
    }
  }
  return passing
}

async function waitFor(url: string, proc: { exitCode: number | null }): Promise<void> {
  const deadline = Date.now() + 30_000
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`process for ${url} exited with ${proc.exitCode}`)
    const ok = await fetch(url, { method: 'GET' }).then(
      () => true,
      () => false,
    )
    if (ok) return
    if (Date.now() > deadline) throw new Error(`${url} did not answer within 30 s`)
    await Bun.sleep(100)
  }
}

const home = mkdtempSync(join(tmpdir(), 'mcpx-ptc-'))
const children: { kill(): void; exited: Promise<number> }[] = []
let code = 2
try {
  const fixture = join(root, 'test/fixtures/everything/main.ts')
  let upstream: Record<string, unknown>
  if (upstreamKind === 'server-everything') {
    // The official reference server (pinned devDependency) over Streamable HTTP: its
    // `streamableHttp` entry listens on $PORT at /mcp (its dist/index.js and README).
    const everythingPort = await freePort()
    const entry = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js')
    const proc = Bun.spawn(['node', entry, 'streamableHttp'], {
      env: { ...process.env, PORT: String(everythingPort) },
      stdout: 'ignore',
      stderr: 'ignore',
    })
    children.push(proc)
    await waitFor(`http://127.0.0.1:${everythingPort}/mcp`, proc)
    upstream = { url: `http://127.0.0.1:${everythingPort}/mcp` }
  } else if (upstreamKind === 'http') {
    const fixturePort = await freePort()
    const proc = Bun.spawn([bun, fixture, '--port', String(fixturePort)], { stdout: 'ignore', stderr: 'inherit' })
    children.push(proc)
    await waitFor(`http://127.0.0.1:${fixturePort}/mcp`, proc)
    upstream = { url: `http://127.0.0.1:${fixturePort}/mcp` }
  } else {
    upstream = { command: bun, args: [fixture, '--stdio'] }
  }
  const configPath = join(home, 'config.json')
  writeFileSync(configPath, JSON.stringify({ mcpServers: { everything: upstream } }, null, 2))
  const port = await freePort()
  const env = {
    ...process.env,
    MCPX_HOME: join(home, 'home'),
    MCPX_DAEMON_PORT: String(port),
    MCPX_DAEMON_REQUIRE_TOKEN: 'false',
    MCPX_DAEMON_IDLE_MS: '0',
    // /mcp itself is the pass-through surface: some scenarios send raw requests to the path only.
    MCPX_MCP_PASSTHROUGH: 'everything',
    // The gateway's own SEP-1699 polling (a 2026 or stdio upstream has no stream closing to relay):
    // calls still running after 200 ms get their 2025-11-25 SSE stream closed and resumed.
    MCPX_SSE_POLL_AFTER_MS: process.env.MCPX_SSE_POLL_AFTER_MS ?? '200',
  }
  const daemon = Bun.spawn([bun, join(root, 'cli/main.ts'), 'daemon', 'run', '--config', configPath], {
    env,
    stdout: 'inherit',
    stderr: 'inherit',
  })
  children.push(daemon)
  const url = `http://127.0.0.1:${port}/mcp`
  await waitFor(url, daemon)
  const runArgs = (at: string) => ['bash', conformanceRun, 'server', at, target, ...(extra.length ? ['--', ...extra] : [])]
  if (upstreamKind === 'server-everything') {
    // Parity, not a score: server-everything fails many scenarios alone (it is not the suite's
    // reference), so what counts is that every scenario it passes alone passes through mcpx too.
    const alone = join(home, 'alone')
    const through = join(home, 'through')
    console.error(`== conformance against server-everything alone: ${String(upstream.url)}`)
    await Bun.spawn(runArgs(String(upstream.url)), { env: { ...process.env, CONF_OUT: alone }, stdout: 'ignore', stderr: 'inherit' }).exited
    console.error(`== conformance through the pass-through surface (server-everything upstream): ${url}`)
    await Bun.spawn(runArgs(url), { env: { ...process.env, CONF_OUT: through }, stdout: 'ignore', stderr: 'inherit' }).exited
    const passedAlone = passingScenarios(alone)
    const passedThrough = passingScenarios(through)
    const lost = [...passedAlone].filter((s) => !passedThrough.has(s))
    if (passedAlone.size === 0) console.error('== server-everything passed no scenario alone: the comparison means nothing')
    for (const s of lost) console.error(`  LOST ${s}: passes against server-everything alone, fails through mcpx`)
    const gained = [...passedThrough].filter((s) => !passedAlone.has(s))
    console.error(`== also passing through mcpx only: ${gained.join(' ') || 'none'}`)
    console.log(
      `conformance parity: ${passedAlone.size - lost.length} passed, ${lost.length + (passedAlone.size === 0 ? 1 : 0)} failed (scenarios server-everything passes alone, through the pass-through surface; ${passedThrough.size} pass through it in all)`,
    )
    code = lost.length === 0 && passedAlone.size > 0 ? 0 : 1
  } else {
    console.error(`== conformance through the pass-through surface (${upstreamKind} upstream): ${url}`)
    const suite = Bun.spawn(runArgs(url), { stdout: 'inherit', stderr: 'inherit' })
    code = await suite.exited
  }
} finally {
  for (const child of children.reverse()) {
    child.kill()
    await child.exited
  }
  rmSync(home, { recursive: true, force: true })
}
process.exit(code)
