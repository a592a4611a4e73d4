/**
 * The one way the client transports do HTTP: Bun's fetch with no idle or whole-response timeout
 * (deadlines come only from the caller's AbortSignal: a fetch timeout would also cut long SSE responses), credentials from an optional
 * AuthProvider with bounded re-authorization on 401/403, capped body reads, and the CONNECT error
 * contract (`httpStatus`, `contentType`, `body`, `sessionExpired`, `wwwAuthenticate`, `url`).
 */
import { McpxError } from '../errors/index.ts'
import { log } from '../log/index.ts'
import { bodyLine } from './decode-messages.ts'
import type { AuthProvider } from './contract.ts'
import type { Settings } from '../settings/index.ts'
import { HTTP_STATUS } from '../wire/index.ts'

/** How much of an unexpected response body an error quotes (`data.body`). */
const ERROR_BODY_BYTES = 2048

export interface FetchContext {
  url: string
  auth?: AuthProvider
  /** Most consecutive re-authorizations for one request (settings.authMaxRetries). */
  authMaxRetries: number
  /** Stands in for the global fetch (mcpx record's HTTP-level tap keeps status and SSE framing). */
  fetch?: FetchFunction
  /** A request answered 429 or 503 is sent again (settings httpBusyRetries, …MaxWaitMs, …DelayMs); none without. */
  busy?: BusyRetry
  /** Most redirects one request follows (settings.httpMaxRedirects); none without. */
  maxRedirects?: number
  /** Told of each redirect followed, to say once that the configured URL has moved. */
  onRedirect?: (from: string, to: string, status: number) => void
}

export interface BusyRetry {
  readonly retries: number
  readonly maxWaitMs: number
  readonly delayMs: number
}

export type FetchPolicySettings = Pick<Settings, 'httpBusyRetries' | 'httpBusyRetryMaxWaitMs' | 'httpBusyRetryDelayMs' | 'httpMaxRedirects'>

/** How a transport's requests are sent again and redirected, from the settings. */
export function fetchPolicyOf(settings: FetchPolicySettings): Pick<FetchContext, 'busy' | 'maxRedirects' | 'onRedirect'> {
  const noted = new Set<string>()
  return {
    busy: { retries: settings.httpBusyRetries, maxWaitMs: settings.httpBusyRetryMaxWaitMs, delayMs: settings.httpBusyRetryDelayMs },
    maxRedirects: settings.httpMaxRedirects,
    onRedirect(from, to, status) {
      if (noted.has(`${from} ${to}`)) return
      noted.add(`${from} ${to}`)
      log.warn(`${from} redirects (${status}) to ${to}; mcpx follows it, but the config could name ${to} itself`)
    },
  }
}

/** Redirect statuses (RFC 9110 section 15.4); 303 alone turns the request into a GET. */
const REDIRECTS = new Set([301, 302, 303, 307, 308])
const SEE_OTHER = 303
/** What goes only to the origin it was meant for (as fetch drops Authorization across origins). */
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'dpop']

/**
 * Answers that say the server did not take the request (RFC 9110 section 15.6.4, RFC 6585 section 4),
 * so sending it again cannot run it twice. 502 and 504 are not among them: the server behind may
 * have taken it.
 */
const NOT_TAKEN = new Set<number>([HTTP_STATUS.TOO_MANY_REQUESTS, HTTP_STATUS.SERVICE_UNAVAILABLE])

/** The shape of `fetch` the transports call (a narrower type than Bun's, so wrappers fit). */
export type FetchFunction = (input: string | URL | Request, init?: BunFetchRequestInit) => Promise<Response>

/**
 * Send one request, asking the AuthProvider for credentials and letting it react to 401/403, and
 * sending it again after a 429 or 503 as `ctx.busy` allows. Network failures reject CONNECT naming
 * the URL; an abort rejects CANCELLED.
 */
export async function fetchWithAuth(
  ctx: FetchContext,
  init: { method: string; headers: Headers; body?: string; signal?: AbortSignal },
): Promise<Response> {
  let reauthorized = 0
  for (let busy = 0; ; ) {
    const headers = new Headers(init.headers)
    const authorization = ctx.auth ? await ctx.auth.authorization() : undefined
    if (authorization) headers.set('Authorization', authorization)
    // RFC 9449 section 7: a DPoP-bound token needs a fresh proof for every request, retries included.
    const extra = ctx.auth?.requestHeaders ? await ctx.auth.requestHeaders({ url: ctx.url, method: init.method }) : undefined
    if (extra) for (const [name, value] of Object.entries(extra)) headers.set(name, value)
    let response: Response
    try {
      response = await fetchFollowing(ctx, { ...init, headers })
    } catch (error) {
      throw fetchFailure(ctx.url, init.method, error, init.signal)
    }
    if (
      (response.status === HTTP_STATUS.UNAUTHORIZED || response.status === HTTP_STATUS.FORBIDDEN) &&
      ctx.auth &&
      reauthorized < ctx.authMaxRetries
    ) {
      const verdict = await ctx.auth.onAuthChallenge(response.clone(), { url: ctx.url, method: init.method })
      if (verdict === 'retry') {
        reauthorized++
        await response.body?.cancel().catch(() => {})
        continue
      }
    }
    if (NOT_TAKEN.has(response.status) && ctx.busy && busy < ctx.busy.retries) {
      const waitMs = retryAfterMs(response.headers.get('retry-after')) ?? ctx.busy.delayMs * 2 ** busy
      if (waitMs <= ctx.busy.maxWaitMs) {
        busy++
        await response.body?.cancel().catch(() => {})
        await abortableSleep(waitMs, init.signal)
        if (init.signal?.aborted) throw fetchFailure(ctx.url, init.method, init.signal.reason, init.signal)
        continue
      }
    }
    return response
  }
}

/**
 * One request, its redirects followed here rather than by fetch, which turns a POST into a GET on a
 * 301 or 302: an MCP server moved to https, or to its path with a trailing slash, would then get
 * every message as a GET and answer 405 or an event stream. Here a 301, 302, 307 or 308 keeps the
 * method and body; a 303 is followed with GET; credentials go only to their own origin.
 */
async function fetchFollowing(ctx: FetchContext, init: { method: string; headers: Headers; body?: string; signal?: AbortSignal }) {
  const headers = new Headers(init.headers)
  let target = ctx.url
  let method = init.method
  let body = init.body
  for (let hops = 0; ; hops++) {
    // `timeout: false` turns off Bun's idle timer: a quiet SSE stream is not a dead one.
    const response = await (ctx.fetch ?? fetch)(target, { method, headers, body, signal: init.signal, timeout: false, redirect: 'manual' })
    const location = REDIRECTS.has(response.status) ? response.headers.get('location') : null
    if (location === null) return response
    await response.body?.cancel().catch(() => {})
    if (hops >= (ctx.maxRedirects ?? 0))
      throw new McpxError(
        'CONNECT',
        `${init.method} ${ctx.url}: more than ${ctx.maxRedirects ?? 0} redirects (the last to ${location}; httpMaxRedirects)`,
        {
          url: ctx.url,
          httpStatus: response.status,
        },
      )
    const next = new URL(location, target)
    if (next.origin !== new URL(target).origin) for (const name of CREDENTIAL_HEADERS) headers.delete(name)
    if (response.status === SEE_OTHER) {
      method = 'GET'
      body = undefined
      headers.delete('content-type')
    }
    ctx.onRedirect?.(target, next.href, response.status)
    target = next.href
  }
}

/** RFC 9110 section 10.2.3: delay-seconds or an HTTP-date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null): number | undefined {
  if (value === null) return undefined
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now())
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve()
    const timer = setTimeout(done, ms)
    function done(): void {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done, { once: true })
  })
}

function fetchFailure(url: string, method: string, error: unknown, signal?: AbortSignal): McpxError {
  if (error instanceof McpxError) return error
  if (signal?.aborted) return new McpxError('CANCELLED', `${method} ${url} was cancelled`, { url }, { cause: error })
  const code = (error as { code?: string }).code
  return new McpxError(
    'CONNECT',
    `cannot reach ${url}: ${(error as Error).message ?? String(error)}`,
    { url, errno: code },
    { cause: error },
  )
}

export function contentTypeOf(response: Response): string {
  return (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
}

/**
 * Read a body as text, refusing to hold more than `maxBytes`. Returns `undefined` text when the
 * body was larger (the stream is cancelled at the cap).
 */
export async function readTextCapped(response: Response, maxBytes: number): Promise<{ text: string | undefined; bytes: number }> {
  if (!response.body) return { text: '', bytes: 0 }
  const reader = response.body.getReader()
  const parts: Uint8Array[] = []
  let bytes = 0
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    bytes += next.value.length
    if (bytes > maxBytes) {
      await reader.cancel().catch(() => {})
      return { text: undefined, bytes }
    }
    parts.push(next.value)
  }
  return { text: new TextDecoder().decode(Buffer.concat(parts)), bytes }
}

/** The CONNECT error for a response mcpx cannot use, quoting the start of its body on one line. */
export function httpError(
  ctx: { url: string; method: string },
  response: Response,
  body: string,
  extra: Record<string, unknown> = {},
): McpxError {
  const contentType = response.headers.get('content-type') ?? ''
  const wwwAuthenticate = response.headers.get('www-authenticate') ?? undefined
  const shown = body.length > ERROR_BODY_BYTES ? body.slice(0, ERROR_BODY_BYTES) : body
  const detail = shown.trim() === '' ? '' : `: ${bodyLine(shown)}`
  // A 2xx is refused for what it is, not for its status: the message says what (extra.reason).
  const retryAfter = NOT_TAKEN.has(response.status) ? retryAfterMs(response.headers.get('retry-after')) : undefined
  const why =
    typeof extra.reason === 'string'
      ? ` (${extra.reason})`
      : retryAfter !== undefined
        ? ` (it asks to be tried again in ${Math.ceil(retryAfter / 1000)} s)`
        : ''
  return new McpxError('CONNECT', `${ctx.method} ${ctx.url} answered HTTP ${response.status}${why}${detail}`, {
    url: ctx.url,
    httpStatus: response.status,
    contentType,
    body: shown,
    ...(wwwAuthenticate === undefined ? {} : { wwwAuthenticate }),
    ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter }),
    ...extra,
  })
}

/** Case-insensitive header lookup in a plain record. */
export function headerValue(headers: Record<string, string> | undefined, name: string): string | undefined {
  if (!headers) return undefined
  const lower = name.toLowerCase()
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === lower) return value
  return undefined
}
