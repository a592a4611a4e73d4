/**
 * DPoP (RFC 9449; an MCP auth extension): a per-provider ES256 key, proofs for the token
 * endpoint (RFC 9449 section 5) and for each resource request (section 7, with `ath`), and the server-supplied nonces
 * (RFC 9449 section 8 AS, section 9 resource server). The private key is kept as a JWK with the tokens it is bound to,
 * so a DPoP-bound token stored on disk stays usable by the next mcpx process.
 */
import { type JWK, SignJWT } from 'jose'
import { base64Url, randomToken } from './pkce.ts'

export const DPOP_ALG = 'ES256'
const KEY_PARAMS = { name: 'ECDSA', namedCurve: 'P-256' } as const

export interface DpopKey {
  privateKey: CryptoKey
  /** Public JWK (kty, crv, x, y) for the proof header. */
  publicJwk: JsonWebKey
  /** Private JWK, to persist with the tokens bound to this key. */
  privateJwk: JsonWebKey
}

export async function createDpopKey(): Promise<DpopKey> {
  const pair = (await crypto.subtle.generateKey(KEY_PARAMS, true, ['sign', 'verify'])) as CryptoKeyPair
  return fromPrivateJwk(await crypto.subtle.exportKey('jwk', pair.privateKey))
}

/** Re-import a stored key. */
export async function fromPrivateJwk(privateJwk: JsonWebKey): Promise<DpopKey> {
  const privateKey = await crypto.subtle.importKey('jwk', privateJwk, KEY_PARAMS, false, ['sign'])
  const { kty, crv, x, y } = privateJwk
  return { privateKey, publicJwk: { kty, crv, x, y }, privateJwk }
}

export interface ProofTarget {
  method: string
  url: string
  /** The access token the request carries (adds `ath`, RFC 9449 section 4.2). */
  accessToken?: string
  nonce?: string
}

/** A fresh proof JWT: new `jti` each time, `htu` without query or fragment (RFC 9449 section 4.2). */
export async function createDpopProof(key: DpopKey, target: ProofTarget): Promise<string> {
  const htu = new URL(target.url)
  htu.search = ''
  htu.hash = ''
  const claims: Record<string, unknown> = {
    jti: randomToken(16),
    htm: target.method.toUpperCase(),
    htu: htu.toString(),
    iat: Math.floor(Date.now() / 1000),
  }
  if (target.accessToken !== undefined) {
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(target.accessToken))
    claims.ath = base64Url(new Uint8Array(digest))
  }
  if (target.nonce !== undefined) claims.nonce = target.nonce
  return new SignJWT(claims).setProtectedHeader({ typ: 'dpop+jwt', alg: DPOP_ALG, jwk: key.publicJwk as JWK }).sign(key.privateKey)
}
