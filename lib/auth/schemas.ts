/**
 * valibot schemas of the OAuth documents mcpx reads: protected resource metadata (RFC 9728),
 * authorization server metadata (RFC 8414 / OpenID Connect Discovery), DCR responses (RFC 7591)
 * and token responses (OAuth 2.1 section 3.2.3). Loose objects: unknown members are kept, not refused.
 */
import * as v from 'valibot'

const Strings = v.array(v.string())

export const ProtectedResourceMetadataSchema = v.looseObject({
  resource: v.string(),
  authorization_servers: v.optional(Strings),
  scopes_supported: v.optional(Strings),
})
export type ProtectedResourceMetadata = v.InferOutput<typeof ProtectedResourceMetadataSchema>

export const AuthorizationServerMetadataSchema = v.looseObject({
  issuer: v.string(),
  authorization_endpoint: v.optional(v.string()),
  token_endpoint: v.optional(v.string()),
  registration_endpoint: v.optional(v.string()),
  scopes_supported: v.optional(Strings),
  grant_types_supported: v.optional(Strings),
  code_challenge_methods_supported: v.optional(Strings),
  token_endpoint_auth_methods_supported: v.optional(Strings),
  authorization_response_iss_parameter_supported: v.optional(v.boolean()),
  client_id_metadata_document_supported: v.optional(v.boolean()),
  dpop_signing_alg_values_supported: v.optional(Strings),
})
export type AuthorizationServerMetadata = v.InferOutput<typeof AuthorizationServerMetadataSchema>

export const ClientInformationSchema = v.looseObject({
  client_id: v.string(),
  client_secret: v.optional(v.string()),
  client_secret_expires_at: v.optional(v.number()),
  token_endpoint_auth_method: v.optional(v.string()),
  redirect_uris: v.optional(Strings),
})
export type ClientInformation = v.InferOutput<typeof ClientInformationSchema>

/** Some deployed ASes send `expires_in` as a numeric string; read it as the number it means. */
const Seconds = v.union([v.number(), v.pipe(v.string(), v.decimal(), v.transform(Number))])

export const TokenResponseSchema = v.looseObject({
  access_token: v.string(),
  token_type: v.string(),
  expires_in: v.optional(Seconds),
  refresh_token: v.optional(v.string()),
  scope: v.optional(v.string()),
})
export type TokenResponse = v.InferOutput<typeof TokenResponseSchema>

/** OAuth error response body (RFC 6749 section 5.2). */
export const OAuthErrorSchema = v.looseObject({
  error: v.string(),
  error_description: v.optional(v.string()),
})
