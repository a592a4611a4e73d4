/**
 * Assertion sources for the JWT bearer grant (RFC 7523 section 2.1), used by machine upstreams that
 * carry no user: a workload identity JWT handed in by the platform, or an Identity
 * Assertion JWT Authorization Grant (ID-JAG) obtained from the enterprise IdP by token exchange
 * (RFC 8693; the Enterprise-Managed Authorization extension, spec extensions/overview.mdx) for the MCP server's AS and resource.
 */
import * as v from 'valibot'
import { McpxError } from '../errors/index.ts'
import type { Settings } from '../settings/index.ts'
import { type FetchLike, oauthFailure, readJson, request } from './http.ts'

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer'
const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange'
const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token'
const ID_JAG_TYPE = 'urn:ietf:params:oauth:token-type:id-jag'

/** Where the assertion will be presented: the AS issuer (its audience) and the PRM resource. */
export interface AssertionTarget {
  issuer: string
  resource?: string
  scope?: string
}

export type AssertionSource = (target: AssertionTarget) => Promise<string>

export interface IdJagOptions {
  settings: Settings
  /** The IdP's token endpoint. */
  idpTokenEndpoint: string
  /** mcpx's client_id at the IdP. */
  idpClientId: string
  idpClientSecret?: string
  /** The user's ID token from the IdP (subject of the exchange). */
  idToken: string
  fetch?: FetchLike
}

const TokenExchangeResponseSchema = v.looseObject({ access_token: v.string(), issued_token_type: v.optional(v.string()) })

/** Exchange an ID token for an ID-JAG addressed to the target AS and resource (RFC 8693 section 2.1). */
export function createIdJagAssertion(options: IdJagOptions): AssertionSource {
  const http = { fetch: options.fetch ?? fetch, timeoutMs: options.settings.authRequestTimeoutMs }
  return async (target) => {
    const body = new URLSearchParams({
      grant_type: TOKEN_EXCHANGE_GRANT,
      requested_token_type: ID_JAG_TYPE,
      subject_token: options.idToken,
      subject_token_type: ID_TOKEN_TYPE,
      audience: target.issuer,
      client_id: options.idpClientId,
    })
    if (options.idpClientSecret !== undefined) body.set('client_secret', options.idpClientSecret)
    if (target.resource !== undefined) body.set('resource', target.resource)
    if (target.scope) body.set('scope', target.scope)
    const response = await request(http, options.idpTokenEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: body.toString(),
    })
    if (!response.ok) throw await oauthFailure(response, 'identity assertion token exchange')
    const exchanged = await readJson(response, TokenExchangeResponseSchema, 'token exchange response')
    if (exchanged.issued_token_type !== undefined && exchanged.issued_token_type !== ID_JAG_TYPE) {
      throw new McpxError('AUTH', `IdP issued a ${exchanged.issued_token_type}, not an ID-JAG`, {
        issuedTokenType: exchanged.issued_token_type,
      })
    }
    return exchanged.access_token
  }
}

/** A fixed assertion (e.g. a workload identity token from the environment or a file). */
export function staticAssertion(jwt: string): AssertionSource {
  return async () => jwt
}
