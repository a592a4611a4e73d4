/**
 * A real OAuth 2.1 authorization server for tests: `oidc-provider` on loopback, port 0, with
 * dynamic client registration, PKCE, resource indicators (RFC 8707: every resource gets JWT
 * access tokens with that audience), client credentials and introspection. Its dev login and
 * consent pages are driven with plain HTTP (`authorize`): no browser.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider from 'oidc-provider'

export const MCP_SCOPE = 'mcp:tools'
/** A confidential client that gets tokens by client credentials (for refused-token cases). */
export const SERVICE_CLIENT = { id: 'service', secret: 'service-secret' }
/** Like SERVICE_CLIENT, but its access tokens live one second. */
export const SHORT_LIVED_CLIENT = { id: 'short-lived', secret: 'short-lived-secret' }
/** Like SERVICE_CLIENT, but its access tokens are opaque (checked by introspection, RFC 7662). */
export const OPAQUE_CLIENT = { id: 'opaque', secret: 'opaque-secret' }
/** A confidential client allowed to introspect (RFC 7662) on mcpx's behalf. */
export const INTROSPECTING_CLIENT = { id: 'mcpx-rs', secret: 'mcpx-rs-secret' }

export interface AuthorizationServer {
  readonly issuer: string
  /** Groups put in the `groups` claim of an account's access tokens. */
  readonly groups: Map<string, string[]>
  /** A token by client credentials for `resource` with `scope` (empty = none). */
  clientCredentials(client: { id: string; secret: string }, resource: string, scope: string): Promise<string>
  /** Complete a login as `account` plus consent for an authorization URL; returns the redirect's query. */
  authorize(authorizationUrl: URL | string, account: string): Promise<URLSearchParams>
  close(): Promise<void>
}

export async function startAuthorizationServer(): Promise<AuthorizationServer> {
  const http: Server = createServer()
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
  const groups = new Map<string, string[]>()
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: SERVICE_CLIENT.id,
        client_secret: SERVICE_CLIENT.secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      },
      {
        client_id: SHORT_LIVED_CLIENT.id,
        client_secret: SHORT_LIVED_CLIENT.secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      },
      {
        client_id: OPAQUE_CLIENT.id,
        client_secret: OPAQUE_CLIENT.secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      },
      {
        client_id: INTROSPECTING_CLIENT.id,
        client_secret: INTROSPECTING_CLIENT.secret,
        grant_types: [],
        redirect_uris: [],
        response_types: [],
      },
    ],
    scopes: [MCP_SCOPE, 'other:scope'],
    cookies: { keys: ['mcpx-test-cookie-key'] },
    findAccount: async (_ctx: unknown, accountId: string) => ({ accountId, claims: async () => ({ sub: accountId }) }),
    extraTokenClaims: async (_ctx: unknown, token: { accountId?: string }) =>
      token.accountId && groups.has(token.accountId) ? { groups: groups.get(token.accountId) } : undefined,
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx: unknown, _client: unknown, oneOf?: string) => oneOf,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx: unknown, resource: string, client: { clientId: string }) => ({
          scope: `${MCP_SCOPE} other:scope`,
          audience: resource,
          accessTokenTTL: client.clientId === SHORT_LIVED_CLIENT.id ? 1 : 600,
          ...(client.clientId === OPAQUE_CLIENT.id
            ? { accessTokenFormat: 'opaque' }
            : { accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } }),
        }),
      },
    },
    // Refresh tokens are not what these tests are about; keep the grant simple.
    issueRefreshToken: async () => false,
  } as never)
  // Quiet: the provider logs every server_error to the console otherwise.
  provider.on('server_error', () => {})
  http.on('request', provider.callback())

  const cookies = new Map<string, string>()
  const remember = (response: Response) => {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';')
      const eq = pair!.indexOf('=')
      cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1))
    }
  }
  const cookieHeader = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ')
  const step = async (url: string, init: RequestInit = {}): Promise<Response> => {
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: cookieHeader() },
    })
    remember(response)
    return response
  }

  return {
    issuer,
    groups,
    async clientCredentials(client, resource, scope) {
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${btoa(`${client.id}:${client.secret}`)}` },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource, ...(scope && { scope }) }),
      })
      const body = (await response.json()) as { access_token?: string; error?: string; error_description?: string }
      if (!body.access_token) throw new Error(`client credentials failed: ${body.error}: ${body.error_description}`)
      return body.access_token
    },
    async authorize(authorizationUrl, account) {
      cookies.clear()
      let url = String(authorizationUrl)
      // authorize → interaction (login) → resume → interaction (consent) → resume → redirect_uri
      for (let hops = 0; hops < 12; hops++) {
        const response = await step(url)
        const location = response.headers.get('location')
        if (response.status === 200 && /\/interaction\/[^/]+$/.test(url)) {
          const page = await response.text()
          const prompt = page.includes('name="login"') ? 'login' : 'consent'
          const submitted = await step(url, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams(prompt === 'login' ? { prompt, login: account, password: 'any' } : { prompt }),
          })
          const next = submitted.headers.get('location')
          if (!next) throw new Error(`interaction ${prompt} answered ${submitted.status}: ${await submitted.text()}`)
          url = new URL(next, url).href
          continue
        }
        if (!location) throw new Error(`authorization stopped at ${url} with ${response.status}: ${await response.text()}`)
        const next = new URL(location, url)
        if (next.origin !== issuer) return next.searchParams
        url = next.href
      }
      throw new Error('authorization did not reach the redirect URI')
    },
    async close() {
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    },
  }
}
