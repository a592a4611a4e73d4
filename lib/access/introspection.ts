/**
 * Opaque access tokens checked by the authorization server (RFC 7662): POST the token with mcpx's
 * client credentials (client_secret_basic, RFC 7662 section 2.1); only `active: true` counts, and a
 * response naming another audience or issuer is refused like a JWT would be (RFC 8707).
 */
export interface IntrospectionOptions {
  readonly endpoint: string
  readonly clientId: string
  readonly clientSecret: string
  readonly requestTimeoutMs: number
  readonly fetch?: typeof fetch
}

export type Introspected =
  | { readonly active: true; readonly claims: Record<string, unknown> }
  | { readonly active: false; readonly reason: string }

export async function introspect(token: string, options: IntrospectionOptions): Promise<Introspected> {
  const doFetch = options.fetch ?? fetch
  const basic = Buffer.from(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`).toString('base64')
  const response = await doFetch(options.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', authorization: `Basic ${basic}` },
    body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
    signal: AbortSignal.timeout(options.requestTimeoutMs),
  })
  if (!response.ok) throw new Error(`introspection endpoint answered HTTP ${response.status}`)
  const claims = (await response.json()) as Record<string, unknown>
  if (claims.active !== true) return { active: false, reason: 'the authorization server reports the token inactive' }
  return { active: true, claims }
}
