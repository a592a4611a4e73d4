/**
 * lib/session/peer.ts over a real stdio server that answers badly (hostile-stdio-fixture.ts): an id
 * echoed as its decimal string still answers its request, and a response that is no valid one
 * fails the request it names at once, saying why, instead of leaving it to its deadline.
 */
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { McpxError } from '../../../lib/errors/index.ts'
import { Peer } from '../../../lib/session/index.ts'
import { createStdioTransport } from '../../../lib/transport/index.ts'
import { testSettings } from '../../harness.ts'
import { PEERS } from '../transport/peer-harness.ts'

/** Far longer than any answer here takes: a request that fails sooner did not wait it out. */
const DEADLINE_MS = 30_000
const settings = testSettings({ shutdownGraceMs: 300 })

async function peerOn(mode: string): Promise<Peer & AsyncDisposable> {
  const transport = createStdioTransport({ command: process.execPath, args: [join(PEERS, 'hostile-stdio-fixture.ts'), mode] }, settings)
  const peer = new Peer(transport, { requestTimeoutMs: DEADLINE_MS })
  await peer.start()
  return Object.assign(peer, { [Symbol.asyncDispose]: () => transport.close() })
}

describe('a peer whose answers are not quite right', () => {
  test('an id echoed back as its decimal string answers the request', async () => {
    await using peer = await peerOn('string-ids')
    expect(await peer.request('tools/list', {})).toEqual({ method: 'tools/list' })
    expect(await peer.request('ping', {})).toEqual({ method: 'ping' })
  })

  test('a response that is no valid one fails its request at once, naming the problem', async () => {
    await using peer = await peerOn('bad-error')
    const started = performance.now()
    const error = await peer.request('tools/call', { name: 'x' }).catch((e: unknown) => e)
    expect(performance.now() - started).toBeLessThan(DEADLINE_MS / 2)
    expect(error).toBeInstanceOf(McpxError)
    expect((error as McpxError).code).toBe('PROTOCOL')
    expect((error as McpxError).message).toStartWith('tools/call: the answer is malformed: ')
    expect((error as McpxError).message).toContain('error.code')
  })

  test('an invalid request that reuses a pending id does not fail that request', async () => {
    await using peer = await peerOn('bad-request')
    expect(await peer.request('tools/list', {})).toEqual({ method: 'tools/list' })
  })
})
