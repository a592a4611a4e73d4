/**
 * The official conformance suite through HAProxy + 3 replicas (scripts/cluster.ts, round-robin, no
 * stickiness unless --sticky) and, in the same run, against one replica direct: each replica offers
 * the pass-through surface of one shared everything fixture over Streamable HTTP (so tasks and
 * subscriptions live in one upstream). Needs haproxy. Token check off (the suite sends none;
 * loopback only).
 * `npm test` (scripts/test.ts) runs it with `both --no-direct`: the pass-through step before it is
 * the one-daemon score, and every scored scenario must pass here as there.
 *   bun scripts/conformance-cluster.ts [TARGET (default 2026-07-28)] [--sticky] [--no-direct]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startCluster } from './cluster.ts'
import { freePort } from './free-port.ts'

const root = new URL('..', import.meta.url).pathname.replace(/\/$/, '')
const argv = process.argv.slice(2)
const sticky = argv.includes('--sticky')
const direct = !argv.includes('--no-direct')
const target = argv.filter((a) => !a.startsWith('--'))[0] ?? '2026-07-28'
const conformanceRun = process.env.MCPX_CONFORMANCE_RUN ?? join(root, '../shared/conformance/run')

const dir = mkdtempSync(join(tmpdir(), 'mcpx-conf-cluster-'))
const fixturePort = await freePort()
const fixture = Bun.spawn([process.execPath, join(root, 'test/fixtures/everything/main.ts'), '--port', String(fixturePort)], {
  stdout: 'ignore',
  stderr: 'ignore',
})
let code = 2
try {
  for (;;) {
    if (
      await fetch(`http://127.0.0.1:${fixturePort}/mcp`).then(
        () => true,
        () => false,
      )
    )
      break
    await Bun.sleep(100)
  }
  const config = join(dir, 'config.json')
  writeFileSync(config, JSON.stringify({ mcpServers: { everything: { url: `http://127.0.0.1:${fixturePort}/mcp` } } }))
  const cluster = await startCluster({
    config,
    replicas: 3,
    dir,
    sticky,
    env: { MCPX_DAEMON_REQUIRE_TOKEN: 'false', MCPX_MCP_PASSTHROUGH: 'everything', MCPX_SSE_POLL_AFTER_MS: '200' },
  })
  try {
    const run = async (label: string, url: string) => {
      console.error(`== conformance ${target} ${label}: ${url}`)
      const suite = Bun.spawn(['bash', conformanceRun, 'server', url, target], { stdout: 'inherit', stderr: 'inherit' })
      return suite.exited
    }
    if (direct) await run('one replica direct', `http://127.0.0.1:${cluster.replicas[0]!.port}/mcp`)
    code = await run(`HAProxy + 3 replicas${sticky ? ' (learned stickiness)' : ' (round-robin, no stickiness)'}`, cluster.url)
  } finally {
    await cluster.close()
  }
} finally {
  fixture.kill()
  await fixture.exited
  rmSync(dir, { recursive: true, force: true })
}
process.exit(code)
