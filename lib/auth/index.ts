/**
 * The auth room: OAuth 2.1 for HTTP upstreams (2025-11-25 basic/authorization.mdx, 2026-07-28
 * basic/authorization/). `createUpstreamAuth` is the door for a configured upstream (file store in
 * the mcpx home, loopback login when interactive); `createOAuthProvider` is the general form. Both
 * give the Streamable HTTP transport an AuthProvider (plus `requestHeaders` for DPoP proofs).
 */
export { createUpstreamAuth, oauthStoreDir, type UpstreamAuthOptions } from './upstream.ts'
export { OAuthUpstreamConfigSchema, type OAuthUpstreamConfig } from './upstream-config.ts'
export { createOAuthProvider, type OAuthProvider, type OAuthProviderOptions } from './oauth-provider.ts'
export type { JwtBearerGrant } from './grants.ts'
export { createIdJagAssertion, staticAssertion, type AssertionSource, type AssertionTarget, type IdJagOptions } from './jwt-bearer.ts'
export {
  createLoopbackHandler,
  createRedirectFollowingHandler,
  type AuthorizationHandler,
  type AuthorizationSession,
  type LoopbackHandlerOptions,
} from './authorization-handler.ts'
export {
  createFileCredentialStore,
  createMemoryCredentialStore,
  credentialFilePath,
  type CredentialRecord,
  type CredentialStore,
  type IssuerState,
} from './credential-store.ts'
export type { PreRegisteredClient, RegisteredClient } from './client-registration.ts'
export type { StoredTokens } from './token-endpoint.ts'
export type { FetchLike } from './http.ts'
export { parseBearerChallenge, type BearerChallenge } from './www-authenticate.ts'
export {
  authorizationServerMetadataUrls,
  protectedResourceMetadataUrls,
  requireSecureEndpoints,
  resourceMatchesServer,
} from './discovery.ts'
export { validateAuthorizationResponse } from './authorization-code.ts'
