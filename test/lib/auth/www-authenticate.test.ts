/** lib/auth/www-authenticate.ts: parsing Bearer and DPoP challenges. */
import { describe, expect, test } from 'bun:test'
import { parseBearerChallenge } from '../../../lib/auth/index.ts'

const challenge = (value: string) => parseBearerChallenge(new Response(null, { status: 401, headers: { 'www-authenticate': value } }))

describe('parseBearerChallenge', () => {
  test('reads resource_metadata, scope, error and error_description from a Bearer challenge', () => {
    expect(
      challenge(
        'Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", error_description="need \\"write\\""',
      ),
    ).toEqual({
      scheme: 'Bearer',
      error: 'insufficient_scope',
      scope: 'files:read files:write',
      resourceMetadata: 'https://mcp.example.com/.well-known/oauth-protected-resource',
      errorDescription: 'need "write"',
    })
  })

  test('finds the Bearer challenge among others and accepts unquoted values and any scheme case', () => {
    expect(challenge('Basic realm="x", bearer resource_metadata=https://a.example/prm, scope=mcp')).toEqual({
      scheme: 'Bearer',
      resourceMetadata: 'https://a.example/prm',
      scope: 'mcp',
    })
  })

  test('no header or no Bearer challenge gives an empty challenge', () => {
    expect(parseBearerChallenge(new Response(null, { status: 401 }))).toEqual({})
    expect(challenge('Basic realm="x"')).toEqual({})
  })

  test('a DPoP-only challenge is read too (RFC 9449 §7.1), with the DPoP-Nonce header; Bearer wins when both are offered', () => {
    const response = new Response(null, {
      status: 401,
      headers: { 'www-authenticate': 'DPoP error="use_dpop_nonce", resource_metadata="https://a.example/prm"', 'dpop-nonce': 'n-1' },
    })
    expect(parseBearerChallenge(response)).toEqual({
      scheme: 'DPoP',
      error: 'use_dpop_nonce',
      resourceMetadata: 'https://a.example/prm',
      dpopNonce: 'n-1',
    })
    expect(challenge('DPoP algs="ES256", Bearer scope="a"')).toEqual({ scheme: 'Bearer', scope: 'a' })
  })
})
