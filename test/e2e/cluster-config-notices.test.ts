/**
 * Config-change notices through Redis (settings.redisUrl; Debian's redis-server on a free loopback
 * port, lib/daemon/config-notices.ts): three replicas, each with its own copy of the config (as on
 * three machines). Replicas 2 and 3 follow their files with a 10-minute debounce and poll, so only
 * a notice can make them re-read within the test. The new config is deployed to replica 2's copy
 * first (it keeps serving the old one), then to replica 1's: replica 1 reloads, announces the
 * change, and replica 2's catalog shows the new server within seconds; replica 3, whose copy was
 * not updated, keeps its catalog and logs that its file differs.
 * Needs haproxy and redis-server (.ci/run); under CI=true missing ones fail the run.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { homeLayout } from '../../lib/config/index.ts'
import { type Cluster, startCluster } from '../../scripts/cluster.ts'
import { REPO_ROOT, tempDir } from '../harness.ts'
import { freePort } from '../../scripts/free-port.ts'
import { startRedisServer } from '../support/redis-server.ts'

const SBIN = { PATH: `${process.env.PATH}:/usr/sbin:/usr/local/sbin` }
const haproxy = Bun.which('haproxy', SBIN)
const redisServer = Bun.which('redis-server', SBIN)
if ((!haproxy || !redisServer) && process.env.CI === 'true')
  throw new Error('haproxy and redis-server must be installed: .ci/run must `apt-get install -y haproxy redis-server`')
/** Replicas 2 and 3 would notice their own file only after this (debounce and poll). */
const SLOW_WATCH_MS = '600000'
/** How long the notice may take to reach replica 2's catalog (far below SLOW_WATCH_MS). */
const PROMPT_MS = 10_000

const fixture = join(REPO_ROOT, 'test/fixtures/peers/gateway-upstream-fixture.ts')
const before = JSON.stringify({ mcpServers: { up: { command: process.execPath, args: [fixture] } } })
const after = JSON.stringify({
  mcpServers: { up: { command: process.execPath, args: [fixture] }, extra: { command: process.execPath, args: [fixture] } },
})

describe.skipIf(!haproxy || !redisServer)('config-change notices between replicas sharing a Redis', () => {
  const dir = tempDir('mcpx-cluster-notices')
  const configs = [1, 2, 3].map((n) => join(dir.path, `config-${n}.json`))
  let cluster: Cluster
  let redis: ReturnType<typeof Bun.spawn> | undefined
  beforeAll(async () => {
    const port = await freePort()
    const redisUrl = `redis://127.0.0.1:${port}`
    redis = await startRedisServer(redisServer!, port)
    for (const file of configs) writeFileSync(file, before)
    const slow = { MCPX_CONFIG_RELOAD_DEBOUNCE_MS: SLOW_WATCH_MS, MCPX_CONFIG_POLL_MS: SLOW_WATCH_MS }
    cluster = await startCluster({
      config: configs[0]!,
      configs,
      replicas: 3,
      dir: dir.path,
      haproxy: haproxy!,
      sticky: false,
      env: { MCPX_REDIS_URL: redisUrl },
      replicaEnv: [{}, slow, slow],
    })
  })
  afterAll(async () => {
    await cluster?.close()
    redis?.kill()
    await redis?.exited
    dir[Symbol.dispose]()
  })

  /** The tool names a replica lists, asked directly (a 2026-07-28 stateless request). */
  const toolsOf = async (index: number): Promise<string[]> => {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' },
    }
    const response = await fetch(`http://127.0.0.1:${cluster.replicas[index]!.port}/mcp?codemode=false`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${cluster.token}`,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } }),
    })
    const text = await response.text()
    const json = text.startsWith('{')
      ? text
      : text
          .split('\n')
          .find((line) => line.startsWith('data: '))!
          .slice('data: '.length)
    return (JSON.parse(json) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name)
  }
  const logOf = (index: number) => {
    const file = homeLayout(cluster.replicas[index]!.home, configs[index]!).daemonLog
    return existsSync(file) ? readFileSync(file, 'utf8') : ''
  }

  test("a config changed under one replica reaches the others' catalogs at once; a replica whose copy differs says so", async () => {
    for (const index of [0, 1, 2]) expect(await toolsOf(index)).not.toContain('extra_echo')
    // Deployed to replica 2's machine first: its slow watcher leaves it serving the old config.
    writeFileSync(configs[1]!, after)
    await Bun.sleep(1_000)
    expect(await toolsOf(1)).not.toContain('extra_echo')
    // Then to replica 1's, whose watcher reloads it and announces the change.
    const start = performance.now()
    writeFileSync(configs[0]!, after)
    let seen = false
    while (!seen && performance.now() - start < PROMPT_MS) {
      seen = (await toolsOf(1)).includes('extra_echo')
      if (!seen) await Bun.sleep(100)
    }
    const elapsed = performance.now() - start
    process.stderr.write(`config notice: replica 2's catalog changed ${Math.round(elapsed)} ms after replica 1's file was written\n`)
    expect(seen).toBe(true)
    // Replica 1 announced the change when it loaded the file; its own new upstream may connect after replica 2's.
    let ownSeen = false
    while (!ownSeen && performance.now() - start < PROMPT_MS) {
      ownSeen = (await toolsOf(0)).includes('extra_echo')
      if (!ownSeen) await Bun.sleep(100)
    }
    expect(ownSeen).toBe(true)
    expect(logOf(0)).toContain('config change announced to 2 other replica(s)')
    expect(logOf(1)).toContain('re-read on the notice of replica replica-1: same content')
    // Replica 3's copy was not updated: it re-read it, keeps its catalog and logs the difference.
    for (let waited = 0; !logOf(2).includes('differs from the one replica replica-1 announced') && waited < PROMPT_MS; waited += 100)
      await Bun.sleep(100)
    expect(logOf(2)).toContain('differs from the one replica replica-1 announced')
    const tools3 = await toolsOf(2)
    expect(tools3).toContain('up_echo')
    expect(tools3).not.toContain('extra_echo')
  })
})
