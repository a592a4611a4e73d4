/**
 * The SDK peer fixtures the client engine tests run: the same test/fixtures/peers servers the
 * transport tests use (one set of SDK peers), and the spawner for their HTTP modes.
 */
import { join } from 'node:path'
import { PEERS, startHttpPeer } from '../transport/peer-harness.ts'

export const LEGACY = join(PEERS, 'sdk-legacy-fixture.ts')
export const MODERN = join(PEERS, 'sdk-modern-fixture.ts')
export { startHttpPeer as serveFixture }
