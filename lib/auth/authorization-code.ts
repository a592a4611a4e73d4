/**
 * One authorization code grant with PKCE (OAuth 2.1 section 4.1, RFC 7636): build the authorization
 * request, hand it to the user-agent, validate the response (RFC 9207 `iss`, `state`) before the
 * code goes anywhere, then redeem the code at the token endpoint.
 */
import { McpxError } from '../errors/index.ts'
import type { AuthorizationSession } from './authorization-handler.ts'
import { createPkce, randomToken } from './pkce.ts'
import type { AuthorizationServerMetadata } from './schemas.ts'
import { type StoredTokens, type TokenRequestContext, requestToken } from './token-endpoint.ts'

export interface AuthorizationCodeRequest extends TokenRequestContext {
  session: AuthorizationSession
  scope?: string
}

/** Run the grant; returns tokens whose `scope` is the scope requested (for later step-up unions). */
export async function runAuthorizationCodeGrant(req: AuthorizationCodeRequest): Promise<StoredTokens> {
  const endpoint = req.metadata.authorization_endpoint
  if (!endpoint) throw new McpxError('AUTH', `authorization server ${req.metadata.issuer} publishes no authorization_endpoint`)
  const pkce = await createPkce()
  const state = randomToken()
  // 2026-07-28 basic/authorization/index.mdx "Authorization Response Validation": the issuer is
  // recorded with the PKCE verifier and state, from metadata we already validated.
  const expectedIssuer = req.metadata.issuer
  const url = new URL(endpoint)
  url.searchParams.set('response_type', 'code')
  url.searchParams.set('client_id', req.client.clientId)
  url.searchParams.set('redirect_uri', req.session.redirectUri)
  url.searchParams.set('code_challenge', pkce.challenge)
  url.searchParams.set('code_challenge_method', pkce.method)
  url.searchParams.set('state', state)
  if (req.resource !== undefined) url.searchParams.set('resource', req.resource)
  if (req.scope) url.searchParams.set('scope', req.scope)

  const response = await req.session.authorize(url)
  const code = validateAuthorizationResponse(response.searchParams, { expectedIssuer, state, metadata: req.metadata })
  const tokens = await requestToken(
    req,
    { grant_type: 'authorization_code', code, code_verifier: pkce.verifier, redirect_uri: req.session.redirectUri },
    undefined,
  )
  if (req.scope) tokens.scope = req.scope
  else delete tokens.scope
  return tokens
}

/**
 * RFC 9207 section 2.4 as tabled in 2026-07-28 basic/authorization/index.mdx: a present `iss` must equal
 * the recorded issuer by plain string comparison (no normalisation), whatever the metadata says;
 * an absent `iss` is refused only when the AS advertised it. On mismatch the error fields are
 * neither acted on nor shown. Then `state` must match; then an `error` is reported; else the code.
 */
export function validateAuthorizationResponse(
  params: URLSearchParams,
  expect: { expectedIssuer: string; state: string; metadata: AuthorizationServerMetadata },
): string {
  const iss = params.get('iss')
  if (iss !== null && iss !== expect.expectedIssuer) {
    throw new McpxError('AUTH', `authorization response came from issuer ${iss}, expected ${expect.expectedIssuer}; refused (RFC 9207)`, {
      expectedIssuer: expect.expectedIssuer,
      iss,
    })
  }
  if (iss === null && expect.metadata.authorization_response_iss_parameter_supported === true) {
    throw new McpxError(
      'AUTH',
      `authorization response lacks the iss parameter that ${expect.expectedIssuer} advertises; refused (RFC 9207)`,
      {
        expectedIssuer: expect.expectedIssuer,
      },
    )
  }
  if (params.get('state') !== expect.state) {
    throw new McpxError('AUTH', 'authorization response state does not match the request; refused', {})
  }
  const error = params.get('error')
  if (error !== null) {
    const description = params.get('error_description')
    throw new McpxError('AUTH', `authorization was refused (${error}${description ? `: ${description}` : ''})`, { oauthError: error })
  }
  const code = params.get('code')
  if (!code) throw new McpxError('AUTH', 'authorization response carries no code', {})
  return code
}
