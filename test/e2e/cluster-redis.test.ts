/**
 * Replicas sharing a Redis (settings.redisUrl; Debian's redis-server, started by the test on a free
 * loopback port): a legacy session whose replica died is rebuilt by its heir, ended there by the
 * host's DELETE, and stays 404 on every replica — also on the dead owner once it restarts, which
 * alone could not know the session ended (2025-11-25 basic/transports.mdx: a terminated session's
 * id answers 404); a GET stream of a dead replica resumes on the heir with the events the host missed
 * (copied to Redis). And tasks (SEP-2663): a task whose replica died is still read through any replica
 * from its shared record — its result if it finished, `failed` if it was still running.
 * Needs haproxy and redis-server (.ci/run); under CI=true missing ones fail the run.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { RedisClient } from 'bun'
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { loadKeyRing } from '../../lib/server/seal.ts'
import { sessionOwner } from '../../lib/server/index.ts'
import { type Cluster, startCluster } from '../../scripts/cluster.ts'
import { REPO_ROOT, tempDir } from '../harness.ts'
import { freePort } from '../../scripts/free-port.ts'
import { startRedisServer } from '../support/redis-server.ts'
import { expectEndedOnEveryReplica } from '../support/ended-session.ts'

const SBIN = { PATH: `${process.env.PATH}:/usr/sbin:/usr/local/sbin` }
const haproxy = Bun.which('haproxy', SBIN)
const redisServer = Bun.which('redis-server', SBIN)
if ((!haproxy || !redisServer) && process.env.CI === 'true')
  throw new Error('haproxy and redis-server must be installed: .ci/run must `apt-get install -y haproxy redis-server`')

/**
 * Right after the kill, HAProxy may still hand a request to the dead replica on a kept-alive
 * connection (and answer 502) until its health check marks it down; a host sends such a call
 * again, as cluster-faults.test.ts does. Any other failure is the test's.
 */
async function callRetried<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call()
    } catch (error) {
      if (attempt === 3 || !/\b502\b|Bad Gateway/.test(String((error as Error).message))) throw error
    }
  }
}

describe.skipIf(!haproxy || !redisServer)('three replicas sharing a Redis', () => {
  const dir = tempDir('mcpx-cluster-redis')
  let cluster: Cluster
  let redis: ReturnType<typeof Bun.spawn> | undefined
  let redisUrl = ''
  beforeAll(async () => {
    const port = await freePort()
    redisUrl = `redis://127.0.0.1:${port}`
    redis = await startRedisServer(redisServer!, port)
    const config = join(dir.path, 'config.json')
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { up: { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/peers/gateway-upstream-fixture.ts')] } },
      }),
    )
    cluster = await startCluster({
      config,
      replicas: 3,
      dir: dir.path,
      haproxy: haproxy!,
      sticky: false,
      env: { MCPX_REDIS_URL: redisUrl },
    })
  })
  afterAll(async () => {
    await cluster?.close()
    redis?.kill()
    await redis?.exited
    dir[Symbol.dispose]()
  })
  const headers = () => ({ Authorization: `Bearer ${cluster.token}` })

  test('a session ended on the heir of its dead replica is 404 on every replica, the restarted owner too', async () => {
    const url = new URL(`${cluster.url}?codemode=false`)
    const transport = new LegacyHttp(url, { requestInit: { headers: headers() } })
    const client = new LegacyClient({ name: 'legacy-host', version: '1.0.0' })
    await client.connect(transport)
    const session = transport.sessionId!
    const owner = cluster.replicas.findIndex((r) => r.id === sessionOwner(loadKeyRing(join(dir.path, 'seal.keys')), session))
    expect(owner).toBeGreaterThanOrEqual(0)
    try {
      await cluster.killReplica(owner)
      // The heir rebuilds the session: the host goes on without a new initialize.
      for (let i = 0; i < 6; i++) {
        const text = `after the kill ${i}`
        expect((await callRetried(() => client.callTool({ name: 'up_echo', arguments: { text } }))).content).toEqual([
          { type: 'text', text },
        ])
      }
      await transport.terminateSession()
    } finally {
      await client.close()
    }
    await cluster.restartReplica(owner)
    const ended = new RedisClient(redisUrl)
    expect((await ended.keys('mcpx:session-ended:*')).length).toBe(1)
    ended.close()
    // Round-robin over the three replicas, twice: the restarted owner would rebuild the session without the shared list.
    await expectEndedOnEveryReplica(url, headers(), session, 6)
  })

  test('a GET stream of a dead replica resumes on the heir: what the host missed is replayed from Redis', async () => {
    const url = `${cluster.url}?codemode=false`
    const base = { ...headers(), 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
    const init = await fetch(url, {
      method: 'POST',
      headers: base,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'stream-host', version: '1' } },
      }),
    })
    const session = init.headers.get('mcp-session-id')!
    await init.text()
    const inSession = { ...base, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }
    await (
      await fetch(url, {
        method: 'POST',
        headers: inSession,
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      })
    ).text()
    // The standalone GET stream (on the session's replica, whichever replica the balancer picked): primed with an id.
    const get = await fetch(url, { headers: { ...inSession, accept: 'text/event-stream' } })
    const [primed] = await readEvents(get.body!, (events) => events.length >= 1)
    // An upstream tool list change is sent to the host on that stream (and copied to Redis: the priming event, then it)…
    await (
      await fetch(url, {
        method: 'POST',
        headers: inSession,
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'up_touch', arguments: {} } }),
      })
    ).text()
    const shared = new RedisClient(redisUrl)
    const key = `mcpx:events:${createHash('sha256').update(session).digest('base64url')}`
    while (Number(await shared.send('LLEN', [key])) < 2) await Bun.sleep(20)
    shared.close()
    // …but the host never read it: the replica died first, and the stream with it.
    const owner = cluster.replicas.findIndex((r) => r.id === sessionOwner(loadKeyRing(join(dir.path, 'seal.keys')), session))
    await cluster.killReplica(owner)
    await get.body!.cancel().catch(() => {})
    try {
      const resumed = await callRetried(async () => {
        const response = await fetch(url, { headers: { ...inSession, accept: 'text/event-stream', 'last-event-id': primed!.id } })
        if (response.status === 502) throw new Error(`502 ${await response.text()}`)
        return response
      })
      expect(resumed.status).toBe(200)
      // The heir rebuilt the session and replays the missed event of that stream (then closes the stream).
      const replayed = await readEvents(resumed.body!, (events) => events.some((e) => e.data.includes('list_changed')))
      expect(replayed.map((e) => JSON.parse(e.data).method)).toEqual(['notifications/tools/list_changed'])
      expect(replayed[0]!.id.startsWith(primed!.id.slice(0, primed!.id.lastIndexOf('.')))).toBe(true)
    } finally {
      await cluster.restartReplica(owner)
    }
  })
})

/** Reads an SSE body until `done` holds for the events so far (each `{ id, data }`); leaves the stream open. */
async function readEvents(
  body: ReadableStream<Uint8Array>,
  done: (events: { id: string; data: string }[]) => boolean,
): Promise<{ id: string; data: string }[]> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  const parse = () =>
    text
      .split('\n\n')
      .slice(0, -1)
      .map((block) => ({
        id: /^id: ?(.*)$/m.exec(block)?.[1] ?? '',
        data: [...block.matchAll(/^data: ?(.*)$/gm)].map((m) => m[1]).join('\n'),
      }))
      .filter((event) => event.id !== '')
  for (let events = parse(); !done(events); events = parse()) {
    const next = await reader.read()
    if (next.done) return events
    text += decoder.decode(next.value, { stream: true })
  }
  reader.releaseLock()
  return parse()
}

describe.skipIf(!haproxy || !redisServer)('tasks of a dead replica, read from Redis (pass-through of one shared fixture)', () => {
  const dir = tempDir('mcpx-cluster-redis-tasks')
  let cluster: Cluster
  let redis: ReturnType<typeof Bun.spawn> | undefined
  let fixture: ReturnType<typeof Bun.spawn> | undefined
  beforeAll(async () => {
    const port = await freePort()
    redis = await startRedisServer(redisServer!, port)
    const fixturePort = await freePort()
    fixture = Bun.spawn([process.execPath, join(REPO_ROOT, 'test/fixtures/everything/main.ts'), '--port', String(fixturePort)], {
      stdout: 'ignore',
      stderr: 'ignore',
    })
    while (
      !(await fetch(`http://127.0.0.1:${fixturePort}/mcp`).then(
        () => true,
        () => false,
      ))
    )
      await Bun.sleep(50)
    const config = join(dir.path, 'config.json')
    writeFileSync(config, JSON.stringify({ mcpServers: { everything: { url: `http://127.0.0.1:${fixturePort}/mcp` } } }))
    cluster = await startCluster({
      config,
      replicas: 3,
      dir: dir.path,
      haproxy: haproxy!,
      sticky: false,
      env: { MCPX_REDIS_URL: `redis://127.0.0.1:${port}`, MCPX_MCP_PASSTHROUGH: 'everything' },
    })
  })
  afterAll(async () => {
    await cluster?.close()
    fixture?.kill()
    redis?.kill()
    await Promise.all([fixture?.exited, redis?.exited])
    dir[Symbol.dispose]()
  })

  let id = 0
  const META = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
    'io.modelcontextprotocol/clientInfo': { name: 'task-host', version: '1' },
  }
  async function rpc(
    method: string,
    params: Record<string, unknown>,
    name?: string,
  ): Promise<{ result?: Record<string, unknown>; error?: { message: string } }> {
    for (let attempt = 1; ; attempt++) {
      // Right after a kill HAProxy may close a kept-alive connection of the host (ECONNRESET) or answer 502
      // itself until its check marks the replica down; these calls are reads (or made before the kill): sent again.
      const response = await fetch(cluster.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${cluster.token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': method,
          ...(name && { 'mcp-name': name }),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: { ...params, _meta: META } }),
      }).catch((error: { code?: string }) => {
        if (error.code === 'ECONNRESET' && attempt < 3) return undefined
        throw error
      })
      if (response === undefined) continue
      if (response.status === 502 && attempt < 3 && !(response.headers.get('content-type') ?? '').includes('json')) {
        await response.body?.cancel()
        continue
      }
      return (await response.json()) as { result?: Record<string, unknown>; error?: { message: string } }
    }
  }
  const ownerIndex = (taskId: string) => cluster.replicas.findIndex((r) => taskId.startsWith(`${r.id}~`))

  test('a finished task keeps its result, a running one ends failed, once its replica is gone', async () => {
    const done = await rpc('tools/call', { name: 'slow_compute', arguments: { seconds: 0.2, label: 'kept' } }, 'slow_compute')
    const doneId = String(done.result?.taskId)
    const running = await rpc('tools/call', { name: 'slow_compute', arguments: { seconds: 30, label: 'lost' } }, 'slow_compute')
    const runningId = String(running.result?.taskId)
    expect(ownerIndex(doneId)).toBeGreaterThanOrEqual(0)
    expect(done.result).toMatchObject({ resultType: 'task', status: 'working' })
    // The fixture sleeps 0.2 s: polled every 50 ms, it is done well within 100 polls.
    let polled: Awaited<ReturnType<typeof rpc>> | undefined
    for (let poll = 0; poll < 100 && polled?.result?.status !== 'completed'; poll++, await Bun.sleep(50))
      polled = await rpc('tasks/get', { taskId: doneId }, doneId)
    expect(polled).toMatchObject({ result: { status: 'completed' } })
    expect((await rpc('tasks/get', { taskId: runningId }, runningId)).result?.status).toBe('working')
    // Kill the replicas holding them (round-robin put the two calls on different replicas, or the same one).
    const owners = [...new Set([ownerIndex(doneId), ownerIndex(runningId)])]
    for (const owner of owners) await cluster.killReplica(owner)
    const kept = await rpc('tasks/get', { taskId: doneId }, doneId)
    expect(kept.result).toMatchObject({
      taskId: doneId,
      status: 'completed',
      result: { content: [{ type: 'text', text: 'Computed kept after 0.2s' }] },
    })
    const lost = await rpc('tasks/get', { taskId: runningId }, runningId)
    expect(lost.result).toMatchObject({
      taskId: runningId,
      status: 'failed',
      error: { message: expect.stringContaining('stopped while the task ran') },
    })
    // Every replica now reads it as failed (the record says so), and cancelling an ended task is a no-op.
    expect((await rpc('tasks/cancel', { taskId: runningId }, runningId)).result).toEqual({})
    expect((await rpc('tasks/get', { taskId: runningId }, runningId)).result?.status).toBe('failed')
    for (const owner of owners) await cluster.restartReplica(owner)
  })
})
