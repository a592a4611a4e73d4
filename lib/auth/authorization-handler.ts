/**
 * How the user-agent step of the authorization code flow happens. The flow asks a handler for a
 * redirect URI, builds the authorization URL, and the handler returns the URL the authorization
 * server redirected back to. Two handlers: an interactive loopback listener (RFC 8252 section 7.3,
 * `Bun.serve` on 127.0.0.1) that opens or prints the URL, and a non-interactive one that fetches
 * the URL and reads `Location` (for authorization servers that redirect at once, e.g. test ASes).
 */
import { McpxError } from '../errors/index.ts'
import { log } from '../log/index.ts'
import type { FetchLike } from './http.ts'
import { LOOPBACK_BIND_ADDRESS, HTTP_STATUS } from '../wire/index.ts'

export interface AuthorizationSession extends AsyncDisposable {
  /** The redirect_uri to register and to send in the authorization and token requests. */
  readonly redirectUri: string
  /** Present `authorizationUrl` to the user-agent; resolve with the redirect it came back with. */
  authorize(authorizationUrl: URL): Promise<URL>
}

export interface AuthorizationHandler {
  /** `preferredRedirectUri`: the URI the stored client was registered with, reused if possible. */
  begin(options: { preferredRedirectUri?: string }): Promise<AuthorizationSession>
}

const DEFAULT_MAX_REDIRECTS = 5

/**
 * Non-interactive handler: GET the authorization URL without following redirects and take the
 * `Location` that points at `redirectUri`. Hops elsewhere (e.g. an IdP's own redirects) are
 * followed up to `maxRedirects`. No listener is opened; the redirect URI is never contacted.
 */
export function createRedirectFollowingHandler(
  options: { redirectUri?: string; fetch?: FetchLike; maxRedirects?: number } = {},
): AuthorizationHandler {
  const redirectUri = options.redirectUri ?? 'http://127.0.0.1/callback'
  const fetchFn = options.fetch ?? fetch
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS
  return {
    async begin() {
      return {
        redirectUri,
        async authorize(authorizationUrl) {
          let url = authorizationUrl
          for (let hop = 0; hop <= maxRedirects; hop++) {
            const response = await fetchFn(url, { redirect: 'manual' })
            await response.body?.cancel()
            const location = response.headers.get('location')
            if (response.status < 300 || response.status >= 400 || !location) {
              throw new McpxError('AUTH', `authorization endpoint answered HTTP ${response.status} without redirecting back`, {
                status: response.status,
              })
            }
            const next = new URL(location, url)
            if (isRedirectTo(next, redirectUri)) return next
            url = next
          }
          throw new McpxError('AUTH', `authorization did not return to ${redirectUri} within ${maxRedirects} redirects`)
        },
        async [Symbol.asyncDispose]() {},
      }
    },
  }
}

function isRedirectTo(url: URL, redirectUri: string): boolean {
  const target = new URL(redirectUri)
  return url.origin === target.origin && url.pathname === target.pathname
}

export interface LoopbackHandlerOptions {
  /** Show the URL to the user (open a browser, print it). Default: log it to stderr. */
  open?: (url: string) => void | Promise<void>
  /** Port to listen on when no stored redirect URI names one; 0 = any free port. */
  port?: number
  /** How long to wait for the redirect before failing with TIMEOUT. */
  timeoutMs: number
}

const CALLBACK_PATH = '/callback'
const LOOPBACK_HOST = LOOPBACK_BIND_ADDRESS

/** Interactive handler: a one-shot listener on 127.0.0.1 receives the authorization response. */
export function createLoopbackHandler(options: LoopbackHandlerOptions): AuthorizationHandler {
  const open = options.open ?? ((url: string) => log.info(`Open this URL to authorize mcpx:\n${url}`))
  return {
    async begin({ preferredRedirectUri }) {
      let resolveCallback!: (url: URL) => void
      const callback = new Promise<URL>((resolve) => {
        resolveCallback = resolve
      })
      // Only the redirect carrying our `state` ends the wait: a stray or forged hit on the
      // listener (another local process, a stale browser tab) is answered 400 and ignored.
      let expectedState: string | null = null
      const fetchHandler = (req: Request): Response => {
        const url = new URL(req.url)
        if (url.pathname !== CALLBACK_PATH) return new Response('not found', { status: HTTP_STATUS.NOT_FOUND })
        if (expectedState === null || url.searchParams.get('state') !== expectedState) {
          return new Response('mcpx: this authorization response does not belong to the pending login.', {
            status: HTTP_STATUS.BAD_REQUEST,
          })
        }
        resolveCallback(url)
        return new Response('<!doctype html><p>mcpx: authorization received. You can close this window.</p>', {
          headers: { 'content-type': 'text/html; charset=utf-8' },
        })
      }
      const preferredPort = loopbackPort(preferredRedirectUri) ?? options.port ?? 0
      let server: ReturnType<typeof Bun.serve>
      try {
        server = Bun.serve({ hostname: LOOPBACK_HOST, port: preferredPort, fetch: fetchHandler })
      } catch (error) {
        if (preferredPort === 0)
          throw new McpxError('CONNECT', `cannot listen on ${LOOPBACK_HOST} for the OAuth redirect`, undefined, { cause: error })
        server = Bun.serve({ hostname: LOOPBACK_HOST, port: 0, fetch: fetchHandler })
      }
      const redirectUri = `http://${LOOPBACK_HOST}:${server.port}${CALLBACK_PATH}`
      return {
        redirectUri,
        async authorize(authorizationUrl) {
          expectedState = authorizationUrl.searchParams.get('state') ?? ''
          await open(authorizationUrl.toString())
          let timer: ReturnType<typeof setTimeout> | undefined
          const timeout = new Promise<never>((_, reject) => {
            timer = setTimeout(
              () =>
                reject(
                  new McpxError('TIMEOUT', `no authorization response within ${options.timeoutMs} ms`, { timeoutMs: options.timeoutMs }),
                ),
              options.timeoutMs,
            )
          })
          try {
            return await Promise.race([callback, timeout])
          } finally {
            clearTimeout(timer)
          }
        },
        async [Symbol.asyncDispose]() {
          await server.stop(true)
        },
      }
    },
  }
}

function loopbackPort(redirectUri: string | undefined): number | undefined {
  if (!redirectUri) return undefined
  try {
    const url = new URL(redirectUri)
    if (url.hostname !== LOOPBACK_HOST || !url.port) return undefined
    return Number(url.port)
  } catch {
    return undefined
  }
}
