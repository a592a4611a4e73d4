/** lib/auth/authorization-code.ts: authorization responses checked against state and issuer (RFC 9207). */
import { describe, expect, test } from 'bun:test'
import { validateAuthorizationResponse } from '../../../lib/auth/index.ts'
import { McpxError } from '../../../lib/errors/index.ts'

const ISSUER = 'https://auth.example.com'
const check = (query: Record<string, string>, issSupported?: boolean) =>
  validateAuthorizationResponse(new URLSearchParams(query), {
    expectedIssuer: ISSUER,
    state: 's1',
    metadata: { issuer: ISSUER, ...(issSupported === undefined ? {} : { authorization_response_iss_parameter_supported: issSupported }) },
  })

describe('authorization response validation (RFC 9207 table, 2026-07-28 authorization/index.mdx)', () => {
  test('advertised + present and equal → the code', () => {
    expect(check({ code: 'c', state: 's1', iss: ISSUER }, true)).toBe('c')
  })
  test('advertised + absent → refused', () => {
    expect(() => check({ code: 'c', state: 's1' }, true)).toThrow(/lacks the iss parameter/)
  })
  test('not advertised + present and different → refused; equal → accepted', () => {
    expect(() => check({ code: 'c', state: 's1', iss: 'https://evil.example' })).toThrow(/came from issuer https:\/\/evil.example/)
    expect(check({ code: 'c', state: 's1', iss: ISSUER }, false)).toBe('c')
  })
  test('not advertised + absent → proceed', () => {
    expect(check({ code: 'c', state: 's1' })).toBe('c')
  })
  test('plain string comparison: a trailing slash or case change is a mismatch', () => {
    expect(() => check({ code: 'c', state: 's1', iss: `${ISSUER}/` }, true)).toThrow(McpxError)
    expect(() => check({ code: 'c', state: 's1', iss: 'https://AUTH.example.com' }, true)).toThrow(McpxError)
  })
  test('a mismatched iss wins over an error, whose text is not shown', () => {
    let caught: unknown
    try {
      check({ error: 'access_denied', error_description: 'SECRET-TEXT', state: 's1', iss: 'https://evil.example' })
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(McpxError)
    expect((caught as McpxError).message).not.toContain('SECRET-TEXT')
    expect((caught as McpxError).message).not.toContain('access_denied')
  })
  test('state mismatch → refused; an error response → AUTH with the OAuth code', () => {
    expect(() => check({ code: 'c', state: 'other' })).toThrow(/state does not match/)
    let caught: McpxError | undefined
    try {
      check({ error: 'access_denied', state: 's1', iss: ISSUER })
    } catch (error) {
      caught = error as McpxError
    }
    expect(caught?.code).toBe('AUTH')
    expect(caught?.data).toEqual({ oauthError: 'access_denied' })
  })
})
