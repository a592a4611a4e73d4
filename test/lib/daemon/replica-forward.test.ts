/**
 * The replica hop (replica-forward.ts): a 2026 retry whose sealed requestState another replica
 * minted goes to that replica, with the caller's headers and a loop guard; everything else is
 * served where it landed. Peers are real HTTP servers on port 0.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createReplicaForwarder, parsePeers } from '../../../lib/daemon/replica-forward.ts'
import { createRequestStateCodec } from '../../../lib/server/request-state.ts'
import { loadKeyRing } from '../../../lib/server/seal.ts'
import { tempDir, testSettings } from '../../harness.ts'

const dir = tempDir('mcpx-forward')
const keyFile = join(dir.path, 'keys')
writeFileSync(keyFile, `${'ab'.repeat(32)}\n`)
const seen: { auth: string | null; forwardedBy: string | null; body: string }[] = []
let owner: ReturnType<typeof Bun.serve>

beforeAll(() => {
  owner = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: async (request) => {
      seen.push({
        auth: request.headers.get('authorization'),
        forwardedBy: request.headers.get('mcpx-forwarded-by'),
        body: await request.text(),
      })
      return Response.json({ jsonrpc: '2.0', id: 1, result: { servedBy: 'replica-a' } })
    },
  })
})
afterAll(() => {
  void owner.stop(true)
  dir[Symbol.dispose]()
})

const retry = (requestState: string, headers: Record<string, string> = {}) =>
  new Request('http://127.0.0.1:1/mcp?codemode=false', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer caller-token', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', requestState } }),
  })

/** What the HTTP handler hands forwardModern once it parsed the body. */
async function modern(forwarder: ReturnType<typeof createReplicaForwarder>, request: Request): Promise<Response | undefined> {
  const body = await request.text()
  const message = JSON.parse(body) as { method: string; params: Record<string, unknown> }
  return forwarder!.forwardModern(request, body, message.params, message.method)
}

describe('replica forwarding', () => {
  const minted = (by: string) =>
    createRequestStateCodec(60_000, loadKeyRing(keyFile), Date.now, by).seal('tools/call', { name: 'x' }, { answers: {}, asked: ['q'] })
  const forwarder = () =>
    createReplicaForwarder(
      testSettings({ replicaId: 'replica-b', replicaPeers: `replica-a=http://127.0.0.1:${owner.port}`, sealKeyFile: keyFile }),
    )!

  test("a retry minted by another replica is forwarded there with the caller's credentials and a loop guard", async () => {
    const request = retry(minted('replica-a'))
    const answer = await modern(forwarder(), request)
    expect(await answer!.json()).toEqual({ jsonrpc: '2.0', id: 1, result: { servedBy: 'replica-a' } })
    expect(seen.at(-1)).toMatchObject({ auth: 'Bearer caller-token', forwardedBy: 'replica-b' })
  })

  test('a tasks/* request for a task another replica holds is forwarded there', async () => {
    const request = new Request('http://127.0.0.1:1/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer caller-token' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { taskId: 'replica-a~3f0c' } }),
    })
    expect(await (await modern(forwarder(), request))!.json()).toEqual({ jsonrpc: '2.0', id: 1, result: { servedBy: 'replica-a' } })
    const mine = new Request('http://127.0.0.1:1/mcp', {
      method: 'POST',
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { taskId: 'replica-b~1' } }),
    })
    expect(await modern(forwarder(), mine)).toBeUndefined()
  })

  test('its own retries, forwarded requests and requests without requestState are served here', async () => {
    const before = seen.length
    for (const request of [
      retry(minted('replica-b')),
      retry(minted('replica-a'), { 'mcpx-forwarded-by': 'replica-c' }),
      retry('not-a-sealed-token'),
    ]) {
      expect(await modern(forwarder(), request)).toBeUndefined()
    }
    expect(seen.length).toBe(before)
  })

  test('a legacy session goes to the replica that minted its id; when nothing listens there, its heir serves it', async () => {
    const seed = { revision: '2025-11-25' as const, clientCapabilities: {} }
    const byA = createReplicaForwarder(
      testSettings({ replicaId: 'replica-a', replicaPeers: 'replica-b=http://127.0.0.1:1', sealKeyFile: keyFile }),
    )!.newSessionId(seed)
    const post = () =>
      new Request('http://127.0.0.1:1/mcp', {
        method: 'POST',
        headers: { 'mcp-session-id': byA },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
      })
    const answer = await forwarder().forward(post(), new URL('http://127.0.0.1:1/mcp'))
    expect(await answer!.json()).toEqual({ jsonrpc: '2.0', id: 1, result: { servedBy: 'replica-a' } })
    expect(seen.at(-1)!.body).toContain('"tools/list"')
    // The owner's port refuses connections: replica-b is the next (and only other) replica, so it serves the session itself.
    const closed = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
    const closedPort = closed.port
    await closed.stop(true)
    const heir = createReplicaForwarder(
      testSettings({ replicaId: 'replica-b', replicaPeers: `replica-a=http://127.0.0.1:${closedPort}`, sealKeyFile: keyFile }),
    )!
    expect(heir.forward(post(), new URL('http://127.0.0.1:1/mcp'))).toBeInstanceOf(Promise)
    expect(await heir.forward(post(), new URL('http://127.0.0.1:1/mcp'))).toBeUndefined()
    expect(await heir.adoptSession(byA)).toMatchObject({ owner: 'replica-a', revision: '2025-11-25' })
    // Its own id that it no longer knows ended here (however long ago): never rebuilt by the process that minted it.
    expect(await heir.adoptSession(heir.newSessionId(seed))).toBeUndefined()
    // A session of its own, or a request without one, is served here without a look at the body.
    expect(
      heir.forward(new Request('http://127.0.0.1:1/mcp', { method: 'POST', body: '{}' }), new URL('http://127.0.0.1:1/mcp')),
    ).toBeUndefined()
    expect(
      heir.forward(
        new Request('http://127.0.0.1:1/mcp', { method: 'POST', headers: { 'mcp-session-id': heir.newSessionId(seed) }, body: '{}' }),
        new URL('http://127.0.0.1:1/mcp'),
      ),
    ).toBeUndefined()
  })

  test('what a session id says is kept after its first open, but its age is judged again at each adoption', async () => {
    const seed = { revision: '2025-11-25' as const, clientCapabilities: { roots: {} } }
    const maxAgeMs = 300
    const byA = createReplicaForwarder(
      testSettings({ replicaId: 'replica-a', replicaPeers: 'replica-b=http://127.0.0.1:1', sealKeyFile: keyFile }),
    )!.newSessionId(seed)
    const closed = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
    const closedPort = closed.port
    await closed.stop(true)
    const heir = createReplicaForwarder(
      testSettings({
        replicaId: 'replica-b',
        replicaPeers: `replica-a=http://127.0.0.1:${closedPort}`,
        sealKeyFile: keyFile,
        replicaSessionMaxAgeMs: maxAgeMs,
      }),
    )!
    const url = new URL('http://127.0.0.1:1/mcp')
    const post = () => new Request(url, { method: 'POST', headers: { 'mcp-session-id': byA }, body: '{}' })
    // The owner refuses connections: the heir serves it, and rebuilds it from the id while it is young enough.
    expect(await heir.forward(post(), url)).toBeUndefined()
    expect(await heir.adoptSession(byA)).toMatchObject({ owner: 'replica-a', clientCapabilities: { roots: {} } })
    await Bun.sleep(maxAgeMs + 50)
    expect(await heir.forward(post(), url)).toBeUndefined()
    expect(await heir.adoptSession(byA)).toBeUndefined()
  })

  test("a replica that takes a request and dies before answering: a JSON-RPC error with the request's id, 502", async () => {
    const dying = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data: (socket) => void socket.end() } })
    const seed = { revision: '2025-11-25' as const, clientCapabilities: {} }
    const byA = createReplicaForwarder(
      testSettings({ replicaId: 'replica-a', replicaPeers: 'replica-b=http://127.0.0.1:1', sealKeyFile: keyFile }),
    )!.newSessionId(seed)
    const b = createReplicaForwarder(
      testSettings({ replicaId: 'replica-b', replicaPeers: `replica-a=http://127.0.0.1:${dying.port}`, sealKeyFile: keyFile }),
    )!
    const answer = await b.forward(
      new Request('http://127.0.0.1:1/mcp', {
        method: 'POST',
        headers: { 'mcp-session-id': byA },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call' }),
      }),
      new URL('http://127.0.0.1:1/mcp'),
    )
    expect(answer!.status).toBe(502)
    const body = (await answer!.json()) as { id: unknown; error: { code: number; message: string } }
    expect(body).toMatchObject({ id: 9, error: { code: -32603 } })
    expect(body.error.message).toContain('replica replica-a stopped while answering')
    dying.stop(true)
  })

  test('no forwarder without an id and peers; a malformed peer list is a CONFIG error', () => {
    expect(createReplicaForwarder(testSettings())).toBeUndefined()
    expect(() => parsePeers('replica-a')).toThrow('setting replicaPeers: "replica-a" is not id=http://host:port')
    expect([...parsePeers('a=http://127.0.0.1:1, b=https://h.example:8443')]).toEqual([
      ['a', 'http://127.0.0.1:1'],
      ['b', 'https://h.example:8443'],
    ])
  })
})
