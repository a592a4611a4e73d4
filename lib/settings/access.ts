/** Tunables of /mcp as an OAuth 2.1 resource server, its per-principal policy and its audit log (lib/access). */
import { defineSettings } from './define.ts'

export const ACCESS_SETTINGS = defineSettings({
  mcpAuthIssuer: {
    default: '',
    env: 'MCPX_MCP_AUTH_ISSUER',
    doc: 'Issuer URL of the authorization server whose access tokens /mcp accepts (empty = no OAuth on /mcp)',
  },
  mcpAuthResource: {
    default: '',
    env: 'MCPX_MCP_AUTH_RESOURCE',
    doc: "Canonical URL of /mcp as hosts reach it: the RFC 8707 audience tokens must carry (empty = the TCP listener's own /mcp URL)",
  },
  mcpAuthScopes: {
    default: '',
    env: 'MCPX_MCP_AUTH_SCOPES',
    doc: 'Scopes every /mcp token must hold (space- or comma-separated; advertised in the metadata and in 401/403 challenges)',
  },
  mcpAuthIntrospectionUrl: {
    default: '',
    env: 'MCPX_MCP_AUTH_INTROSPECTION_URL',
    doc: 'RFC 7662 introspection endpoint for opaque (non-JWT) access tokens (empty = JWTs only)',
  },
  mcpAuthIntrospectionClientId: {
    default: '',
    env: 'MCPX_MCP_AUTH_INTROSPECTION_CLIENT_ID',
    doc: 'client_id mcpx authenticates with at the introspection endpoint',
  },
  mcpAuthIntrospectionSecretFile: {
    default: '',
    env: 'MCPX_MCP_AUTH_INTROSPECTION_SECRET_FILE',
    doc: 'File holding the client secret for the introspection endpoint (kept out of the config)',
  },
  mcpAuthGroupsClaim: {
    default: 'groups',
    env: 'MCPX_MCP_AUTH_GROUPS_CLAIM',
    doc: "Token claim holding the caller's groups, matched by `access` rules",
  },
  mcpAuthClockToleranceMs: {
    default: 5_000,
    env: 'MCPX_MCP_AUTH_CLOCK_TOLERANCE_MS',
    doc: "Clock skew allowed when checking a token's exp and nbf",
  },
  mcpAuthJwksCacheMs: {
    default: 10 * 60_000,
    env: 'MCPX_MCP_AUTH_JWKS_CACHE_MS',
    doc: "How long the authorization server's JWKS is trusted before it is fetched again",
  },
  mcpAuthJwksCooldownMs: {
    default: 30_000,
    env: 'MCPX_MCP_AUTH_JWKS_COOLDOWN_MS',
    doc: 'Least time between JWKS fetches caused by an unknown key id (key rotation)',
  },
  mcpAuthMetadataRetryMs: {
    default: 10_000,
    env: 'MCPX_MCP_AUTH_METADATA_RETRY_MS',
    doc: "After the authorization server's metadata could not be read, wait this long before trying again",
  },
  mcpPrincipalSurfaces: {
    default: 256,
    env: 'MCPX_MCP_PRINCIPAL_SURFACES',
    doc: 'OAuth principals whose /mcp surface (filtered lists, sessions) is kept; beyond it the least recently created closes',
  },
  auditLog: {
    default: '',
    env: 'MCPX_AUDIT_LOG',
    doc: 'Audit log file, one JSON line per upstream call (empty = logs/audit.jsonl in the mcpx home when OAuth is on /mcp, else none)',
  },
  auditArguments: { default: false, env: 'MCPX_AUDIT_ARGUMENTS', doc: "Also write each call's arguments to the audit log" },
})
