/**
 * Sealed legacy session ids for replicas: `Mcp-Session-Id` = a token sealed under the shared key
 * ring (seal.ts) holding the replica that owns the session and a random nonce, so any replica can
 * tell whose session a request belongs to and hand it there (lib/daemon/replica-forward.ts). The
 * session itself stays in its owner's memory; an id that does not open names no replica.
 * 2025-11-25 basic/transports.mdx: session ids are visible ASCII and cryptographically secure.
 */
import { randomBytes } from 'node:crypto'
import { type KeyRing, open, seal } from './seal.ts'

const PURPOSE = 'mcpx session v1'
const NONCE_BYTES = 18

export function sealedSessionIds(ring: KeyRing, replica: string): () => string {
  return () => seal(ring, JSON.stringify({ r: replica, n: randomBytes(NONCE_BYTES).toString('base64url') }), PURPOSE)
}

/** The replica a sealed session id names, or undefined. */
export function sessionOwner(ring: KeyRing, id: string): string | undefined {
  const text = open(ring, id, PURPOSE)
  if (text === undefined) return undefined
  try {
    const owner = (JSON.parse(text) as { r?: unknown }).r
    return typeof owner === 'string' ? owner : undefined
  } catch {
    return undefined
  }
}
