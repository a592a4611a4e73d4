/**
 * Sealed legacy session ids for replicas: `Mcp-Session-Id` = a token sealed under the shared key
 * ring (seal.ts) holding the replica that answered `initialize`, when, a random nonce, and what the
 * session negotiated (revision, client capabilities and info, principal). Any replica can tell
 * whose session a request belongs to and hand it there (lib/daemon/replica-forward.ts); when that
 * replica is gone, another one rebuilds the session from the id alone (http/session-lifecycle.ts adoption),
 * so the host keeps its session without a new initialize. An id that does not open is unknown (404).
 * 2025-11-25 basic/transports.mdx: session ids are visible ASCII and cryptographically secure
 * (base64url and `.` only).
 */
import type { LegacyRevision } from '../wire/index.ts'
import { randomToken } from './random.ts'
import { type KeyRing, open, seal } from './seal.ts'
import type { Implementation, JsonObject } from './server-definition.ts'

const PURPOSE = 'mcpx session v2'
const NONCE_BYTES = 18

/** What a legacy session needs to be served anywhere: what initialize negotiated, and for whom. */
export interface SessionSeed {
  readonly revision: LegacyRevision
  readonly clientCapabilities: JsonObject
  readonly clientInfo?: Implementation
  /** The authenticated caller (HttpHandlerOptions.principalOf); only that caller may use the session. */
  readonly principal?: string
}

export interface SealedSession extends SessionSeed {
  /** The replica that minted the id. */
  readonly owner: string
  /** When it was minted (ms since the epoch). */
  readonly mintedMs: number
}

export function sealedSessionIds(ring: KeyRing, replica: string, now: () => number = Date.now): (seed: SessionSeed) => string {
  return (seed) =>
    seal(
      ring,
      JSON.stringify({
        r: replica,
        t: now(),
        n: randomToken(NONCE_BYTES),
        v: seed.revision,
        c: seed.clientCapabilities,
        i: seed.clientInfo,
        p: seed.principal,
      }),
      PURPOSE,
    )
}

/** The session a sealed id describes, or undefined when it does not open (or is not one of ours). */
export function openSession(ring: KeyRing, id: string): SealedSession | undefined {
  const text = open(ring, id, PURPOSE)
  if (text === undefined) return undefined
  try {
    const s = JSON.parse(text) as { r?: unknown; t?: unknown; v?: unknown; c?: unknown; i?: unknown; p?: unknown }
    if (typeof s.r !== 'string' || typeof s.t !== 'number' || typeof s.v !== 'string' || typeof s.c !== 'object' || s.c === null)
      return undefined
    return {
      owner: s.r,
      mintedMs: s.t,
      revision: s.v as LegacyRevision,
      clientCapabilities: s.c as JsonObject,
      ...(typeof s.i === 'object' && s.i !== null && { clientInfo: s.i as Implementation }),
      ...(typeof s.p === 'string' && { principal: s.p }),
    }
  } catch {
    return undefined
  }
}

/** The replica a sealed session id names, or undefined. */
export function sessionOwner(ring: KeyRing, id: string): string | undefined {
  return openSession(ring, id)?.owner
}
