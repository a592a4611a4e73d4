/**
 * The one access decision for every route on both listeners (/v1 and, later, /mcp), in order:
 * Host (DNS rebinding), Origin (cross-site pages), bearer token (TCP only; the Unix socket relies
 * on its 0700 directory), and JSON-only POST bodies (no CORS-simple text/plain or form posts).
 * 2025-11-25 basic/transports.mdx: "If the Origin header is present and invalid, servers MUST
 * respond with HTTP 403 Forbidden"; 2026-07-28 basic/transports/streamable-http.mdx likewise.
 */
import { HTTP_STATUS, LOOPBACK_HOSTNAMES, isJsonMediaType } from '../wire/index.ts'

/** Which of the daemon's two listeners a request came in on (not an MCP surface: those are lib/gateway's). */
export type ListenerKind = 'unix' | 'tcp'

export interface GuardPolicy {
  /** Bearer token required on TCP. */
  readonly token: string
  /** false: TCP requests pass without the token (only allowed on a loopback address; daemon.ts checks). */
  readonly requireToken?: boolean
  /** Extra Host names accepted besides the loopback names (lower case, no port). */
  readonly allowedHosts: ReadonlySet<string>
  /** Origins (scheme://host[:port]) allowed besides the daemon's own loopback origin. */
  readonly allowedOrigins: ReadonlySet<string>
  /** The TCP port actually bound (for the same-origin check). */
  readonly port: () => number
  /**
   * Paths whose route authenticates TCP callers itself (/mcp and its metadata when OAuth is on;
   * lib/daemon/mcp-auth.ts): the guard skips its token check there, nothing else.
   */
  readonly authenticatesItself?: (pathname: string) => boolean
  /** false: the local token is not accepted on TCP at all (a non-loopback listener with OAuth on /mcp). */
  readonly localTokenOnTcp?: boolean
  /**
   * The last Host and Content-Type values found to pass: a client sends the same ones on every
   * request, so they are judged once (what checkRequest writes; the daemon's policy has one).
   */
  readonly passed?: { host?: string; contentType?: string }
}

export interface Rejection {
  readonly status:
    | typeof HTTP_STATUS.BAD_REQUEST
    | typeof HTTP_STATUS.UNAUTHORIZED
    | typeof HTTP_STATUS.FORBIDDEN
    | typeof HTTP_STATUS.UNSUPPORTED_MEDIA_TYPE
  readonly code: 'AUTH' | 'USAGE'
  readonly message: string
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH'])

/** null = allowed; otherwise the status and message to answer with. */
export function checkRequest(
  request: Request,
  listener: ListenerKind,
  policy: GuardPolicy,
  pathname = new URL(request.url).pathname,
): Rejection | null {
  const headers = request.headers
  const host = headers.get('host')
  if ((host !== null || listener === 'tcp') && (host === null || host !== policy.passed?.host)) {
    const hostname = host === null ? '' : hostnameOf(host)
    if (!LOOPBACK_HOSTNAMES.has(hostname) && !policy.allowedHosts.has(hostname)) {
      return {
        status: HTTP_STATUS.FORBIDDEN,
        code: 'AUTH',
        message: `Host ${JSON.stringify(host)} is not allowed (DNS rebinding protection)`,
      }
    }
    if (policy.passed !== undefined && host !== null) policy.passed.host = host
  }
  const origin = headers.get('origin')
  if (origin !== null && !isAllowedOrigin(origin, policy)) {
    return { status: HTTP_STATUS.FORBIDDEN, code: 'AUTH', message: `Origin ${JSON.stringify(origin)} is not allowed` }
  }
  if (listener === 'tcp' && policy.requireToken !== false && !policy.authenticatesItself?.(pathname)) {
    if (policy.localTokenOnTcp === false)
      return {
        status: HTTP_STATUS.FORBIDDEN,
        code: 'AUTH',
        message: 'this listener is not on loopback and serves only /mcp with OAuth access tokens',
      }
    if (!hasToken(request, policy.token))
      return {
        status: HTTP_STATUS.UNAUTHORIZED,
        code: 'AUTH',
        message: 'missing or wrong bearer token (local clients read it from the token file in the mcpx home)',
      }
  }
  if (BODY_METHODS.has(request.method)) {
    const contentType = headers.get('content-type')
    if (contentType === null || contentType !== policy.passed?.contentType) {
      if (!isJsonMediaType(contentType))
        return {
          status: HTTP_STATUS.UNSUPPORTED_MEDIA_TYPE,
          code: 'USAGE',
          message: 'request bodies must be Content-Type: application/json',
        }
      if (policy.passed !== undefined && contentType !== null) policy.passed.contentType = contentType
    }
  }
  return null
}

function hostnameOf(host: string): string {
  const lower = host.trim().toLowerCase()
  if (lower.startsWith('[')) return lower.slice(0, lower.indexOf(']') + 1)
  const colon = lower.lastIndexOf(':')
  return colon === -1 ? lower : lower.slice(0, colon)
}

function isAllowedOrigin(origin: string, policy: GuardPolicy): boolean {
  if (policy.allowedOrigins.has(origin)) return true
  // Pages served by the daemon itself (same origin) are the only browser callers allowed by default.
  let parsed: URL
  try {
    parsed = new URL(origin)
  } catch {
    return false
  }
  return (
    parsed.protocol === 'http:' &&
    LOOPBACK_HOSTNAMES.has(parsed.hostname) &&
    Number(parsed.port) === policy.port() &&
    parsed.origin === origin
  )
}

/**
 * The request's bearer token is the daemon's local token, compared in constant time: every
 * character is visited and the differences OR-ed, never an early exit (what timingSafeEqual does
 * with bytes, without encoding both strings to Buffers on every TCP request; equal strings are
 * equal UTF-8). Only the length can differ visibly, as with timingSafeEqual's length check.
 */
export function hasToken(request: Request, token: string): boolean {
  const header = request.headers.get('authorization') ?? ''
  // The usual spelling, `Bearer <token>`, is compared in place; any other the RFC 6750 pattern reads.
  if (header.length === BEARER_PREFIX.length + token.length && header.startsWith(BEARER_PREFIX))
    return sameCharacters(header, BEARER_PREFIX.length, token)
  const match = BEARER.exec(header)
  return match !== null && match[1]!.length === token.length && sameCharacters(match[1]!, 0, token)
}

const BEARER_PREFIX = 'Bearer '
const BEARER = /^Bearer\s+(\S+)\s*$/i

/** `text` from `offset` holds `token`, compared over every character (no early exit). */
function sameCharacters(text: string, offset: number, token: string): boolean {
  let difference = 0
  for (let i = 0; i < token.length; i++) difference |= text.charCodeAt(offset + i) ^ token.charCodeAt(i)
  return difference === 0
}

/** Split a comma-separated setting into a set of trimmed, non-empty, lower-cased values. */
export function listSetting(value: string, lowerCase = true): Set<string> {
  return new Set(
    value
      .split(',')
      .map((item) => (lowerCase ? item.trim().toLowerCase() : item.trim()))
      .filter((item) => item !== ''),
  )
}
