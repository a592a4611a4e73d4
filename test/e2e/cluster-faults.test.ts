/**
 * Faults behind the load balancer: 20 SDK hosts (10 legacy SDK 1.x sessions, 10 modern SDK 2.x
 * hosts pinned to 2026-07-28) make 200 calls each through HAProxy + 3 replicas (round-robin, no
 * stickiness) while one replica is killed (SIGKILL) and restarted mid-run. Every call's answer is
 * its own (none lost, none crossed); a call cut by the kill is sent again by the test and then
 * succeeds; every legacy host keeps its session id to the end (no new initialize: the heir of a
 * dead replica rebuilds its sessions from their sealed ids, replica-forward.ts); and every error
 * seen on the way carries a JSON-RPC or HTTP status code. Run twice: with the shipped
 * deploy/haproxy.cfg (each response closes the host's connection, so a cut request is HAProxy's 502:
 * codes and statuses only) and with its keep-alive opt-out (scripts/cluster.ts --keepalive), where a
 * cut request can also reach its host as its kept-alive connection closed (ECONNRESET).
 * Needs Debian's haproxy (.ci/run).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client'
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { homeLayout } from '../../lib/config/index.ts'
import { sessionOwner } from '../../lib/server/index.ts'
import { loadKeyRing } from '../../lib/server/seal.ts'
import { type Cluster, type HostConnections, startCluster } from '../../scripts/cluster.ts'
import { REPO_ROOT, tempDir } from '../harness.ts'

const haproxy = Bun.which('haproxy') ?? Bun.which('haproxy', { PATH: '/usr/sbin:/usr/local/sbin' })
if (!haproxy && process.env.CI === 'true') throw new Error('haproxy is not installed: .ci/run must `apt-get install -y haproxy`')
const HOSTS_PER_ERA = 10
const CALLS = 200
/** A call cut by the kill is sent again at most this often (the kill cuts each host's calls once at most, in practice). */
const ATTEMPTS = 5

interface Host {
  readonly name: string
  readonly era: 'legacy' | 'modern'
  call(text: string): Promise<string>
  sessionId(): string | undefined
  close(): Promise<void>
}

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text

// The shipped deploy/haproxy.cfg closes the host's connection after each response, so a cut request is answered 502;
// its keep-alive opt-out keeps the connection, and HAProxy 2.6 closes it instead of answering a cut (README).
for (const hostConnections of ['close', 'keepalive'] as const satisfies HostConnections[])
  describe.skipIf(!haproxy)(
    `20 hosts through HAProxy (${hostConnections === 'close' ? 'deploy/haproxy.cfg as shipped' : 'its keep-alive opt-out'}) + 3 replicas while one replica is killed and restarted`,
    () => {
      const dir = tempDir('mcpx-cluster-faults')
      let cluster: Cluster
      const hosts: Host[] = []
      beforeAll(async () => {
        const config = join(dir.path, 'config.json')
        writeFileSync(
          config,
          JSON.stringify({
            mcpServers: { up: { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/peers/gateway-upstream-fixture.ts')] } },
          }),
        )
        cluster = await startCluster({ config, replicas: 3, dir: dir.path, haproxy: haproxy!, sticky: false, hostConnections })
        const url = new URL(`${cluster.url}?codemode=false`)
        const requestInit = { headers: { Authorization: `Bearer ${cluster.token}` } }
        for (let i = 0; i < HOSTS_PER_ERA; i++) {
          const transport = new LegacyHttp(url, { requestInit })
          const client = new LegacyClient({ name: `legacy-${i}`, version: '1.0.0' })
          await client.connect(transport)
          hosts.push({
            name: `legacy-${i}`,
            era: 'legacy',
            call: async (text) => textOf(await client.callTool({ name: 'up_echo', arguments: { text } })),
            sessionId: () => transport.sessionId,
            close: () => client.close(),
          })
        }
        for (let i = 0; i < HOSTS_PER_ERA; i++) {
          const client = new ModernClient(
            { name: `modern-${i}`, version: '2.0.0' },
            { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } },
          )
          await client.connect(new ModernHttp(url, { requestInit }))
          hosts.push({
            name: `modern-${i}`,
            era: 'modern',
            call: async (text) => textOf(await client.callTool({ name: 'up_echo', arguments: { text } })),
            sessionId: () => undefined,
            close: () => client.close(),
          })
        }
      })
      afterAll(async () => {
        for (const host of hosts) await host.close().catch(() => {})
        await cluster?.close()
        dir[Symbol.dispose]()
      })

      test("every answer is the call's own, cut calls succeed when sent again, legacy sessions keep their id, errors are coded", async () => {
        const sessionsBefore = hosts.map((h) => h.sessionId())
        expect(sessionsBefore.filter(Boolean).length).toBe(HOSTS_PER_ERA)
        const total = hosts.length * CALLS
        let done = 0
        const errors: { host: string; error: unknown }[] = []
        const answers = new Map<string, string>()
        const killed = Promise.withResolvers<void>()
        const restarted = Promise.withResolvers<void>()
        // The kill lands after a third of the calls, the restart after two thirds (while every host is still calling).
        const faults = (async () => {
          while (done < total / 3) await Bun.sleep(5)
          await cluster.killReplica(1)
          killed.resolve()
          while (done < (2 * total) / 3) await Bun.sleep(5)
          await cluster.restartReplica(1)
          restarted.resolve()
        })()
        await Promise.all(
          hosts.map(async (host) => {
            for (let i = 0; i < CALLS; i++) {
              const text = `${host.name} call ${i}`
              for (let attempt = 1; ; attempt++) {
                try {
                  answers.set(text, await host.call(text))
                  break
                } catch (error) {
                  errors.push({ host: host.name, error })
                  if (attempt === ATTEMPTS) throw error
                }
              }
              done++
            }
          }),
        )
        await faults
        await killed.promise
        await restarted.promise
        // None lost, none crossed: each of the 4,000 calls got its own text back.
        expect(answers.size).toBe(total)
        for (const [text, answer] of answers) expect(answer).toBe(text)
        // Legacy hosts kept their sessions across the kill (no new initialize: same id to the end).
        expect(hosts.map((h) => h.sessionId())).toEqual(sessionsBefore)
        // The killed replica's sessions did move: each was rebuilt elsewhere from its sealed id (the daemons log it).
        const ring = loadKeyRing(join(dir.path, 'seal.keys'))
        const moved = sessionsBefore.filter((id) => id !== undefined && sessionOwner(ring, id) === cluster.replicas[1]!.id)
        expect(moved.length).toBeGreaterThan(0)
        const logs = cluster.replicas
          .map((r) => homeLayout(r.home, join(dir.path, 'config.json')).daemonLog)
          .filter(existsSync)
          .map((file) => readFileSync(file, 'utf8'))
          .join('\n')
        for (const id of moved) expect(logs).toContain(`session adopted ${id!.slice(-8)}`)
        process.stderr.write(
          `cluster faults (${hostConnections}): ${total} calls, ${errors.length} errors sent again: ${[...new Set(errors.map((e) => String((e.error as Error).message).slice(0, 120)))].join(' | ')}\n`,
        )
        // Each error on the way is a clear JSON-RPC error (numeric code) or an HTTP error (its status): with
        // the shipped config nothing else. With the keep-alive opt-out also the balancer closing the host's
        // kept-alive connection when the replica serving its request died (ECONNRESET: HAProxy 2.6 answers a
        // cut request that is not its connection's first so, README "A replica dies"). Never a hang, a
        // garbled answer or another call's result.
        for (const { host, error } of errors) {
          const { code, message, status, data } = error as {
            code?: unknown
            message?: unknown
            status?: unknown
            data?: { status?: unknown }
          }
          // SDK 1.x: McpError / StreamableHTTPError carry the code; SDK 2.x: SdkHttpError carries the HTTP status in data.
          const coded =
            typeof code === 'number' ||
            typeof status === 'number' ||
            typeof data?.status === 'number' ||
            (hostConnections === 'keepalive' && code === 'ECONNRESET')
          expect({ host, coded, message }).toEqual({ host, coded: true, message: expect.stringMatching(/\S/) })
        }
        // The kill cuts the calls in flight on the dead replica (so the check above saw some) and little else.
        expect(errors.length).toBeGreaterThan(0)
        expect(errors.length).toBeLessThan(total / 20)
      })
    },
  )
