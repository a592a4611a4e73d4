/**
 * Three replicas behind HAProxy on loopback (scripts/cluster.ts, deploy/haproxy.cfg): 2026-07-28
 * hosts are balanced round-robin request by request and every call succeeds; a legacy host's
 * session is learned from its `initialize` response and stays on its replica. Needs Debian's
 * haproxy (.ci/run installs it); under CI=true a missing haproxy fails the run.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client'
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { homeLayout } from '../../lib/config/index.ts'
import { type Cluster, startCluster } from '../../scripts/cluster.ts'
import { REPO_ROOT, tempDir } from '../harness.ts'
import { expectEndedOnEveryReplica } from '../support/ended-session.ts'

const haproxy = Bun.which('haproxy') ?? Bun.which('haproxy', { PATH: '/usr/sbin:/usr/local/sbin' })
if (!haproxy && process.env.CI === 'true') throw new Error('haproxy is not installed: .ci/run must `apt-get install -y haproxy`')
const CALLS = 30

describe.skipIf(!haproxy)('three replicas behind HAProxy', () => {
  const dir = tempDir('mcpx-cluster')
  let cluster: Cluster
  beforeAll(async () => {
    const config = join(dir.path, 'config.json')
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { up: { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/peers/gateway-upstream-fixture.ts')] } },
      }),
    )
    cluster = await startCluster({ config, replicas: 3, dir: dir.path, haproxy: haproxy!, sticky: false })
  })
  afterAll(async () => {
    await cluster?.close()
    dir[Symbol.dispose]()
  })
  const headers = () => ({ Authorization: `Bearer ${cluster.token}` })
  const pidOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text

  test("a 2026 host's calls spread over the replicas (round-robin, no stickiness) and all succeed", async () => {
    const client = new ModernClient(
      { name: 'modern-host', version: '2.0.0' },
      { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    )
    await client.connect(new ModernHttp(new URL(`${cluster.url}?codemode=false`), { requestInit: { headers: headers() } }))
    try {
      const pids = new Set<string>()
      for (let i = 0; i < CALLS; i++) pids.add(pidOf(await client.callTool({ name: 'up_pid', arguments: {} })))
      // Each replica runs its own upstream process: three pids means three replicas answered.
      expect(pids.size).toBe(3)
    } finally {
      await client.close()
    }
  })

  test("an elicitation a legacy upstream raises during a 2026 host's call is answered when the retry lands on another replica", async () => {
    const client = new ModernClient(
      { name: 'modern-host', version: '2.0.0' },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    )
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { answer: 'from the host' } }))
    await client.connect(new ModernHttp(new URL(`${cluster.url}?codemode=false`), { requestInit: { headers: headers() } }))
    try {
      // Round-robin: each call's retry goes to the next replica, never the one holding the call.
      for (let i = 0; i < 3; i++) {
        const result = await client.callTool({ name: 'up_ask', arguments: { question: `question ${i}` } })
        expect(pidOf(result)).toBe('action=accept answer=from the host')
      }
    } finally {
      await client.close()
    }
  })

  test("a legacy host's session works through plain round-robin: every request reaches the replica that owns it", async () => {
    const transport = new LegacyHttp(new URL(`${cluster.url}?codemode=false`), { requestInit: { headers: headers() } })
    const client = new LegacyClient({ name: 'legacy-host', version: '1.0.0' })
    await client.connect(transport)
    const session = transport.sessionId!
    try {
      const pids = new Set<string>()
      for (let i = 0; i < CALLS; i++) pids.add(pidOf(await client.callTool({ name: 'up_pid', arguments: {} })))
      expect(pids.size).toBe(1)
      await transport.terminateSession()
    } finally {
      await client.close()
    }
    // 2025-11-25 basic/transports.mdx: an ended session is 404 — on every replica the balancer picks.
    await expectEndedOnEveryReplica(`${cluster.url}?codemode=false`, headers(), session, 3)
  })

  test('a replica killed and restarted mid-run: every 2026 call is answered, none crossed (a call cut by the kill is retried)', async () => {
    const client = new ModernClient(
      { name: 'modern-host', version: '2.0.0' },
      { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    )
    await client.connect(new ModernHttp(new URL(`${cluster.url}?codemode=false`), { requestInit: { headers: headers() } }))
    const errors: string[] = []
    try {
      for (let i = 0; i < 3 * CALLS; i++) {
        if (i === CALLS) await cluster.killReplica(1)
        if (i === 2 * CALLS) await cluster.restartReplica(1)
        const text = `call ${i}`
        let answer: string | undefined
        for (let attempt = 0; answer === undefined && attempt < 3; attempt++) {
          try {
            answer = pidOf(await client.callTool({ name: 'up_echo', arguments: { text } }))
          } catch (error) {
            errors.push((error as Error).message)
          }
        }
        expect(answer).toBe(text)
      }
    } finally {
      await client.close()
    }
    // Whatever failed before its retry failed with a message, never silently.
    for (const message of errors) expect(message.length).toBeGreaterThan(0)
  })

  test('each replica has its id in its run directory; the balancer has no stickiness', async () => {
    // Each replica is the daemon of the shared config in its own home: the id sits in that daemon's run directory.
    const config = join(dir.path, 'config.json')
    for (const replica of cluster.replicas)
      expect((await Bun.file(join(homeLayout(replica.home, config).runDir, 'replica')).text()).trim()).toBe(replica.id)
    const cfg = await Bun.file(cluster.haproxyConfig).text()
    expect(cfg).not.toContain('stick ')
    expect(cfg).toContain('balance roundrobin')
    // As shipped: each response closes the host's connection, so a request cut by a dying replica is a 502 (README).
    expect(cfg).toMatch(/^ {4}http-after-response set-header Connection close$/m)
    expect(cfg).toMatch(/^ {4}http-reuse always$/m)
    expect(cfg.match(/^ {4}server replica-\d 127\.0\.0\.1:\d+ check$/gm)?.length).toBe(3)
  })
})

describe.skipIf(!haproxy)('the documented alternative: HAProxy learning session ids (deploy/haproxy.cfg)', () => {
  const dir = tempDir('mcpx-cluster-sticky')
  let cluster: Cluster
  beforeAll(async () => {
    const config = join(dir.path, 'config.json')
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { up: { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/peers/gateway-upstream-fixture.ts')] } },
      }),
    )
    // No replica hop: only the balancer's learned stickiness keeps the session on its replica.
    cluster = await startCluster({ config, replicas: 3, dir: dir.path, haproxy: haproxy!, env: { MCPX_REPLICA_PEERS: '' } })
  })
  afterAll(async () => {
    await cluster?.close()
    dir[Symbol.dispose]()
  })
  const headers = () => ({ Authorization: `Bearer ${cluster.token}` })
  const pidOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text

  test("a legacy host's session stays on the replica that answered initialize", async () => {
    const client = new LegacyClient({ name: 'legacy-host', version: '1.0.0' })
    await client.connect(new LegacyHttp(new URL(`${cluster.url}?codemode=false`), { requestInit: { headers: headers() } }))
    try {
      const pids = new Set<string>()
      for (let i = 0; i < CALLS; i++) pids.add(pidOf(await client.callTool({ name: 'up_pid', arguments: {} })))
      expect(pids.size).toBe(1)
    } finally {
      await client.close()
    }
  })

  test('the generated config learns the session id from the initialize response', async () => {
    expect(await Bun.file(cluster.haproxyConfig).text()).toContain('stick store-response res.hdr(mcp-session-id)')
  })
})
