/**
 * The AuthProvider for one OAuth-protected HTTP upstream: hands the transport the current token
 * (refreshed before it expires) and, on a 401 or a 403 `insufficient_scope`, re-discovers the AS and
 * refreshes or runs a new grant (grants.ts). Concurrent challenges share one flow; re-authorizations
 * that never let a request through are bounded by `authMaxRetries`.
 */
import { McpxError } from '../errors/index.ts'
import type { Settings } from '../settings/index.ts'
import type { AuthProvider } from '../transport/index.ts'
import type { AuthorizationHandler } from './authorization-handler.ts'
import { type PreRegisteredClient, staticClientFor } from './client-registration.ts'
import { type CredentialRecord, type CredentialStore, type IssuerState, createMemoryCredentialStore } from './credential-store.ts'
import { type Discovered, discoverAuthorization, probeChallenge } from './authorization-discovery.ts'
import { DPOP_ALG, type DpopKey, createDpopKey, createDpopProof, fromPrivateJwk } from './dpop.ts'
import type { FetchLike, HttpContext } from './http.ts'
import { type GrantKind, runGrant } from './grants.ts'
import { type StoredTokens, requestToken } from './token-endpoint.ts'
import { type BearerChallenge, parseBearerChallenge, splitScopes } from './www-authenticate.ts'
import { HTTP_STATUS } from '../wire/index.ts'

export interface OAuthProviderOptions {
  /** The MCP endpoint URL, exactly as configured. */
  serverUrl: string
  settings: Settings
  /** Where clients and tokens persist; default: in memory for this process. */
  store?: CredentialStore
  /** The user-agent step; required for the authorization code grant. */
  authorizationHandler?: AuthorizationHandler
  /**
   * How tokens are obtained. Default `authorization_code` (user login through the handler);
   * `client_credentials` and `jwt-bearer` are for machine clients and need `preRegistered`.
   */
  grant?: GrantKind
  /** Static client credentials (pre-registration). */
  preRegistered?: PreRegisteredClient
  /** CIMD client_id URL; default `settings.authClientMetadataUrl` (empty = none). */
  clientMetadataUrl?: string
  /** client_name for dynamic registration. */
  clientName?: string
  /** Extra scopes always requested (space-separated), on top of the server's guidance. */
  scope?: string
  /** Ask for `offline_access` when the AS lists it, to get refresh tokens (default true). */
  requestOfflineAccess?: boolean
  /**
   * DPoP-bound tokens (RFC 9449): `true` always ask, `false` never, `'auto'` (default) when the
   * server challenges with the DPoP scheme only and the AS signs ES256 proofs. Needs a transport
   * that sends `requestHeaders()` with every request.
   */
  dpop?: boolean | 'auto'
  fetch?: FetchLike
}

/** An AuthProvider plus the verbs the CLI needs (`login`, `logout`). */
export interface OAuthProvider extends AuthProvider {
  /**
   * Headers besides Authorization for one request: a fresh DPoP proof (RFC 9449 section 7) when the
   * token is DPoP-bound, else none. A transport calls it right after authorization().
   */
  requestHeaders(request: { url: string; method: string }): Promise<Record<string, string>>
  /** Authorize now (discovering from well-known URIs), replacing stored tokens. */
  login(): Promise<void>
  /** Forget this server's clients and tokens. */
  logout(): Promise<void>
  /** The issuer in use, once known. */
  issuer(): Promise<string | undefined>
}

const OFFLINE_ACCESS = 'offline_access'

export function createOAuthProvider(options: OAuthProviderOptions): OAuthProvider {
  return new OAuthProviderImpl(options)
}

class OAuthProviderImpl implements OAuthProvider {
  private readonly store: CredentialStore
  private readonly http: HttpContext
  private record: CredentialRecord | undefined
  private loaded = false
  private pending: Promise<void> | undefined
  private discovered: Discovered | undefined
  /** Re-authorizations since a token last served more than one request. */
  private streak = 0
  private handedOut: { token: string; uses: number } | undefined
  /** The resource server challenged with the DPoP scheme (and not Bearer). */
  private serverWantsDpop = false
  private dpopKey: DpopKey | undefined
  private asNonce: string | undefined
  private rsNonce: string | undefined

  constructor(private readonly options: OAuthProviderOptions) {
    this.store = options.store ?? createMemoryCredentialStore()
    this.http = { fetch: options.fetch ?? fetch, timeoutMs: options.settings.authRequestTimeoutMs }
  }

  async authorization(): Promise<string | undefined> {
    if (this.pending) await this.pending.catch(() => undefined)
    const state = await this.currentState()
    let tokens = state?.tokens
    if (!tokens) return undefined
    if (tokens.expiresAt !== undefined && tokens.refreshToken && tokens.expiresAt - this.options.settings.authRefreshSkewMs <= Date.now()) {
      await this.singleFlight(() => this.refresh().then(() => undefined)).catch(() => undefined)
      tokens = (await this.currentState())?.tokens
      if (!tokens) return undefined
    }
    this.noteHandedOut(tokens.accessToken)
    return `${tokens.tokenType ?? 'Bearer'} ${tokens.accessToken}`
  }

  async requestHeaders(request: { url: string; method: string }): Promise<Record<string, string>> {
    const tokens = (await this.currentState())?.tokens
    if (tokens?.tokenType !== 'DPoP' || !tokens.dpopJwk) return {}
    const key = await this.keyFor(tokens.dpopJwk)
    const proof = await createDpopProof(key, {
      ...request,
      accessToken: tokens.accessToken,
      ...(this.rsNonce ? { nonce: this.rsNonce } : {}),
    })
    return { DPoP: proof }
  }

  async onAuthChallenge(response: Response, _request: { url: string; method: string }): Promise<'retry' | 'fail'> {
    const challenge = parseBearerChallenge(response)
    if (challenge.scheme === 'DPoP') this.serverWantsDpop = true
    if (response.status === HTTP_STATUS.UNAUTHORIZED && challenge.error === 'use_dpop_nonce' && challenge.dpopNonce) {
      // RFC 9449 section 9: the same token, a proof with the server's nonce; the transport bounds retries.
      this.rsNonce = challenge.dpopNonce
      return 'retry'
    }
    if (response.status === HTTP_STATUS.FORBIDDEN && challenge.error !== 'insufficient_scope') return 'fail'
    if (response.status !== HTTP_STATUS.UNAUTHORIZED && response.status !== HTTP_STATUS.FORBIDDEN) return 'fail'
    if (this.pending) {
      // Another request's challenge is being answered; its outcome serves this one too.
      await this.pending
      return 'retry'
    }
    if (this.streak >= this.options.settings.authMaxRetries) {
      throw new McpxError('AUTH', `${this.options.serverUrl} still refuses access after ${this.streak} re-authorizations`, {
        status: response.status,
      })
    }
    this.streak++
    await this.singleFlight(() => (response.status === HTTP_STATUS.FORBIDDEN ? this.stepUp(challenge) : this.reauthorize(challenge)))
    return 'retry'
  }

  async login(): Promise<void> {
    await this.singleFlight(async () => {
      const challenge = await probeChallenge(this.http, this.options.serverUrl)
      if (challenge.scheme === 'DPoP') this.serverWantsDpop = true
      const discovered = await this.discover(challenge)
      await this.obtain(discovered, this.initialScope(discovered, challenge))
    })
  }

  async logout(): Promise<void> {
    this.record = undefined
    this.discovered = undefined
    await this.store.remove(this.options.serverUrl)
  }

  async issuer(): Promise<string | undefined> {
    return (await this.load())?.issuer
  }

  // --- internal ---

  /**
   * Pre-registered credentials bind to the first issuer they were used with when the config names
   * none (client-registration.mdx "Authorization Server Binding": never carry them to another AS).
   */
  private preRegisteredFor(_issuer: string, record: CredentialRecord | undefined): PreRegisteredClient | undefined {
    const pre = this.options.preRegistered
    if (!pre || pre.issuer !== undefined) return pre
    const boundTo = Object.entries(record?.issuers ?? {}).find(
      ([, s]) => s.client?.kind === 'pre-registered' && s.client.clientId === pre.clientId,
    )?.[0]
    return boundTo === undefined ? pre : { ...pre, issuer: boundTo }
  }

  private wantsDpop(metadata: { dpop_signing_alg_values_supported?: string[] }): boolean {
    const mode = this.options.dpop ?? 'auto'
    if (mode === true) return true
    return mode === 'auto' && this.serverWantsDpop && (metadata.dpop_signing_alg_values_supported ?? []).includes(DPOP_ALG)
  }

  private async keyFor(jwk: JsonWebKey): Promise<DpopKey> {
    if (this.dpopKey?.privateJwk.d !== jwk.d) this.dpopKey = await fromPrivateJwk(jwk)
    return this.dpopKey!
  }

  private noteHandedOut(token: string): void {
    if (this.handedOut?.token === token) {
      this.handedOut.uses++
      // The token went out again, so the request before this one got through with it.
      if (this.handedOut.uses > 1) this.streak = 0
    } else {
      this.handedOut = { token, uses: 1 }
    }
  }

  private async singleFlight(run: () => Promise<void>): Promise<void> {
    if (this.pending) return this.pending
    this.pending = run().finally(() => {
      this.pending = undefined
    })
    return this.pending
  }

  private async load(): Promise<CredentialRecord | undefined> {
    if (!this.loaded) {
      this.record = await this.store.load(this.options.serverUrl)
      this.loaded = true
    }
    return this.record
  }

  private async currentState(): Promise<IssuerState | undefined> {
    const record = await this.load()
    return record?.issuer ? record.issuers[record.issuer] : undefined
  }

  private async save(update: (record: CredentialRecord) => void): Promise<void> {
    const record = (await this.load()) ?? { serverUrl: this.options.serverUrl, issuers: {} }
    update(record)
    this.record = record
    await this.store.save(record)
  }

  private async discover(challenge: BearerChallenge): Promise<Discovered> {
    const current = (await this.load())?.issuer
    this.discovered = await discoverAuthorization(this.http, this.options.serverUrl, challenge, current)
    return this.discovered
  }

  /** Scope selection (2026-07-28 basic/authorization/index.mdx): challenge > PRM scopes_supported > omit. */
  private initialScope(discovered: Discovered, challenge: BearerChallenge): string[] {
    const fromChallenge = splitScopes(challenge.scope)
    return fromChallenge.length > 0 ? fromChallenge : (discovered.prmScopes ?? [])
  }

  private async reauthorize(challenge: BearerChallenge): Promise<void> {
    const discovered = await this.discover(challenge)
    const issuer = discovered.metadata.issuer
    const record = await this.load()
    const state = record?.issuer === issuer ? record.issuers[issuer] : undefined
    if (state?.tokens?.refreshToken) {
      try {
        await this.refresh()
        return
      } catch {
        // refresh refused or failed: fall through to a new grant
      }
    }
    await this.obtain(discovered, this.initialScope(discovered, challenge))
  }

  /** 403 insufficient_scope: re-authorize for the union of what we asked for and what is needed. */
  private async stepUp(challenge: BearerChallenge): Promise<void> {
    const discovered = this.discovered ?? (await this.discover(challenge))
    const current = splitScopes((await this.currentState())?.tokens?.scope)
    const needed = splitScopes(challenge.scope)
    const union = [...new Set([...current, ...needed])]
    if (needed.length === 0 || union.length === current.length) {
      // The token already carries every challenged scope: another grant cannot help.
      throw new McpxError(
        'AUTH',
        `${this.options.serverUrl} requires scope "${challenge.scope ?? ''}" which the current token already has; giving up`,
        {
          scope: challenge.scope,
        },
      )
    }
    await this.obtain(discovered, union)
  }

  /** A new grant at the discovered AS, with the client bound to that issuer. */
  private async obtain(discovered: Discovered, scopes: string[]): Promise<void> {
    const { metadata } = discovered
    const issuer = metadata.issuer
    const wanted = [...new Set([...scopes, ...splitScopes(this.options.scope)])]
    const grant = this.options.grant ?? 'authorization_code'
    // 2026-07-28 basic/authorization/index.mdx: a client MAY add offline_access when the AS lists it in
    // scopes_supported; we do so only for user-delegated grants.
    if (
      grant === 'authorization_code' &&
      this.options.requestOfflineAccess !== false &&
      metadata.scopes_supported?.includes(OFFLINE_ACCESS) &&
      wanted.length > 0
    ) {
      if (!wanted.includes(OFFLINE_ACCESS)) wanted.push(OFFLINE_ACCESS)
    }
    const scope = wanted.length > 0 ? wanted.join(' ') : undefined
    const record = await this.load()
    let client = record?.issuers[issuer]?.client
    if (client?.secretExpiresAt !== undefined && client.secretExpiresAt <= Date.now()) client = undefined
    const clientMetadataUrl = this.options.clientMetadataUrl ?? (this.options.settings.authClientMetadataUrl || undefined)
    client ??= staticClientFor(metadata, this.preRegisteredFor(issuer, record), clientMetadataUrl)

    const dpop = this.wantsDpop(metadata)
      ? { key: (this.dpopKey ??= await createDpopKey()), ...(this.asNonce ? { nonce: this.asNonce } : {}) }
      : undefined
    const { tokens, client: finalClient } = await runGrant({
      http: this.http,
      discovered,
      serverUrl: this.options.serverUrl,
      grant,
      client,
      scope,
      dpop,
      ...(this.options.authorizationHandler !== undefined && { authorizationHandler: this.options.authorizationHandler }),
      ...(this.options.clientName !== undefined && { clientName: this.options.clientName }),
      saveClient: (registered) =>
        this.save((r) => {
          r.issuers[issuer] = { ...r.issuers[issuer], metadata, client: registered }
        }),
    })
    if (dpop?.nonce) this.asNonce = dpop.nonce
    await this.save((r) => {
      r.issuer = issuer
      if (discovered.resource !== undefined) r.resource = discovered.resource
      r.issuers[issuer] = { metadata, client: finalClient, tokens }
    })
  }

  /** refresh_token grant at the current AS; keeps the old refresh token if none is rotated in. */
  private async refresh(): Promise<StoredTokens> {
    const record = await this.load()
    const issuer = record?.issuer
    const state = issuer ? record.issuers[issuer] : undefined
    if (!issuer || !state?.tokens?.refreshToken || !state.metadata || !state.client) {
      throw new McpxError('AUTH', `no refresh token for ${this.options.serverUrl}`)
    }
    const old = state.tokens
    const { metadata, client } = state
    // RFC 9449 section 5: a DPoP-bound refresh is proven with the same key.
    const dpop = old.dpopJwk ? { key: await this.keyFor(old.dpopJwk), ...(this.asNonce ? { nonce: this.asNonce } : {}) } : undefined
    try {
      const tokens = await requestToken(
        {
          http: this.http,
          metadata,
          client,
          ...(record.resource !== undefined ? { resource: record.resource } : {}),
          ...(dpop ? { dpop } : {}),
        },
        { grant_type: 'refresh_token', refresh_token: old.refreshToken! },
        undefined,
      )
      tokens.refreshToken ??= old.refreshToken
      if (old.scope !== undefined) tokens.scope = old.scope
      await this.save((r) => {
        r.issuers[issuer] = { ...r.issuers[issuer], tokens }
      })
      return tokens
    } catch (error) {
      // A refused refresh token is dead: drop the tokens so the next 401 starts a new grant.
      await this.save((r) => {
        const s = r.issuers[issuer]
        if (s) delete s.tokens
      })
      throw error
    }
  }
}
