/** Tunables of OAuth 2.1 for HTTP upstreams (lib/auth). */
import { defineSettings } from './define.ts'

export const AUTH_SETTINGS = defineSettings({
  authRequestTimeoutMs: {
    default: 30_000,
    env: 'MCPX_AUTH_REQUEST_TIMEOUT_MS',
    doc: 'Deadline for one OAuth metadata, registration or token request',
  },
  authLoginTimeoutMs: {
    default: 5 * 60_000,
    env: 'MCPX_AUTH_LOGIN_TIMEOUT_MS',
    doc: 'How long an interactive login waits for the browser redirect',
  },
  authRefreshSkewMs: { default: 60_000, env: 'MCPX_AUTH_REFRESH_SKEW_MS', doc: 'Refresh an access token this long before it expires' },
  authMaxRetries: {
    default: 3,
    env: 'MCPX_AUTH_MAX_RETRIES',
    doc: 'Most consecutive re-authorizations (401, 403 insufficient_scope) before an upstream request fails',
  },
  authCallbackPort: {
    default: 0,
    env: 'MCPX_AUTH_CALLBACK_PORT',
    doc: 'Loopback port for the OAuth redirect of an interactive login (0 = any free port)',
  },
  authClientMetadataUrl: {
    default: '',
    env: 'MCPX_AUTH_CLIENT_METADATA_URL',
    doc: 'HTTPS URL of an mcpx Client ID Metadata Document, used as client_id where the AS supports it',
  },
})
