/** lib/daemon/daemon-client.ts: DaemonClient reaching (and failing to reach) a daemon. */
import { describe, expect, test } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { homeLayout } from '../../../lib/config/index.ts'
import { DaemonClient } from '../../../lib/daemon/index.ts'
import { tempDir } from '../../harness.ts'

describe('DaemonClient', () => {
  test('no daemon: health is null, requests are CONNECT naming the socket and how to start it', async () => {
    using dir = tempDir('mcpx-client')
    const layout = homeLayout(join(dir.path, 'home'), join(dir.path, 'config.json'))
    const client = new DaemonClient({ layout })
    expect(await client.health()).toBeNull()
    await expect(client.request('servers')).rejects.toMatchObject({
      code: 'CONNECT',
      data: { daemon: 'unreachable', socket: layout.socket },
    })
    await expect(new DaemonClient({ layout, via: 'tcp' }).request('servers')).rejects.toMatchObject({ code: 'CONNECT' })
    expect(await client.stop()).toBe(false)
  })

  test('a wedged daemon fails the health probe with TIMEOUT instead of hanging the command', async () => {
    using dir = tempDir('mcpx-client')
    const layout = homeLayout(join(dir.path, 'home'), join(dir.path, 'config.json'))
    mkdirSync(layout.runDir, { recursive: true })
    const never = Promise.withResolvers<Response>()
    await using _wedged = Bun.serve({ unix: layout.socket, fetch: () => never.promise })
    const client = new DaemonClient({ layout, healthTimeoutMs: 100 })
    await expect(client.health()).rejects.toMatchObject({ code: 'TIMEOUT', data: { socket: layout.socket } })
    never.resolve(new Response('late'))
  })
})
