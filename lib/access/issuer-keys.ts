/**
 * The authorization server's signing keys: its metadata is discovered from the issuer URL
 * (RFC 8414 section 3, then OpenID Connect Discovery), its `issuer` must equal the configured one
 * (RFC 8414 section 3.3), and its `jwks_uri` becomes a jose remote key set — cached, re-fetched when a
 * token names an unknown key id (rotation), with a cooldown so bad tokens cannot flood the AS.
 */
import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose'

export interface IssuerKeysOptions {
  readonly issuer: string
  readonly requestTimeoutMs: number
  readonly cacheMs: number
  readonly cooldownMs: number
  readonly retryMs: number
  readonly fetch?: typeof fetch
}

export interface IssuerMetadata {
  readonly issuer: string
  readonly jwks_uri?: string
  readonly introspection_endpoint?: string
  readonly [key: string]: unknown
}

/** RFC 8414 section 3.1 inserts the well-known segment before the issuer's path; OIDC appends it. */
function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer)
  const path = url.pathname.replace(/\/+$/, '')
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    ...(path === '' ? [] : [`${url.origin}${path}/.well-known/openid-configuration`]),
  ]
}

export class IssuerKeys {
  #keys?: Promise<JWTVerifyGetKey>
  #failedAt = 0
  #lastError?: Error

  constructor(private readonly options: IssuerKeysOptions) {}

  /** The key resolver for jwtVerify; rejects while the metadata cannot be read. */
  keys(): Promise<JWTVerifyGetKey> {
    if (this.#keys) return this.#keys
    if (this.#lastError && performance.now() - this.#failedAt < this.options.retryMs) return Promise.reject(this.#lastError)
    this.#keys = this.#discover().catch((error: Error) => {
      this.#keys = undefined
      this.#failedAt = performance.now()
      this.#lastError = error
      throw error
    })
    return this.#keys
  }

  async #discover(): Promise<JWTVerifyGetKey> {
    const metadata = await discoverIssuer(this.options)
    if (typeof metadata.jwks_uri !== 'string') throw new Error(`the metadata of ${this.options.issuer} has no jwks_uri`)
    return createRemoteJWKSet(new URL(metadata.jwks_uri), {
      timeoutDuration: this.options.requestTimeoutMs,
      cacheMaxAge: this.options.cacheMs,
      cooldownDuration: this.options.cooldownMs,
    })
  }
}

async function discoverIssuer(options: Pick<IssuerKeysOptions, 'issuer' | 'requestTimeoutMs' | 'fetch'>): Promise<IssuerMetadata> {
  const doFetch = options.fetch ?? fetch
  const problems: string[] = []
  for (const url of metadataUrls(options.issuer)) {
    let response: Response
    try {
      response = await doFetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(options.requestTimeoutMs) })
    } catch (error) {
      problems.push(`${url}: ${(error as Error).message}`)
      continue
    }
    if (!response.ok) {
      problems.push(`${url}: HTTP ${response.status}`)
      continue
    }
    const body = (await response.json().catch(() => null)) as IssuerMetadata | null
    if (body === null || typeof body !== 'object') {
      problems.push(`${url}: not a JSON object`)
      continue
    }
    // RFC 8414 section 3.3: a document naming another issuer MUST NOT be used.
    if (body.issuer !== options.issuer)
      throw new Error(`${url} names issuer ${JSON.stringify(body.issuer)}, not the configured ${options.issuer}`)
    return body
  }
  throw new Error(`no authorization server metadata for ${options.issuer} (${problems.join('; ')})`)
}
