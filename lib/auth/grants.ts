/**
 * One new grant at a discovered authorization server: client_credentials or the RFC 7523 JWT bearer
 * grant for machine clients, else authorization code + PKCE through the user-agent handler (a client
 * is registered dynamically when none fits the handler's redirect URI). oauth-provider.ts decides
 * when a grant is needed and with which client and scopes.
 */
import { McpxError } from '../errors/index.ts'
import type { AuthorizationHandler } from './authorization-handler.ts'
import { runAuthorizationCodeGrant } from './authorization-code.ts'
import { type Discovered, requirePkce } from './authorization-discovery.ts'
import { type RegisteredClient, registerClient } from './client-registration.ts'
import type { DpopKey } from './dpop.ts'
import type { HttpContext } from './http.ts'
import { type AssertionSource, JWT_BEARER_GRANT } from './jwt-bearer.ts'
import { type StoredTokens, requestToken } from './token-endpoint.ts'

/** RFC 7523 JWT bearer grant with an assertion from `assertion` (workload identity, ID-JAG). */
export interface JwtBearerGrant {
  type: 'jwt-bearer'
  assertion: AssertionSource
}

export type GrantKind = 'authorization_code' | 'client_credentials' | JwtBearerGrant

export interface GrantRequest {
  readonly http: HttpContext
  readonly discovered: Discovered
  /** The MCP endpoint, for error messages. */
  readonly serverUrl: string
  readonly grant: GrantKind
  /** The client known for this issuer (stored, static or CIMD), if any. */
  readonly client: RegisteredClient | undefined
  readonly scope: string | undefined
  /** DPoP key and AS nonce; the token endpoint updates `nonce` in place (RFC 9449 section 8). */
  readonly dpop: { key: DpopKey; nonce?: string } | undefined
  readonly authorizationHandler?: AuthorizationHandler
  readonly clientName?: string
  /** Authorization code only: persist the client before the user is sent to the AS. */
  readonly saveClient: (client: RegisteredClient) => Promise<void>
}

/** Run the grant; resolves to the tokens and the client that obtained them. */
export async function runGrant(req: GrantRequest): Promise<{ tokens: StoredTokens; client: RegisteredClient | undefined }> {
  const { http, discovered, grant, scope, dpop } = req
  const { metadata } = discovered
  const issuer = metadata.issuer
  let client = req.client
  if (grant !== 'authorization_code') {
    const kind = grant === 'client_credentials' ? grant : grant.type
    if (!client) throw new McpxError('CONFIG', `${kind} for ${req.serverUrl} needs a configured client_id`)
    const target = { http, metadata, client, ...resourceOf(discovered), ...(dpop ? { dpop } : {}) }
    if (grant === 'client_credentials') return { tokens: await requestToken(target, { grant_type: 'client_credentials' }, scope), client }
    const assertion = await grant.assertion({ issuer, ...resourceOf(discovered), ...(scope ? { scope } : {}) })
    return { tokens: await requestToken(target, { grant_type: JWT_BEARER_GRANT, assertion }, scope), client }
  }
  if (discovered.fromDocument) requirePkce(metadata)
  const handler = req.authorizationHandler
  if (!handler) {
    throw new McpxError('AUTH', `${req.serverUrl} needs an OAuth login; run \`mcpx auth login\` for it`, {
      serverUrl: req.serverUrl,
      issuer,
    })
  }
  await using session = await handler.begin(client?.redirectUris?.[0] ? { preferredRedirectUri: client.redirectUris[0] } : {})
  if (!client || (client.kind === 'dynamic' && !client.redirectUris?.includes(session.redirectUri))) {
    client = await registerClient(http, metadata, {
      clientName: req.clientName ?? 'mcpx',
      redirectUri: session.redirectUri,
      grantTypes: ['authorization_code', 'refresh_token'],
    })
  }
  await req.saveClient(client)
  const tokens = await runAuthorizationCodeGrant({
    http,
    metadata,
    client,
    session,
    ...resourceOf(discovered),
    ...(scope ? { scope } : {}),
    ...(dpop ? { dpop } : {}),
  })
  return { tokens, client }
}

function resourceOf(discovered: Discovered): { resource?: string } {
  return discovered.resource !== undefined ? { resource: discovered.resource } : {}
}
