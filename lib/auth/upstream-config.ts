/**
 * The `oauth` block of a remote server's config entry, as its own module: the config schema
 * (lib/config/schema.ts) needs it on every load, and importing it from upstream.ts would load the
 * whole OAuth client (and jose) into every command that reads the config, `mcpx call` included.
 */
import * as v from 'valibot'

/** The `oauth` block of a remote server entry in the mcpx config (all optional). */
export const OAuthUpstreamConfigSchema = v.strictObject({
  /** Pre-registered client_id (skips CIMD and dynamic registration). */
  clientId: v.optional(v.pipe(v.string(), v.minLength(1))),
  clientSecret: v.optional(v.string()),
  /** Issuer the pre-registered client belongs to; a different AS is then refused. */
  issuer: v.optional(v.pipe(v.string(), v.url())),
  /** Extra scopes to request (space-separated). */
  scope: v.optional(v.string()),
  /** `client_credentials` for machine access; default is the user's authorization code login. */
  grant: v.optional(v.picklist(['authorization_code', 'client_credentials'])),
  /** PKCS#8 PEM key for private_key_jwt client authentication (use `${VAR}` interpolation). */
  privateKeyPem: v.optional(v.string()),
  signingAlgorithm: v.optional(v.string()),
  /** Client ID Metadata Document URL; default: settings.authClientMetadataUrl. */
  clientMetadataUrl: v.optional(v.pipe(v.string(), v.url())),
  /** Ask for offline_access (refresh tokens) when the AS offers it; default true. */
  offlineAccess: v.optional(v.boolean()),
})
export type OAuthUpstreamConfig = v.InferOutput<typeof OAuthUpstreamConfigSchema>
