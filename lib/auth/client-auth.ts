/**
 * Client authentication at the token endpoint (OAuth 2.1 section 2.4, RFC 7523 section 2.2): picks the method
 * the AS supports for the credentials we hold and applies it to a form body and headers.
 * `client_secret_basic` form-encodes id and secret before base64 (RFC 6749 section 2.3.1).
 */
import { SignJWT, importPKCS8 } from 'jose'
import { McpxError } from '../errors/index.ts'
import { randomToken } from './pkce.ts'

export type TokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt' | 'none'

export interface ClientCredentials {
  clientId: string
  clientSecret?: string
  /** PKCS#8 PEM private key for private_key_jwt (RFC 7523). */
  privateKeyPem?: string
  /** JWS algorithm of `privateKeyPem` (ES256, ES384, RS256...). */
  signingAlgorithm?: string
  /** Method fixed by registration (RFC 7591 `token_endpoint_auth_method`), if any. */
  authMethod?: string
}

/**
 * Choose the token endpoint auth method. A method fixed at registration wins; else the first of
 * our preference the AS lists. RFC 8414 section 2: an absent list means `client_secret_basic`.
 */
export function chooseAuthMethod(client: ClientCredentials, supported: string[] | undefined): TokenEndpointAuthMethod {
  if (client.authMethod && isMethod(client.authMethod)) return client.authMethod
  const offered = supported ?? ['client_secret_basic']
  const preference: TokenEndpointAuthMethod[] = client.privateKeyPem
    ? ['private_key_jwt']
    : client.clientSecret
      ? ['client_secret_basic', 'client_secret_post']
      : ['none']
  const chosen = preference.find((m) => offered.includes(m))
  if (chosen) return chosen
  // A public client can still try `none`; a secret-holder falls back to the RFC 6749 default.
  return client.clientSecret ? 'client_secret_basic' : 'none'
}

function isMethod(method: string): method is TokenEndpointAuthMethod {
  return ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'].includes(method)
}

/** Add client authentication to a token request. `audience` is the AS issuer (RFC 7523 section 3). */
export async function applyClientAuth(
  method: TokenEndpointAuthMethod,
  client: ClientCredentials,
  body: URLSearchParams,
  headers: Record<string, string>,
  audience: string,
): Promise<void> {
  switch (method) {
    case 'client_secret_basic': {
      const secret = client.clientSecret ?? ''
      const pair = `${formEncode(client.clientId)}:${formEncode(secret)}`
      headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`
      return
    }
    case 'client_secret_post':
      body.set('client_id', client.clientId)
      if (client.clientSecret !== undefined) body.set('client_secret', client.clientSecret)
      return
    case 'private_key_jwt':
      if (!client.privateKeyPem) throw new McpxError('CONFIG', 'private_key_jwt needs a private key for the client')
      body.set('client_id', client.clientId)
      body.set('client_assertion_type', 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer')
      body.set('client_assertion', await signClientAssertion(client, audience))
      return
    case 'none':
      body.set('client_id', client.clientId)
  }
}

function formEncode(value: string): string {
  return encodeURIComponent(value).replace(/%20/g, '+')
}

const ASSERTION_LIFETIME_S = 300

/** A signed JWT client assertion: iss = sub = client_id, aud = the AS (RFC 7523 section 3). */
async function signClientAssertion(client: ClientCredentials, audience: string): Promise<string> {
  const alg = client.signingAlgorithm ?? 'ES256'
  if (!/^(ES|RS|PS)(256|384|512)$/.test(alg)) throw new McpxError('CONFIG', `unsupported client assertion algorithm ${alg}`)
  const key = await importPKCS8(client.privateKeyPem!, alg)
  const now = Math.floor(Date.now() / 1000)
  const claims = {
    iss: client.clientId,
    sub: client.clientId,
    aud: audience,
    iat: now,
    exp: now + ASSERTION_LIFETIME_S,
    jti: randomToken(16),
  }
  return new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT' }).sign(key)
}
