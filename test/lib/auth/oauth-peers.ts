/**
 * Real HTTP peers for the auth tests (Bun.serve on port 0): a small OAuth 2.1 authorization
 * server (metadata, DCR, authorize with immediate redirect, token endpoint with PKCE S256
 * verification, refresh, client_credentials incl. private_key_jwt) and a protected resource that
 * publishes RFC 9728 metadata and answers 401/403 challenges. Everything they see is recorded.
 */

export interface IssuedToken {
  /** `x` of the DPoP key the token is bound to (RFC 9449 cnf), if DPoP-bound. */
  dpopX?: string
  scopes: string[]
  resource?: string
  issuer: string
  clientId: string
}

/** Shared by the servers of one test: the resource server accepts what an AS issued. */
export type TokenRegistry = Map<string, IssuedToken>

export interface AsOptions {
  registry: TokenRegistry
  /** Path of the issuer, e.g. '/tenant1' (metadata then uses path insertion). */
  issuerPath?: string
  /** Issuer written into the metadata document (default: the real one). */
  metadataIssuer?: string
  /** Where the metadata is served: 'oauth' (RFC 8414) or 'openid'. */
  metadataKind?: 'oauth' | 'openid'
  issParameterSupported?: boolean
  issInRedirect?: 'correct' | 'omit' | 'wrong'
  authMethods?: string[]
  registration?: boolean
  cimd?: boolean
  scopesSupported?: string[]
  /** Issue refresh tokens with this access-token lifetime (seconds). */
  refresh?: { expiresIn: number }
  preRegistered?: Record<string, string | undefined>
  /** For private_key_jwt: the client's public key. */
  clientPublicKeys?: Record<string, CryptoKey>
  grantTypes?: string[]
  /** Prefix of dynamically issued client ids (default 'client'). */
  clientPrefix?: string
  /** Advertise DPoP (ES256) and bind tokens to a valid proof's key; `nonce` demands that nonce. */
  dpop?: { nonce?: string }
}

export interface RecordedRequest {
  path: string
  params: Record<string, string>
  authorization?: string
  body?: unknown
}

export interface AuthorizationServer extends AsyncDisposable {
  issuer: string
  origin: string
  requests: RecordedRequest[]
  of(path: string): RecordedRequest[]
}

async function s256(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))
  return Buffer.from(digest).toString('base64url')
}

export async function startAuthorizationServer(options: AsOptions): Promise<AuthorizationServer> {
  const requests: RecordedRequest[] = []
  const codes = new Map<string, { challenge: string; clientId: string; redirectUri: string; scope?: string; resource?: string }>()
  const refreshTokens = new Map<string, IssuedToken>()
  const clients = new Map<string, string | undefined>(Object.entries(options.preRegistered ?? {}))
  let counter = 0
  const path = options.issuerPath ?? ''
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const url = new URL(req.url)
      const issuer = `${url.origin}${path}`
      const record: RecordedRequest = { path: url.pathname, params: Object.fromEntries(url.searchParams) }
      const authorization = req.headers.get('authorization')
      if (authorization) record.authorization = authorization
      if (req.method === 'POST') {
        const text = await req.text()
        if ((req.headers.get('content-type') ?? '').includes('json')) record.body = JSON.parse(text)
        else record.params = { ...record.params, ...Object.fromEntries(new URLSearchParams(text)) }
      }
      requests.push(record)
      const kind = options.metadataKind ?? 'oauth'
      const metadataPath = kind === 'oauth' ? `/.well-known/oauth-authorization-server${path}` : `/.well-known/openid-configuration${path}`
      if (url.pathname === metadataPath) {
        return Response.json({
          issuer: options.metadataIssuer ?? issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          ...(options.registration === false ? {} : { registration_endpoint: `${issuer}/register` }),
          response_types_supported: ['code'],
          grant_types_supported: options.grantTypes ?? ['authorization_code', 'refresh_token'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: options.authMethods ?? ['none'],
          ...(options.issParameterSupported === undefined
            ? {}
            : { authorization_response_iss_parameter_supported: options.issParameterSupported }),
          ...(options.cimd ? { client_id_metadata_document_supported: true } : {}),
          ...(options.scopesSupported ? { scopes_supported: options.scopesSupported } : {}),
          ...(options.dpop ? { dpop_signing_alg_values_supported: ['ES256'] } : {}),
        })
      }
      if (url.pathname === `${path}/register`) {
        const body = record.body as Record<string, unknown>
        const clientId = `${options.clientPrefix ?? 'client'}-${++counter}`
        const method = String(body.token_endpoint_auth_method ?? 'client_secret_basic')
        const secret = method === 'none' ? undefined : `secret-${counter}`
        clients.set(clientId, secret)
        return Response.json(
          {
            client_id: clientId,
            ...(secret ? { client_secret: secret } : {}),
            token_endpoint_auth_method: method,
            redirect_uris: body.redirect_uris,
          },
          { status: 201 },
        )
      }
      if (url.pathname === `${path}/authorize`) {
        const p = record.params
        const code = `code-${++counter}`
        codes.set(code, {
          challenge: p.code_challenge!,
          clientId: p.client_id!,
          redirectUri: p.redirect_uri!,
          ...(p.scope ? { scope: p.scope } : {}),
          ...(p.resource ? { resource: p.resource } : {}),
        })
        const back = new URL(p.redirect_uri!)
        back.searchParams.set('code', code)
        if (p.state) back.searchParams.set('state', p.state)
        const iss = options.issInRedirect ?? 'correct'
        if (iss === 'correct') back.searchParams.set('iss', issuer)
        if (iss === 'wrong') back.searchParams.set('iss', 'https://evil.example')
        return new Response(null, { status: 302, headers: { location: back.toString() } })
      }
      if (url.pathname === `${path}/token`) {
        const p = record.params
        const client = await authenticateClient(p, authorization, issuer)
        if (!client) return Response.json({ error: 'invalid_client' }, { status: 401 })
        // RFC 9449 §8: the nonce is demanded before the grant (and its code) is used.
        let dpopX: string | undefined
        const proofHeader = req.headers.get('dpop')
        if (options.dpop && proofHeader) {
          const proof = await verifyDpopProof(proofHeader, 'POST', `${issuer}/token`)
          if (!proof) return Response.json({ error: 'invalid_dpop_proof' }, { status: 400 })
          if (options.dpop.nonce && proof.nonce !== options.dpop.nonce) {
            return Response.json({ error: 'use_dpop_nonce' }, { status: 400, headers: { 'dpop-nonce': options.dpop.nonce } })
          }
          dpopX = proof.x
        }
        let scopes: string[]
        let resource: string | undefined = p.resource
        if (p.grant_type === 'authorization_code') {
          const grant = codes.get(p.code!)
          codes.delete(p.code!)
          if (
            !grant ||
            grant.clientId !== client ||
            grant.redirectUri !== p.redirect_uri ||
            (await s256(p.code_verifier ?? '')) !== grant.challenge
          ) {
            return Response.json({ error: 'invalid_grant' }, { status: 400 })
          }
          scopes = grant.scope ? grant.scope.split(' ') : []
          resource = grant.resource
        } else if (p.grant_type === 'refresh_token') {
          const old = refreshTokens.get(p.refresh_token!)
          if (!old) return Response.json({ error: 'invalid_grant' }, { status: 400 })
          scopes = old.scopes
        } else if (p.grant_type === 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
          if (!p.assertion) return Response.json({ error: 'invalid_request' }, { status: 400 })
          scopes = p.scope ? p.scope.split(' ') : []
        } else if (p.grant_type === 'client_credentials') {
          scopes = p.scope ? p.scope.split(' ') : []
        } else {
          return Response.json({ error: 'unsupported_grant_type' }, { status: 400 })
        }
        const token = `at-${++counter}`
        const issued: IssuedToken = { scopes, issuer, clientId: client, ...(resource ? { resource } : {}), ...(dpopX ? { dpopX } : {}) }
        options.registry.set(token, issued)
        const body: Record<string, unknown> = { access_token: token, token_type: dpopX ? 'DPoP' : 'Bearer', scope: scopes.join(' ') }
        if (options.refresh) {
          const refresh = `rt-${++counter}`
          refreshTokens.set(refresh, issued)
          body.refresh_token = refresh
          body.expires_in = options.refresh.expiresIn
        }
        return Response.json(body)
      }
      return new Response('not found', { status: 404 })
    },
  })

  async function authenticateClient(p: Record<string, string>, authorization: string | null, issuer: string): Promise<string | undefined> {
    if (authorization?.startsWith('Basic ')) {
      const [id, secret] = Buffer.from(authorization.slice(6), 'base64')
        .toString()
        .split(':')
        .map((s) => decodeURIComponent(s.replace(/\+/g, ' ')))
      return clients.has(id!) && clients.get(id!) === secret ? id : undefined
    }
    if (p.client_assertion) {
      const [h, c, s] = p.client_assertion.split('.')
      const claims = JSON.parse(Buffer.from(c!, 'base64url').toString()) as Record<string, unknown>
      const key = options.clientPublicKeys?.[String(claims.iss)]
      if (!key || claims.sub !== claims.iss || claims.aud !== issuer) return undefined
      const ok = await crypto.subtle.verify(
        { name: 'ECDSA', hash: 'SHA-256' },
        key,
        Buffer.from(s!, 'base64url'),
        new TextEncoder().encode(`${h}.${c}`),
      )
      return ok ? String(claims.iss) : undefined
    }
    const id = p.client_id
    if (!id || !clients.has(id)) {
      // CIMD: a URL client_id is accepted as is (the document is not fetched here).
      return id?.startsWith('https://') ? id : undefined
    }
    return clients.get(id) === p.client_secret ? id : undefined
  }

  const origin = `http://127.0.0.1:${server.port}`
  return {
    issuer: `${origin}${path}`,
    origin,
    requests,
    of: (p) => requests.filter((r) => r.path === p),
    async [Symbol.asyncDispose]() {
      await server.stop(true)
    },
  }
}

export interface ResourceOptions {
  registry: TokenRegistry
  /** Issuer(s) named in the PRM; a function so a test can migrate the AS. */
  authorizationServers: () => string[]
  /** Scopes needed per request body `op` (default none). */
  requiredScopes?: (op: string) => string[]
  /** Override of the PRM `resource` (default: the MCP endpoint URL). */
  prmResource?: (endpoint: string) => string
  scopesSupported?: string[]
  /** Put resource_metadata in WWW-Authenticate (default true). */
  prmInHeader?: boolean
  /** Put the required scope in 401 challenges. */
  scopeInChallenge?: string
  /** Answer every authorized request 403 insufficient_scope for this scope (a server that never relents). */
  alwaysForbid?: string
  /** Accept only DPoP-bound tokens with a valid proof (RFC 9449 §7); `nonce` demands that nonce. */
  dpop?: { nonce?: string }
}

export interface ResourceServer extends AsyncDisposable {
  endpoint: string
  requests: RecordedRequest[]
}

/** A protected resource at `/mcp` with PRM at the path-based well-known URI. */
export async function startResourceServer(options: ResourceOptions): Promise<ResourceServer> {
  const requests: RecordedRequest[] = []
  const seenJtis = new Set<string>()
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const url = new URL(req.url)
      const endpoint = `${url.origin}/mcp`
      const prmUrl = `${url.origin}/.well-known/oauth-protected-resource/mcp`
      const record: RecordedRequest = { path: url.pathname, params: {} }
      const authorization = req.headers.get('authorization')
      if (authorization) record.authorization = authorization
      requests.push(record)
      if (url.pathname === '/.well-known/oauth-protected-resource/mcp') {
        return Response.json({
          resource: options.prmResource ? options.prmResource(endpoint) : endpoint,
          authorization_servers: options.authorizationServers(),
          ...(options.scopesSupported ? { scopes_supported: options.scopesSupported } : {}),
        })
      }
      if (url.pathname !== '/mcp') return new Response('not found', { status: 404 })
      const op = String(((await req.json()) as { op?: string }).op ?? '')
      const meta = options.prmInHeader === false ? '' : `, resource_metadata="${prmUrl}"`
      if (options.dpop) {
        const challenge = (error: string) =>
          new Response(null, {
            status: 401,
            headers: {
              'www-authenticate': `DPoP error="${error}"${meta}`,
              ...(options.dpop?.nonce ? { 'dpop-nonce': options.dpop.nonce } : {}),
            },
          })
        if (!authorization?.startsWith('DPoP ')) return challenge('invalid_token')
        const accessToken = authorization.slice(5)
        const bound = options.registry.get(accessToken)
        const proof = await verifyDpopProof(req.headers.get('dpop') ?? '', 'POST', endpoint, accessToken)
        if (!bound || !proof || bound.dpopX !== proof.x || proof.jtiSeen(seenJtis)) return challenge('invalid_token')
        if (options.dpop.nonce && proof.nonce !== options.dpop.nonce) return challenge('use_dpop_nonce')
        return Response.json({ ok: true, op, scheme: 'DPoP' })
      }
      const token = authorization?.startsWith('Bearer ') ? options.registry.get(authorization.slice(7)) : undefined
      const currentIssuer = options.authorizationServers()[0]
      if (!token || token.issuer !== currentIssuer || token.resource !== endpoint) {
        const scope = options.scopeInChallenge ? `, scope="${options.scopeInChallenge}"` : ''
        return new Response(null, { status: 401, headers: { 'www-authenticate': `Bearer error="invalid_token"${scope}${meta}` } })
      }
      if (options.alwaysForbid) {
        return new Response(null, {
          status: 403,
          headers: { 'www-authenticate': `Bearer error="insufficient_scope", scope="${options.alwaysForbid}"${meta}` },
        })
      }
      const needed = options.requiredScopes?.(op) ?? []
      if (!needed.every((s) => token.scopes.includes(s))) {
        return new Response(null, {
          status: 403,
          headers: { 'www-authenticate': `Bearer error="insufficient_scope", scope="${needed.join(' ')}"${meta}` },
        })
      }
      return Response.json({ ok: true, op })
    },
  })
  return {
    endpoint: `http://127.0.0.1:${server.port}/mcp`,
    requests,
    async [Symbol.asyncDispose]() {
      await server.stop(true)
    },
  }
}

/** What a transport does with an AuthProvider: send, and on 401/403 ask it, then retry (bounded). */
export async function callThrough(
  provider: {
    authorization(): Promise<string | undefined>
    requestHeaders?(req: { url: string; method: string }): Promise<Record<string, string>>
    onAuthChallenge(r: Response, req: { url: string; method: string }): Promise<'retry' | 'fail'>
  },
  endpoint: string,
  op: string,
  maxRetries = 4,
): Promise<{ status: number; body?: unknown }> {
  for (let attempt = 0; ; attempt++) {
    const authorization = await provider.authorization()
    const extra = (await provider.requestHeaders?.({ url: endpoint, method: 'POST' })) ?? {}
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...extra, ...(authorization ? { authorization } : {}) },
      body: JSON.stringify({ op }),
    })
    if ((response.status === 401 || response.status === 403) && attempt < maxRetries) {
      if ((await provider.onAuthChallenge(response, { url: endpoint, method: 'POST' })) === 'retry') continue
    }
    if (!response.ok) return { status: response.status }
    return { status: response.status, body: await response.json() }
  }
}

/** Check a DPoP proof (RFC 9449 §4.3): typ, ES256 signature by the embedded JWK, htm, htu, ath. */
async function verifyDpopProof(
  proof: string,
  method: string,
  url: string,
  accessToken?: string,
): Promise<{ x: string; nonce?: string; jtiSeen(seen: Set<string>): boolean } | undefined> {
  const [h, c, sig] = proof.split('.')
  if (!h || !c || !sig) return undefined
  const header = JSON.parse(Buffer.from(h, 'base64url').toString()) as { typ?: string; alg?: string; jwk?: JsonWebKey }
  const claims = JSON.parse(Buffer.from(c, 'base64url').toString()) as Record<string, unknown>
  if (header.typ !== 'dpop+jwt' || header.alg !== 'ES256' || !header.jwk || 'd' in header.jwk) return undefined
  const key = await crypto.subtle.importKey('jwk', header.jwk, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify'])
  const ok = await crypto.subtle.verify(
    { name: 'ECDSA', hash: 'SHA-256' },
    key,
    Buffer.from(sig, 'base64url'),
    new TextEncoder().encode(`${h}.${c}`),
  )
  if (!ok || claims.htm !== method || claims.htu !== url || typeof claims.jti !== 'string') return undefined
  if (accessToken !== undefined) {
    const ath = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(accessToken))).toString('base64url')
    if (claims.ath !== ath) return undefined
  }
  const jti = claims.jti
  return {
    x: String(header.jwk.x),
    ...(typeof claims.nonce === 'string' ? { nonce: claims.nonce } : {}),
    jtiSeen: (seen) => {
      if (seen.has(jti)) return true
      seen.add(jti)
      return false
    },
  }
}
