/**
 * Random bytes for the server's ids and seals (session ids, their nonces, SSE stream ids, seal
 * IVs), from Web Crypto: node:crypto is loaded only by the first seal or open (seal.ts), and Bun
 * builds a module's whole binding when it is imported (README "Start-up and memory").
 */

export function randomBytes(count: number): Buffer {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(count)))
}

/** `count` random bytes as base64url: visible ASCII with no `.`, so never a separator in a sealed token or an event id. */
export function randomToken(count: number): string {
  return randomBytes(count).toString('base64url')
}
