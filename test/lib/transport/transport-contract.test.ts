/** One contract, every client transport: start once, onClose exactly once, no send after close. */
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { createHttpTransport, createSseTransport, createStdioTransport, type Transport } from '../../../lib/transport/index.ts'
import { testSettings } from '../../harness.ts'
import { initialize, listTools, open, PEERS, startHttpPeer } from './peer-harness.ts'

const settings = testSettings({ shutdownGraceMs: 300 })

type Case = { name: string; kind: Transport['kind']; make(): Promise<{ transport: Transport; [Symbol.asyncDispose](): Promise<void> }> }

const cases: Case[] = [
  {
    name: 'stdio (SDK 1.x)',
    kind: 'stdio',
    make: async () => ({
      transport: createStdioTransport({ command: process.execPath, args: [join(PEERS, 'sdk-legacy-fixture.ts'), 'stdio'] }, settings),
      async [Symbol.asyncDispose]() {},
    }),
  },
  {
    name: 'Streamable HTTP (SDK 1.x stateful)',
    kind: 'streamable-http',
    async make() {
      const peer = await startHttpPeer('sdk-legacy-fixture.ts', 'http')
      return { transport: createHttpTransport({ url: peer.url }, settings), [Symbol.asyncDispose]: () => peer[Symbol.asyncDispose]() }
    },
  },
  {
    name: 'HTTP+SSE (SDK 1.x)',
    kind: 'http+sse',
    async make() {
      const peer = await startHttpPeer('sdk-legacy-fixture.ts', 'sse')
      return { transport: createSseTransport({ url: peer.url }, settings), [Symbol.asyncDispose]: () => peer[Symbol.asyncDispose]() }
    },
  },
]

for (const c of cases) {
  describe(`Transport contract: ${c.name}`, () => {
    test('kind, one round trip, start twice refused, close idempotent with one onClose, send after close refused', async () => {
      await using made = await c.make()
      expect(made.transport.kind).toBe(c.kind)
      const conn = await open(made.transport)
      await expect(made.transport.start(conn.rec.handlers)).rejects.toMatchObject({ code: 'INTERNAL' })
      await made.transport.send(initialize(1))
      expect(await conn.rec.response(1)).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'sdk-legacy-fixture' } } })
      await Promise.all([made.transport.close(), made.transport.close()])
      await made.transport.close()
      expect(await conn.rec.closed).toBeUndefined()
      expect(conn.rec.closeCount()).toBe(1)
      await expect(made.transport.send(listTools(2))).rejects.toMatchObject({ code: 'CONNECT' })
    })
  })
}
