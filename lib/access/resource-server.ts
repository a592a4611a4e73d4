/**
 * /mcp as an OAuth 2.1 resource server (2026-07-28 basic/authorization/index.mdx "Access Token
 * Usage" and "Error Handling"; 2025-06-18 and 2025-11-25 basic/authorization.mdx alike): the
 * bearer token is verified — a JWT against the issuer's keys (iss, aud = this resource per
 * RFC 8707, exp, nbf), an opaque token by introspection — and must hold the required scopes.
 * Failures answer 401 (missing/invalid) or 403 (insufficient_scope) with a Bearer challenge
 * naming the metadata URL. The token itself never leaves this module: nothing upstream sees it.
 */
import { readFileSync } from 'node:fs'
import { errors as joseErrors, type JWTVerifyGetKey, jwtVerify } from 'jose'
import { McpxError } from '../errors/index.ts'
import type { Settings } from '../settings/index.ts'
import { bearerChallenge, type ChallengeError } from './challenge.ts'
import { type Introspected, introspect, type IntrospectionOptions } from './introspection.ts'
import { IssuerKeys } from './issuer-keys.ts'
import { checkResourceUrl, resourceMetadata, resourceMetadataPaths, resourceMetadataUrl, type ResourceMetadata } from './metadata.ts'
import { oauthPrincipal, type Principal } from './principal.ts'
import { HTTP_STATUS } from '../wire/index.ts'

export type AuthOutcome =
  | { readonly ok: true; readonly principal: Principal }
  | {
      readonly ok: false
      readonly status: typeof HTTP_STATUS.UNAUTHORIZED | typeof HTTP_STATUS.FORBIDDEN | typeof HTTP_STATUS.SERVICE_UNAVAILABLE
      readonly message: string
      readonly challenge?: string
    }

export interface ResourceServer {
  readonly issuer: string
  /** The canonical resource URL (RFC 8707 audience). */
  resource(): string
  /** Paths the metadata document is served at. */
  metadataPaths(): string[]
  metadata(): ResourceMetadata
  /** Verify the request's bearer token. Never throws. */
  authenticate(request: Request): Promise<AuthOutcome>
  /** A 401 challenge for a request that brought no usable credential. */
  challenge(error?: ChallengeError, description?: string): string
}

export interface ResourceServerOptions {
  readonly settings: Settings
  /** The resource URL when `mcpAuthResource` is empty (the listener's own /mcp URL, known after it binds). */
  readonly defaultResource: () => string
  readonly fetch?: typeof fetch
}

/** A compact JWS: three base64url parts (RFC 7515 section 7.1). Anything else is an opaque token. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/
const BEARER = /^Bearer\s+([A-Za-z0-9\-._~+/]+=*)\s*$/i

/** Split a space- or comma-separated list setting. */
export function scopeList(value: string): string[] {
  return value.split(/[\s,]+/).filter(Boolean)
}

/** null when OAuth is not configured on /mcp (`mcpAuthIssuer` empty). Bad settings throw CONFIG. */
export function createResourceServer(options: ResourceServerOptions): ResourceServer | null {
  const { settings } = options
  const issuer = settings.mcpAuthIssuer.trim()
  if (issuer === '') return null
  const issuerProblem = checkResourceUrl(issuer)
  if (issuerProblem) throw new McpxError('CONFIG', `setting mcpAuthIssuer ${issuerProblem}`, { setting: 'mcpAuthIssuer' })
  const configured = settings.mcpAuthResource.trim()
  if (configured !== '') {
    const problem = checkResourceUrl(configured)
    if (problem) throw new McpxError('CONFIG', `setting mcpAuthResource ${problem}`, { setting: 'mcpAuthResource' })
  }
  const required = scopeList(settings.mcpAuthScopes)
  const introspection = introspectionOptions(settings, options.fetch)
  const keys = new IssuerKeys({
    issuer,
    requestTimeoutMs: settings.authRequestTimeoutMs,
    cacheMs: settings.mcpAuthJwksCacheMs,
    cooldownMs: settings.mcpAuthJwksCooldownMs,
    retryMs: settings.mcpAuthMetadataRetryMs,
    ...(options.fetch && { fetch: options.fetch }),
  })
  const resource = () => configured || options.defaultResource()
  const challenge = (error?: ChallengeError, description?: string) =>
    bearerChallenge({
      resourceMetadata: resourceMetadataUrl(resource()),
      scopes: required,
      ...(error && { error }),
      ...(description && { description }),
    })
  const invalid = (description: string): AuthOutcome => ({
    ok: false,
    status: HTTP_STATUS.UNAUTHORIZED,
    message: description,
    challenge: challenge('invalid_token', description),
  })
  const refuse = (description: string) => ({ refused: invalid(description) })
  const unavailable = (message: string) => ({ refused: { ok: false, status: HTTP_STATUS.SERVICE_UNAVAILABLE, message } as AuthOutcome })

  async function claimsOf(token: string): Promise<{ claims: Record<string, unknown> } | { refused: AuthOutcome }> {
    if (COMPACT_JWS.test(token)) {
      let getKey: JWTVerifyGetKey
      try {
        getKey = await keys.keys()
      } catch (error) {
        return unavailable(`cannot verify the token: ${(error as Error).message}`)
      }
      try {
        const { payload } = await jwtVerify(token, getKey, {
          issuer,
          audience: resource(),
          clockTolerance: settings.mcpAuthClockToleranceMs / 1000,
          requiredClaims: ['exp'],
        })
        return { claims: payload as Record<string, unknown> }
      } catch (error) {
        // Not a verdict on the token: the key set could not be fetched.
        if (!(error instanceof joseErrors.JOSEError) || error instanceof joseErrors.JWKSTimeout)
          return unavailable(`cannot verify the token: ${(error as Error).message}`)
        return refuse(jwtProblem(error as InstanceType<typeof joseErrors.JOSEError>, resource()))
      }
    }
    if (!introspection) return refuse('the access token is not a JWT and no introspection endpoint is configured')
    let result: Introspected
    try {
      result = await introspect(token, introspection)
    } catch (error) {
      return unavailable(`cannot introspect the token: ${(error as Error).message}`)
    }
    if (!result.active) return refuse(result.reason)
    const { claims } = result
    if (claims.iss !== undefined && claims.iss !== issuer) return refuse(`the token was issued by ${String(claims.iss)}, not ${issuer}`)
    // RFC 8707 / RFC 7662 section 2.2: a token meant for another resource is not ours to accept.
    const aud = claims.aud === undefined ? [] : Array.isArray(claims.aud) ? claims.aud : [claims.aud]
    if (!aud.includes(resource())) return refuse(`the token's audience is not ${resource()}`)
    return { claims }
  }

  return {
    issuer,
    resource,
    metadataPaths: () => resourceMetadataPaths(resource()),
    metadata: () => resourceMetadata(resource(), issuer, required),
    challenge,
    async authenticate(request) {
      const header = request.headers.get('authorization')
      if (header === null)
        return {
          ok: false,
          status: HTTP_STATUS.UNAUTHORIZED,
          message: 'this endpoint needs an OAuth access token (see the resource metadata)',
          challenge: challenge(),
        }
      const match = BEARER.exec(header)
      if (!match) return invalid('the Authorization header is not a Bearer token')
      const checked = await claimsOf(match[1]!)
      if ('refused' in checked) return checked.refused
      const principal = oauthPrincipal(issuer, checked.claims, settings.mcpAuthGroupsClaim)
      if (!principal) return invalid('the token names no subject (sub) or client (client_id)')
      const missing = required.filter((scope) => !principal.scopes.includes(scope))
      if (missing.length > 0) {
        const description = `the token lacks the scope${missing.length > 1 ? 's' : ''} ${missing.join(' ')}`
        return { ok: false, status: HTTP_STATUS.FORBIDDEN, message: description, challenge: challenge('insufficient_scope', description) }
      }
      return { ok: true, principal }
    },
  }
}

function introspectionOptions(settings: Settings, doFetch?: typeof fetch): IntrospectionOptions | undefined {
  const endpoint = settings.mcpAuthIntrospectionUrl.trim()
  if (endpoint === '') return undefined
  const file = settings.mcpAuthIntrospectionSecretFile.trim()
  let clientSecret = ''
  if (file !== '') {
    try {
      clientSecret = readFileSync(file, 'utf8').trim()
    } catch (error) {
      throw new McpxError('CONFIG', `setting mcpAuthIntrospectionSecretFile: cannot read ${file}: ${(error as Error).message}`, {
        setting: 'mcpAuthIntrospectionSecretFile',
      })
    }
  }
  return {
    endpoint,
    clientId: settings.mcpAuthIntrospectionClientId,
    clientSecret,
    requestTimeoutMs: settings.authRequestTimeoutMs,
    ...(doFetch && { fetch: doFetch }),
  }
}

/** One sentence for the challenge's error_description: which check the token failed. */
function jwtProblem(error: InstanceType<typeof joseErrors.JOSEError>, resource: string): string {
  if (error instanceof joseErrors.JWTExpired) return 'the access token has expired'
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return `the access token is not meant for this resource (${resource})`
    if (error.claim === 'iss') return 'the access token was issued by another authorization server'
    if (error.claim === 'nbf') return 'the access token is not valid yet'
    return `the access token's ${error.claim} claim is invalid`
  }
  if (error instanceof joseErrors.JWKSNoMatchingKey)
    return 'the access token is signed with a key the authorization server does not publish'
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'the access token signature is invalid'
  return `the access token is invalid (${error.code})`
}
