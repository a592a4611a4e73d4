/**
 * A 2026-07-28 upstream over HTTP whose `subscriptions/listen` stream ends without its closing
 * response (the server restarted) is listened to again (2026-07-28 basic/patterns/subscriptions.mdx:
 * "a transport that closes without it indicates an unexpected disconnect, which the client MAY
 * treat as a trigger to reconnect"), and since what changed meanwhile was not heard, the lists count
 * as changed: a host keeps hearing list_changed across the upstream's restart.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { join } from 'node:path'
import { REPO_ROOT } from '../harness.ts'
import { testGateway } from '../support/gateway-daemon.ts'
import { type ListeningPeer, freePort, holdsWithin, startListening } from '../support/restartable-peer.ts'

const FIXTURE = join(REPO_ROOT, 'test/fixtures/everything/main.ts')
/** How long a change may take to reach the host (the listen is opened again after a backoff). */
const SETTLE_MS = 15_000

const port = freePort()
let upstream: ListeningPeer | undefined

/** mcpx's everything fixture on `port`. */
function startUpstream(): Promise<ListeningPeer> {
  return startListening([process.execPath, FIXTURE, '--port', String(port)], /listening on/)
}

beforeAll(async () => {
  upstream = await startUpstream()
})
const gateway = testGateway('upstream-listen-reopen', { fx: { url: `http://127.0.0.1:${port}/mcp` } })
afterAll(() => {
  upstream?.kill()
})

describe('a modern upstream restarted under its listen stream', () => {
  test.each([
    ['SIGTERM', 'stops gracefully (its listen streams closed cleanly)'],
    ['SIGKILL', 'crashes (its listen stream cut)'],
  ] as const)('%s, the upstream %s: list_changed keeps reaching the host through pass-through', async (signal) => {
    const client = new Client({ name: 'host', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.mcpUrl}?passthrough=fx`), { requestInit: { headers: gateway.headers } }),
    )
    let changes = 0
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++)
    try {
      expect((await client.callTool({ name: 'test_trigger_tool_change', arguments: {} })).isError ?? false).toBe(false)
      expect(await holdsWithin(() => changes >= 1, SETTLE_MS)).toBe(true)
      upstream?.kill(signal)
      await upstream?.exited
      upstream = await startUpstream()
      // What changed while it was away was not heard: the lists count as changed once it is listened to again.
      expect(await holdsWithin(() => changes >= 2, SETTLE_MS)).toBe(true)
      const before = changes
      expect((await client.callTool({ name: 'test_trigger_tool_change', arguments: {} })).isError ?? false).toBe(false)
      expect(await holdsWithin(() => changes > before, SETTLE_MS)).toBe(true)
    } finally {
      await client.close()
    }
  })
})
