/**
 * `WWW-Authenticate: Bearer …` challenges of /mcp (RFC 6750 section 3, RFC 9728 section 5.1). 2026-07-28
 * basic/authorization/index.mdx: a 401 carries `resource_metadata` and SHOULD carry the needed
 * `scope`; a 403 for missing scopes carries `error="insufficient_scope"` with every needed scope.
 */
export type ChallengeError = 'invalid_token' | 'insufficient_scope' | 'invalid_request'

export interface ChallengeInput {
  readonly resourceMetadata: string
  readonly scopes: readonly string[]
  readonly error?: ChallengeError
  readonly description?: string
}

/** RFC 9110 section 5.6.4 quoted-string: backslash-escape `"` and `\`; drop what a header cannot hold. */
function quoted(value: string): string {
  return `"${value
    .replace(/[\r\n]+/g, ' ')
    .replace(/[^\x20-\x7e]/g, '?')
    .replace(/["\\]/g, '\\$&')}"`
}

export function bearerChallenge(input: ChallengeInput): string {
  const params: string[] = []
  if (input.error) params.push(`error=${quoted(input.error)}`)
  if (input.description) params.push(`error_description=${quoted(input.description)}`)
  if (input.scopes.length > 0) params.push(`scope=${quoted(input.scopes.join(' '))}`)
  params.push(`resource_metadata=${quoted(input.resourceMetadata)}`)
  return `Bearer ${params.join(', ')}`
}
