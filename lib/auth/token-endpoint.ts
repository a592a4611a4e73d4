/**
 * Token endpoint requests (OAuth 2.1 §3.2, §4.1.3, §4.3, §4.2 client_credentials): every request
 * carries `resource` exactly as published in the PRM (RFC 8707 §2) and client authentication by
 * the chosen method. Only Bearer tokens are accepted (RFC 6750); DPoP-bound tokens are refused.
 */
import { McpxError } from '../errors/index.ts'
import { type ClientCredentials, applyClientAuth, chooseAuthMethod } from './client-auth.ts'
import { type HttpContext, oauthFailure, readJson, request } from './http.ts'
import { type AuthorizationServerMetadata, TokenResponseSchema } from './schemas.ts'

/** Tokens as mcpx keeps them: `expiresAt` is epoch ms, `scope` what was requested or granted. */
export interface StoredTokens {
  accessToken: string
  tokenType: string
  refreshToken?: string
  expiresAt?: number
  scope?: string
}

export interface TokenRequestContext {
  http: HttpContext
  metadata: AuthorizationServerMetadata
  client: ClientCredentials
  /** PRM `resource`, verbatim; omitted only when the server published no PRM. */
  resource?: string
}

type Grant =
  | { grant_type: 'authorization_code'; code: string; code_verifier: string; redirect_uri: string }
  | { grant_type: 'refresh_token'; refresh_token: string }
  | { grant_type: 'client_credentials' }
  | { grant_type: string; [param: string]: string }

/** POST one grant to the token endpoint and return the tokens. `scope` is what we asked for. */
export async function requestToken(ctx: TokenRequestContext, grant: Grant, scope: string | undefined): Promise<StoredTokens> {
  const endpoint = ctx.metadata.token_endpoint
  if (!endpoint) throw new McpxError('AUTH', `authorization server ${ctx.metadata.issuer} publishes no token_endpoint`)
  const body = new URLSearchParams()
  for (const [key, value] of Object.entries(grant)) body.set(key, value)
  if (ctx.resource !== undefined) body.set('resource', ctx.resource)
  if (scope && grant.grant_type !== 'authorization_code') body.set('scope', scope)
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }
  const method = chooseAuthMethod(ctx.client, ctx.metadata.token_endpoint_auth_methods_supported)
  await applyClientAuth(method, ctx.client, body, headers, ctx.metadata.issuer)
  const response = await request(ctx.http, endpoint, { method: 'POST', headers, body: body.toString() })
  if (!response.ok) throw await oauthFailure(response, `token request (${grant.grant_type})`)
  const tokens = await readJson(response, TokenResponseSchema, 'token response')
  if (tokens.token_type.toLowerCase() !== 'bearer') {
    throw new McpxError('AUTH', `token endpoint issued a ${tokens.token_type} token; mcpx sends Bearer tokens only`, { tokenType: tokens.token_type })
  }
  const granted: StoredTokens = { accessToken: tokens.access_token, tokenType: 'Bearer' }
  if (tokens.refresh_token) granted.refreshToken = tokens.refresh_token
  if (tokens.expires_in !== undefined) granted.expiresAt = Date.now() + tokens.expires_in * 1000
  const grantedScope = tokens.scope ?? scope
  if (grantedScope) granted.scope = grantedScope
  return granted
}
