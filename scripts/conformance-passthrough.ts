/**
 * The official conformance suite against the gateway's pass-through surface: an isolated daemon
 * (MCPX_HOME = a temp dir, a fixed free loopback port, token check off — the suite cannot send
 * one, and daemonRequireToken=false is accepted on loopback only) whose one upstream is mcpx's
 * everything fixture, reached over stdio (default) or Streamable HTTP (`--upstream http`), offered
 * at plain `/mcp` by the setting mcpPassthrough (= `/mcp?passthrough=everything`; some scenarios
 * drop the query string). It should score what the fixture scores alone.
 *   bun scripts/conformance-passthrough.ts [--upstream stdio|http] [TARGET (default both)] [-- extra run args]
 * Environment (CONF_STRICT, CONF_DETAILS...) passes through to ../shared/conformance/run.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname.replace(/\/$/, '')
const bun = process.execPath
const argv = process.argv.slice(2)
const dash = argv.indexOf('--')
const extra = dash === -1 ? [] : argv.splice(dash).slice(1)
const upstreamFlag = argv.indexOf('--upstream')
const upstreamKind = upstreamFlag === -1 ? 'stdio' : argv.splice(upstreamFlag, 2)[1]
if (upstreamKind !== 'stdio' && upstreamKind !== 'http') throw new Error(`--upstream must be stdio or http, not ${upstreamKind}`)
const target = argv[0] ?? 'both'
const conformanceRun = process.env.MCPX_CONFORMANCE_RUN ?? join(root, '../shared/conformance/run')

/** A port the kernel just handed out and released: free for the daemon a moment later. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

async function waitFor(url: string, proc: { exitCode: number | null }): Promise<void> {
  const deadline = Date.now() + 30_000
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`process for ${url} exited with ${proc.exitCode}`)
    const ok = await fetch(url, { method: 'GET' }).then(() => true, () => false)
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
  if (upstreamKind === 'http') {
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
  const daemon = Bun.spawn([bun, join(root, 'cli/main.ts'), 'daemon', 'run', '--config', configPath], { env, stdout: 'inherit', stderr: 'inherit' })
  children.push(daemon)
  const url = `http://127.0.0.1:${port}/mcp`
  await waitFor(url, daemon)
  console.error(`== conformance through the pass-through surface (${upstreamKind} upstream): ${url}`)
  const suite = Bun.spawn(['bash', conformanceRun, 'server', url, target, ...(extra.length ? ['--', ...extra] : [])], { stdout: 'inherit', stderr: 'inherit' })
  code = await suite.exited
} finally {
  for (const child of children.reverse()) {
    child.kill()
    await child.exited
  }
  rmSync(home, { recursive: true, force: true })
}
process.exit(code)
