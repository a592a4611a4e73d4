/**
 * A legacy Streamable HTTP upstream that loses its session (it restarted, or forgot it) is served
 * on through a new one without the host noticing (2025-11-25 basic/transports.mdx "Session
 * Management": the client MUST start a new session), and the gateway starts over with it as with a
 * reconnected upstream: its lists are read again, and the standalone GET stream follows the new
 * session, so list_changed keeps arriving. The refusal may be the spec's 404 or the 400 that servers
 * built on the SDK's example code answer (server-everything, restarted on its port).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { LEGACY, serveFixture } from '../lib/client/sdk-peers.ts'
import { testGateway } from '../support/gateway-daemon.ts'
import { type ListeningPeer, SERVER_EVERYTHING, freePort, holdsWithin, startListening } from '../support/restartable-peer.ts'

/** How long a change may take to reach the host's list (the gateway re-reads it in the background). */
const SETTLE_MS = 15_000

const everythingPort = freePort()
let everything: ListeningPeer | undefined

/** server-everything over Streamable HTTP (its sessions in memory). */
function startEverything(): Promise<ListeningPeer> {
  return startListening(['node', SERVER_EVERYTHING, 'streamableHttp'], /listening on port/i, { PORT: String(everythingPort) })
}

const servers: Record<string, unknown> = {}
let fixture: Awaited<ReturnType<typeof serveFixture>> | undefined
const againPort = freePort()
let again: Awaited<ReturnType<typeof serveFixture>> | undefined
/** Answers each new session's initialize late, so requests can be made while the gateway renews one. */
let slow: Awaited<ReturnType<typeof serveFixture>> | undefined
const SLOW_INITIALIZE_MS = 400
const slowPort = freePort()
const startSlow = () =>
  serveFixture(LEGACY, 'http', { FIXTURE_PORT: String(slowPort), FIXTURE_INITIALIZE_DELAY_MS: String(SLOW_INITIALIZE_MS) })
beforeAll(async () => {
  fixture = await serveFixture(LEGACY, 'http')
  slow = await startSlow()
  servers.slow = { url: slow.url }
  everything = await startEverything()
  again = await serveFixture(LEGACY, 'http', { FIXTURE_PORT: String(againPort) })
  servers.up = { url: fixture.url }
  servers.everything = { url: `http://127.0.0.1:${everythingPort}/mcp` }
  servers.again = { url: again.url }
})
const gateway = testGateway('upstream-session-renewal', servers)
afterAll(async () => {
  everything?.kill()
  await fixture?.[Symbol.asyncDispose]()
  await again?.[Symbol.asyncDispose]()
  await slow?.[Symbol.asyncDispose]()
})

async function host(): Promise<Client> {
  const client = new Client({ name: 'host', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gateway.mcpUrl}?codemode=false`), { requestInit: { headers: gateway.headers } }),
  )
  return client
}

function textOf(result: unknown): string {
  return ((result as { content?: { text?: string }[] }).content ?? []).map((part) => part.text ?? '').join('')
}

/** Until `ok(names)` holds for the host's tools/list, or SETTLE_MS have passed (then the last list). */
async function listUntil(client: Client, ok: (names: string[]) => boolean): Promise<string[]> {
  const deadline = Date.now() + SETTLE_MS
  for (;;) {
    const names = (await client.listTools()).tools.map((tool) => tool.name)
    if (ok(names) || Date.now() > deadline) return names
    await Bun.sleep(50)
  }
}

describe('an upstream session lost and replaced', () => {
  test('404: the call goes on in a new session, the lists are those of the new session, and its list_changed arrive', async () => {
    const client = await host()
    try {
      expect(textOf(await client.callTool({ name: 'up_touch', arguments: {} }))).toBe('added 1')
      expect(await listUntil(client, (names) => names.includes('up_added-1'))).toContain('up_added-1')
      // The upstream forgets the gateway's session: its next request gets 404.
      expect(textOf(await client.callTool({ name: 'up_expire', arguments: {} }))).toBe('expired 1')
      expect(textOf(await client.callTool({ name: 'up_echo', arguments: { text: 'after' } }))).toBe('after')
      // The new session's server has no added tool: the list that had one is read again.
      expect(await listUntil(client, (names) => !names.includes('up_added-1'))).not.toContain('up_added-1')
      // Its list_changed arrives on a GET stream opened for the new session.
      expect(textOf(await client.callTool({ name: 'up_touch', arguments: {} }))).toBe('added 1')
      expect(await listUntil(client, (names) => names.includes('up_added-1'))).toContain('up_added-1')
    } finally {
      await client.close()
    }
  })

  test('calls made while the new session is being set up wait for it, and go in it', async () => {
    const client = await host()
    try {
      expect(textOf(await client.callTool({ name: 'slow_echo', arguments: { text: 'before' } }))).toBe('before')
      expect(textOf(await client.callTool({ name: 'slow_expire', arguments: {} }))).toBe('expired 1')
      // The first call finds the session gone and starts a new one, whose initialize is answered
      // late; the others are made during that handshake. Before, they went without a session id,
      // and the server refused them as sent before initialize.
      const first = client.callTool({ name: 'slow_echo', arguments: { text: 'first' } })
      await Bun.sleep(SLOW_INITIALIZE_MS / 2)
      const during = await Promise.all(['a', 'b', 'c'].map((text) => client.callTool({ name: 'slow_echo', arguments: { text } })))
      expect(textOf(await first)).toBe('first')
      expect(during.map(textOf)).toEqual(['a', 'b', 'c'])
    } finally {
      await client.close()
    }
  })

  test('a new session that cannot be set up is a lost connection: once the server is back, calls go in a new one', async () => {
    const client = await host()
    try {
      expect(textOf(await client.callTool({ name: 'slow_expire', arguments: {} }))).toMatch(/^expired/)
      const lost = client.callTool({ name: 'slow_echo', arguments: { text: 'lost' } })
      // The server goes away while it holds the new session's initialize.
      await Bun.sleep(SLOW_INITIALIZE_MS / 2)
      await slow?.[Symbol.asyncDispose]()
      expect((await lost).isError).toBe(true)
      slow = await startSlow()
      // Before, the connection stayed without a session: every later call was refused as made before initialize.
      const deadline = Date.now() + SETTLE_MS
      let after = await client.callTool({ name: 'slow_echo', arguments: { text: 'back' } })
      while (after.isError && Date.now() < deadline) {
        await Bun.sleep(100)
        after = await client.callTool({ name: 'slow_echo', arguments: { text: 'back' } })
      }
      expect(textOf(after)).toBe('back')
    } finally {
      await client.close()
    }
  })

  test('400 "No valid session ID provided" from a restarted server-everything: the next call succeeds', async () => {
    const client = await host()
    try {
      const sum = { name: 'everything_get-sum', arguments: { a: 1, b: 2 } }
      expect(textOf(await client.callTool(sum))).toBe('The sum of 1 and 2 is 3.')
      everything?.kill()
      await everything?.exited
      everything = await startEverything()
      const after = await client.callTool({ name: 'everything_get-sum', arguments: { a: 2, b: 3 } })
      expect(after.isError ?? false).toBe(false)
      expect(textOf(after)).toBe('The sum of 2 and 3 is 5.')
    } finally {
      await client.close()
    }
  })

  test.each([
    ['pass-through', '?passthrough=everything', 'toggle-subscriber-updates', ''],
    ['the raw surface', '?codemode=false', 'everything_toggle-subscriber-updates', 'mcpx://everything/'],
  ] as const)('%s: the upstream subscriptions behind a host are made again in the new session', async (_, query, toggle, prefix) => {
    const client = new Client({ name: 'host', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.mcpUrl}${query}`), { requestInit: { headers: gateway.headers } }),
    )
    const uri = `${prefix}demo://resource/static/document/features.md`
    const updates: string[] = []
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updates.push(notification.params.uri))
    // The tool toggles the updates of the gateway's one upstream session, which every surface shares: on, then.
    const startUpdates = async () => {
      if (textOf(await client.callTool({ name: toggle, arguments: {} })).startsWith('Stopped')) await startUpdates()
    }
    try {
      await client.subscribeResource({ uri })
      // server-everything sends an update for each resource its caller's session subscribed to, at once.
      await startUpdates()
      expect(await holdsWithin(() => updates.includes(uri), SETTLE_MS)).toBe(true)
      everything?.kill()
      await everything?.exited
      everything = await startEverything()
      updates.length = 0
      await startUpdates()
      expect(await holdsWithin(() => updates.includes(uri), SETTLE_MS)).toBe(true)
    } finally {
      await client.close()
    }
  })

  test('restarted with another tool while nothing is asked: the standalone stream finds the session gone, and the host hears of the new list', async () => {
    const client = await host()
    let changes = 0
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++)
    try {
      expect(textOf(await client.callTool({ name: 'again_echo', arguments: { text: 'before' } }))).toBe('before')
      expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('again_fresh')
      await again?.[Symbol.asyncDispose]()
      again = await serveFixture(LEGACY, 'http', { FIXTURE_PORT: String(againPort), FIXTURE_EXTRA_TOOL: 'fresh' })
      expect(await listUntil(client, (names) => names.includes('again_fresh'))).toContain('again_fresh')
      expect(changes).toBeGreaterThan(0)
      expect(textOf(await client.callTool({ name: 'again_fresh', arguments: {} }))).toBe('extra')
    } finally {
      await client.close()
    }
  })
})
