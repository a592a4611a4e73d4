/**
 * The one-call way for the client, gateway, daemon and CLI to give a configured HTTP upstream an
 * OAuth provider: credentials persist under `<mcpx home>/oauth`, an optional `oauth` block of the
 * server's config entry supplies static client credentials, scope or a machine grant, and
 * `interactive` decides whether a login may open a loopback listener (CLI) or must fail with
 * "run mcpx auth login" (daemon, scripts).
 */
import { join } from 'node:path'
import type { Settings } from '../settings/index.ts'
import { type AuthorizationHandler, createLoopbackHandler } from './authorization-handler.ts'
import { createFileCredentialStore } from './credential-store.ts'
import { type OAuthProvider, type OAuthProviderOptions, createOAuthProvider } from './oauth-provider.ts'

// The config block's schema lives in upstream-config.ts: every config load needs it, none needs the OAuth client.
export { OAuthUpstreamConfigSchema, type OAuthUpstreamConfig } from './upstream-config.ts'
import type { OAuthUpstreamConfig } from './upstream-config.ts'

export interface UpstreamAuthOptions {
  serverUrl: string
  settings: Settings
  /** The mcpx home directory (McpxPaths.home); tokens go to `<home>/oauth/`, files 0600. */
  home: string
  config?: OAuthUpstreamConfig
  /**
   * Allow an interactive login: a loopback listener on 127.0.0.1 and `open(url)` to show the
   * authorization URL (default: print it to stderr). `false`/absent: a needed login fails AUTH.
   */
  interactive?: false | { open?: (url: string) => void | Promise<void> }
  /** Overrides the handler outright (e.g. the redirect-following handler for automation). */
  authorizationHandler?: AuthorizationHandler
}

/** The credential directory under an mcpx home. */
export function oauthStoreDir(home: string): string {
  return join(home, 'oauth')
}

/** Build the AuthProvider for one HTTP upstream. */
export function createUpstreamAuth(options: UpstreamAuthOptions): OAuthProvider {
  const { config, settings } = options
  const provider: OAuthProviderOptions = {
    serverUrl: options.serverUrl,
    settings,
    store: createFileCredentialStore(oauthStoreDir(options.home)),
  }
  const handler =
    options.authorizationHandler ??
    (options.interactive
      ? createLoopbackHandler({
          timeoutMs: settings.authLoginTimeoutMs,
          port: settings.authCallbackPort,
          ...(options.interactive.open ? { open: options.interactive.open } : {}),
        })
      : undefined)
  if (handler) provider.authorizationHandler = handler
  if (config?.clientId) {
    provider.preRegistered = { clientId: config.clientId }
    if (config.clientSecret !== undefined) provider.preRegistered.clientSecret = config.clientSecret
    if (config.issuer !== undefined) provider.preRegistered.issuer = config.issuer
    if (config.privateKeyPem !== undefined) provider.preRegistered.privateKeyPem = config.privateKeyPem
    if (config.signingAlgorithm !== undefined) provider.preRegistered.signingAlgorithm = config.signingAlgorithm
  }
  if (config?.grant) provider.grant = config.grant
  if (config?.scope) provider.scope = config.scope
  if (config?.clientMetadataUrl) provider.clientMetadataUrl = config.clientMetadataUrl
  if (config?.offlineAccess !== undefined) provider.requestOfflineAccess = config.offlineAccess
  return createOAuthProvider(provider)
}
