/**
 * DNS-rebinding protection (servers MUST validate Origin; a present, invalid one gets 403): the Host must name this
 * listener (loopback with its port, or
 * allow-listed) and a present Origin must be its own loopback origin or allow-listed; checking Host
 * stops a rebinding page even without an Origin. 2025-11-25 basic/transports.mdx, 2026-07-28
 * streamable-http.mdx "Security Warning": a present but invalid Origin MUST get 403.
 */
import { RPC, RpcError } from '../../errors/index.ts'
import { HTTP_STATUS, LOOPBACK_HOSTNAMES } from '../../wire/index.ts'
import { rpcErrorResponse } from './body.ts'

export interface OriginPolicy {
  /** The port the listener is bound to; a loopback Host or Origin must carry it. Undefined: any port. */
  readonly port?: number
  /** Extra Host values accepted: `name` (any port) or `name:port`, case-insensitive. */
  readonly allowedHosts?: readonly string[]
  /** Extra Origins accepted, exactly as browsers send them (`https://app.example.com`). */
  readonly allowedOrigins?: readonly string[]
  /** false only where Host is meaningless (a Unix socket): then only Origin is checked. */
  readonly checkHost?: boolean
}

const DEFAULT_PORT: Record<string, number> = { 'http:': 80, 'https:': 443 }

/** undefined when the request may proceed; otherwise the 403 Response to send. */
export function checkOrigin(request: Request, policy: OriginPolicy = {}): Response | undefined {
  if (policy.checkHost !== false) {
    const host = request.headers.get('host') ?? safeUrl(request.url)?.host ?? ''
    if (!isAllowedHost(host, policy)) return forbidden(`Host ${JSON.stringify(host)} is not allowed (DNS rebinding protection)`)
  }
  const origin = request.headers.get('origin')
  if (origin !== null && !isAllowedOrigin(origin, policy)) return forbidden(`Origin ${JSON.stringify(origin)} is not allowed`)
  return undefined
}

/** Host header check, exported for the daemon-style callers that want the bare decision. */
export function isAllowedHost(host: string, policy: OriginPolicy = {}): boolean {
  const parsed = splitHost(host)
  if (parsed === undefined) return false
  if (LOOPBACK_HOSTNAMES.has(parsed.name) && portMatches(parsed.port, policy.port, 80)) return true
  return (policy.allowedHosts ?? []).some((entry) => {
    const allowed = splitHost(entry)
    if (allowed === undefined || allowed.name !== parsed.name) return false
    return allowed.port === undefined || allowed.port === parsed.port
  })
}

/** Origin check: `null` (sandboxed frames, file://) is never allowed by default. */
export function isAllowedOrigin(origin: string, policy: OriginPolicy = {}): boolean {
  const trimmed = origin.trim()
  if ((policy.allowedOrigins ?? []).some((entry) => entry.trim().toLowerCase() === trimmed.toLowerCase())) return true
  const url = safeUrl(trimmed)
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) return false
  const port = url.port === '' ? DEFAULT_PORT[url.protocol] : Number(url.port)
  return LOOPBACK_HOSTNAMES.has(url.hostname) && portMatches(port, policy.port, port)
}

function portMatches(given: number | undefined, expected: number | undefined, implied: number | undefined): boolean {
  if (expected === undefined) return true
  return (given ?? implied) === expected
}

// "name[:port]" → lower-case name (IPv6 keeps its brackets) and numeric port; undefined if malformed.
function splitHost(value: string): { name: string; port?: number } | undefined {
  const lower = value.trim().toLowerCase()
  if (lower === '') return undefined
  let name = lower
  let portText: string | undefined
  if (lower.startsWith('[')) {
    const close = lower.indexOf(']')
    if (close === -1) return undefined
    name = lower.slice(0, close + 1)
    const rest = lower.slice(close + 1)
    if (rest !== '') {
      if (!rest.startsWith(':')) return undefined
      portText = rest.slice(1)
    }
  } else {
    const colon = lower.indexOf(':')
    if (colon !== -1) {
      name = lower.slice(0, colon)
      portText = lower.slice(colon + 1)
    }
  }
  if (portText === undefined) return { name }
  if (!/^\d{1,5}$/.test(portText)) return undefined
  return { name, port: Number(portText) }
}

function safeUrl(value: string): URL | undefined {
  try {
    return new URL(value)
  } catch {
    return undefined
  }
}

function forbidden(message: string): Response {
  return rpcErrorResponse(HTTP_STATUS.FORBIDDEN, new RpcError(RPC.INVALID_REQUEST, `Forbidden: ${message}`))
}
