/** PKCE (RFC 7636) with S256 only, and the random `state` value; Web Crypto, no dependencies. */

const VERIFIER_BYTES = 32 // 43 base64url characters, the RFC 7636 section 4.1 minimum length

export function base64Url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url')
}

export function randomToken(bytes = VERIFIER_BYTES): string {
  return base64Url(crypto.getRandomValues(new Uint8Array(bytes)))
}

export interface Pkce {
  verifier: string
  challenge: string
  method: 'S256'
}

/** A fresh verifier and its S256 challenge (RFC 7636 section 4.2). */
export async function createPkce(): Promise<Pkce> {
  const verifier = randomToken()
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))
  return { verifier, challenge: base64Url(new Uint8Array(digest)), method: 'S256' }
}
