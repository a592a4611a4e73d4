/**
 * Token endpoint requests (OAuth 2.1 section 3.2, section 4.1.3, section 4.3, section 4.2 client_credentials): every request
 * carries `resource` exactly as published in the PRM (RFC 8707 section 2) and client authentication by
 * the chosen method. Bearer tokens (RFC 6750), or DPoP-bound ones when a DPoP key is given
 * (RFC 9449 section 5, retrying once with the AS's nonce on `use_dpop_nonce`, section 8).
 */
import { McpxError } from '../errors/index.ts'
import { type ClientCredentials, applyClientAuth, chooseAuthMethod } from './client-auth.ts'
import { type DpopKey, createDpopProof } from './dpop.ts'
import { type HttpContext, oauthFailure, readJson, request } from './http.ts'
import { type AuthorizationServerMetadata, TokenResponseSchema } from './schemas.ts'
import { HTTP_STATUS } from '../wire/index.ts'

/** Tokens as mcpx keeps them: `expiresAt` is epoch ms, `scope` what was requested or granted. */
export interface StoredTokens {
  accessToken: string
  tokenType: 'Bearer' | 'DPoP'
  /** The private JWK a DPoP-bound token is bound to (kept in the 0600 store with the token). */
  dpopJwk?: JsonWebKey
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
  /** Ask for a DPoP-bound token with this key; `nonce` holds the AS's latest DPoP-Nonce. */
  dpop?: { key: DpopKey; nonce?: string }
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
  let response = await postToken(ctx, endpoint, headers, body)
  const nonce = response.headers.get('dpop-nonce')
  if (ctx.dpop && response.status === HTTP_STATUS.BAD_REQUEST && nonce && (await oauthErrorCode(response)) === 'use_dpop_nonce') {
    ctx.dpop.nonce = nonce
    response = await postToken(ctx, endpoint, headers, body)
  }
  if (!response.ok) throw await oauthFailure(response, `token request (${grant.grant_type})`)
  const tokens = await readJson(response, TokenResponseSchema, 'token response')
  const tokenType = tokens.token_type.toLowerCase()
  if (tokenType !== 'bearer' && !(tokenType === 'dpop' && ctx.dpop)) {
    throw new McpxError('AUTH', `token endpoint issued a ${tokens.token_type} token, which mcpx did not ask for`, {
      tokenType: tokens.token_type,
    })
  }
  const granted: StoredTokens = { accessToken: tokens.access_token, tokenType: tokenType === 'dpop' ? 'DPoP' : 'Bearer' }
  if (granted.tokenType === 'DPoP') granted.dpopJwk = ctx.dpop!.key.privateJwk
  if (tokens.refresh_token) granted.refreshToken = tokens.refresh_token
  if (tokens.expires_in !== undefined) granted.expiresAt = Date.now() + tokens.expires_in * 1000
  const grantedScope = tokens.scope ?? scope
  if (grantedScope) granted.scope = grantedScope
  return granted
}

async function postToken(
  ctx: TokenRequestContext,
  endpoint: string,
  headers: Record<string, string>,
  body: URLSearchParams,
): Promise<Response> {
  const sent = { ...headers }
  if (ctx.dpop)
    sent.dpop = await createDpopProof(ctx.dpop.key, { method: 'POST', url: endpoint, ...(ctx.dpop.nonce ? { nonce: ctx.dpop.nonce } : {}) })
  return request(ctx.http, endpoint, { method: 'POST', headers: sent, body: body.toString() })
}

async function oauthErrorCode(response: Response): Promise<string | undefined> {
  try {
    const body = (await response.clone().json()) as { error?: unknown }
    return typeof body.error === 'string' ? body.error : undefined
  } catch {
    return undefined
  }
}
