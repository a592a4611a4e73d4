/**
 * Who is calling /mcp: the machine's owner (the Unix socket, or the local token on a loopback
 * listener), or a caller authenticated by an OAuth access token. The id is what binds MRTR
 * requestState, legacy sessions and brokered questions to one caller.
 */
export interface Principal {
  readonly kind: 'owner' | 'oauth'
  /** Stable and unique per caller: `owner`, or `<issuer>#<sub>`. */
  readonly id: string
  /** The token's `sub` (or its `client_id` when it has none); `owner` for the owner. */
  readonly subject: string
  readonly scopes: readonly string[]
  readonly groups: readonly string[]
  readonly clientId?: string
}

export const OWNER: Principal = Object.freeze({ kind: 'owner', id: 'owner', subject: 'owner', scopes: [], groups: [] })

/** Space-separated `scope` (RFC 6749 section 3.3, RFC 9068 section 2.2.3) or an array (`scp`, some servers). */
function scopesOf(claims: Record<string, unknown>): string[] {
  const raw = claims.scope ?? claims.scp
  if (typeof raw === 'string') return raw.split(' ').filter(Boolean)
  if (Array.isArray(raw)) return raw.filter((s): s is string => typeof s === 'string')
  return []
}

/** A groups claim may be an array of names or one space-separated string. */
function groupsOf(claims: Record<string, unknown>, claim: string): string[] {
  const raw = claims[claim]
  if (Array.isArray(raw)) return raw.filter((g): g is string => typeof g === 'string')
  if (typeof raw === 'string') return raw.split(' ').filter(Boolean)
  return []
}

export function oauthPrincipal(issuer: string, claims: Record<string, unknown>, groupsClaim: string): Principal | undefined {
  const clientId = typeof claims.client_id === 'string' ? claims.client_id : undefined
  const subject = typeof claims.sub === 'string' && claims.sub !== '' ? claims.sub : clientId
  if (subject === undefined) return undefined
  return {
    kind: 'oauth',
    id: `${issuer}#${subject}`,
    subject,
    scopes: scopesOf(claims),
    groups: groupsOf(claims, groupsClaim),
    ...(clientId !== undefined && { clientId }),
  }
}
