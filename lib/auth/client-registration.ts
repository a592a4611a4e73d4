/**
 * How mcpx obtains a client_id at an authorization server, in the priority order of 2026-07-28
 * basic/authorization/client-registration.mdx: pre-registered credentials for that issuer, a
 * Client ID Metadata Document URL when the AS advertises support, else Dynamic Client Registration
 * (RFC 7591) as a native application with a loopback redirect.
 */
import { McpxError } from '../errors/index.ts'
import type { ClientCredentials } from './client-auth.ts'
import { type HttpContext, oauthFailure, readJson, request } from './http.ts'
import { type AuthorizationServerMetadata, ClientInformationSchema } from './schemas.ts'

/** A client as stored per issuer. `kind` says how it was obtained (re-registration only for dcr). */
export interface RegisteredClient extends ClientCredentials {
  kind: 'pre-registered' | 'metadata-document' | 'dynamic'
  redirectUris?: string[]
  /** Epoch ms after which a dynamically issued secret is void (RFC 7591 section 3.2.1), if it expires. */
  secretExpiresAt?: number
}

/** Static credentials from configuration. `issuer`, when given, binds them to one AS. */
export interface PreRegisteredClient {
  clientId: string
  clientSecret?: string
  issuer?: string
  privateKeyPem?: string
  signingAlgorithm?: string
  authMethod?: string
}

export interface RegistrationOptions {
  clientName: string
  redirectUri: string
  /** RFC 7591 `scope` to register (space-separated), optional. */
  scope?: string
  grantTypes: string[]
}

/** Pick a registration path that needs no network: pre-registered, then CIMD. */
export function staticClientFor(
  metadata: AuthorizationServerMetadata,
  preRegistered: PreRegisteredClient | undefined,
  clientMetadataUrl: string | undefined,
): RegisteredClient | undefined {
  if (preRegistered) {
    // client-registration.mdx "Authorization Server Binding": surface an error, don't guess.
    if (preRegistered.issuer !== undefined && preRegistered.issuer !== metadata.issuer) {
      throw new McpxError(
        'AUTH',
        `pre-registered client ${preRegistered.clientId} belongs to ${preRegistered.issuer}, but the server now uses ${metadata.issuer}`,
        {
          issuer: metadata.issuer,
          registeredIssuer: preRegistered.issuer,
        },
      )
    }
    const client: RegisteredClient = { kind: 'pre-registered', clientId: preRegistered.clientId }
    if (preRegistered.clientSecret !== undefined) client.clientSecret = preRegistered.clientSecret
    if (preRegistered.privateKeyPem !== undefined) client.privateKeyPem = preRegistered.privateKeyPem
    if (preRegistered.signingAlgorithm !== undefined) client.signingAlgorithm = preRegistered.signingAlgorithm
    if (preRegistered.authMethod !== undefined) client.authMethod = preRegistered.authMethod
    return client
  }
  if (clientMetadataUrl && isClientMetadataUrl(clientMetadataUrl) && metadata.client_id_metadata_document_supported === true) {
    return { kind: 'metadata-document', clientId: clientMetadataUrl, authMethod: 'none' }
  }
  return undefined
}

/** client-registration.mdx: a CIMD client_id is an https URL with a path component. */
function isClientMetadataUrl(value: string): boolean {
  try {
    const url = new URL(value)
    return url.protocol === 'https:' && url.pathname.length > 1
  } catch {
    return false
  }
}

/** Register dynamically (RFC 7591 section 3.1). Fails with AUTH when the AS offers no registration. */
export async function registerClient(
  http: HttpContext,
  metadata: AuthorizationServerMetadata,
  options: RegistrationOptions,
): Promise<RegisteredClient> {
  const endpoint = metadata.registration_endpoint
  if (!endpoint) {
    throw new McpxError(
      'AUTH',
      `authorization server ${metadata.issuer} supports neither dynamic registration nor client metadata documents; configure a client_id`,
      {
        issuer: metadata.issuer,
      },
    )
  }
  const supported = metadata.token_endpoint_auth_methods_supported ?? ['client_secret_basic']
  // A public client (PKCE, no secret) when the AS allows it; else ask for a secret it accepts.
  const authMethod = supported.includes('none')
    ? 'none'
    : supported.includes('client_secret_basic')
      ? 'client_secret_basic'
      : supported.includes('client_secret_post')
        ? 'client_secret_post'
        : 'none'
  const body: Record<string, unknown> = {
    client_name: options.clientName,
    redirect_uris: [options.redirectUri],
    grant_types: options.grantTypes,
    response_types: ['code'],
    token_endpoint_auth_method: authMethod,
    // 2026-07-28 basic/authorization/client-registration.mdx: clients MUST state an `application_type`, and native
    // apps (loopback redirects) use "native".
    application_type: 'native',
  }
  if (options.scope) body.scope = options.scope
  const response = await request(http, endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  })
  if (!response.ok) throw await oauthFailure(response, `client registration at ${metadata.issuer}`)
  const info = await readJson(response, ClientInformationSchema, 'client registration response')
  const client: RegisteredClient = { kind: 'dynamic', clientId: info.client_id, redirectUris: info.redirect_uris ?? [options.redirectUri] }
  if (info.client_secret !== undefined) client.clientSecret = info.client_secret
  client.authMethod =
    info.token_endpoint_auth_method ??
    (info.client_secret === undefined ? 'none' : authMethod === 'none' ? 'client_secret_basic' : authMethod)
  if (info.client_secret_expires_at) client.secretExpiresAt = info.client_secret_expires_at * 1000
  return client
}
