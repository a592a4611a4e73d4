/**
 * Parses `WWW-Authenticate` challenges (RFC 9110 section 11.6.1, RFC 6750 section 3): the Bearer challenge's
 * `resource_metadata` (RFC 9728 section 5.1), `scope`, `error` and `error_description`. Tolerant of
 * several challenges in one header and of quoted strings with escapes; never throws.
 */

export interface BearerChallenge {
  /** Which challenge this came from: `Bearer` (RFC 6750) or `DPoP` (RFC 9449 section 7.1). */
  scheme?: 'Bearer' | 'DPoP'
  /** A `DPoP-Nonce` response header (RFC 9449 section 9), when the server sent one. */
  dpopNonce?: string
  /** URL of the protected resource metadata document (RFC 9728 section 5.1). */
  resourceMetadata?: string
  /** Space-separated scopes the server says the current operation needs. */
  scope?: string
  /** e.g. `invalid_token`, `insufficient_scope` (RFC 6750 section 3.1). */
  error?: string
  errorDescription?: string
}

interface Challenge {
  scheme: string
  params: Record<string, string>
}

/**
 * The token challenge of a response: the Bearer one, else a DPoP one (same parameters). Empty
 * when there is neither. A server offering both gets Bearer: it needs no per-request proof.
 */
export function parseBearerChallenge(response: Response): BearerChallenge {
  const header = response.headers.get('www-authenticate')
  if (!header) return {}
  const challenges = parseChallenges(header)
  const bearer = challenges.find((c) => c.scheme.toLowerCase() === 'bearer') ?? challenges.find((c) => c.scheme.toLowerCase() === 'dpop')
  if (!bearer) return {}
  const p = bearer.params
  const out: BearerChallenge = { scheme: bearer.scheme.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer' }
  const nonce = response.headers.get('dpop-nonce')
  if (nonce) out.dpopNonce = nonce
  if (p.resource_metadata) out.resourceMetadata = p.resource_metadata
  if (p.scope !== undefined) out.scope = p.scope
  if (p.error) out.error = p.error
  if (p.error_description) out.errorDescription = p.error_description
  return out
}

/** Split a header value into challenges: `Scheme k=v, k="v", Other k=v`. */
function parseChallenges(header: string): Challenge[] {
  const challenges: Challenge[] = []
  let i = 0
  let current: Challenge | undefined
  const skip = (chars: string): void => {
    while (i < header.length && chars.includes(header[i]!)) i++
  }
  while (i < header.length) {
    skip(' \t,')
    if (i >= header.length) break
    const tokenStart = i
    while (i < header.length && !' \t,='.includes(header[i]!)) i++
    const token = header.slice(tokenStart, i)
    skip(' \t')
    if (header[i] === '=' && current) {
      // auth-param: token "=" ( token / quoted-string )
      i++
      skip(' \t')
      let value = ''
      if (header[i] === '"') {
        i++
        while (i < header.length && header[i] !== '"') {
          if (header[i] === '\\' && i + 1 < header.length) i++
          value += header[i]
          i++
        }
        i++
      } else {
        const valueStart = i
        while (i < header.length && !' \t,'.includes(header[i]!)) i++
        value = header.slice(valueStart, i)
      }
      current.params[token.toLowerCase()] = value
    } else if (header[i] === '=') {
      while (i < header.length && header[i] !== ',') i++
    } else {
      // A token68 after a scheme (`Basic abc==`) reads as a junk parameter; only Bearer matters here.
      current = { scheme: token, params: {} }
      challenges.push(current)
    }
  }
  return challenges
}

/** Split a space-separated scope string into a de-duplicated list. */
export function splitScopes(scope: string | undefined): string[] {
  return [...new Set((scope ?? '').split(/\s+/).filter(Boolean))]
}
