/**
 * The bearer token of the TCP listener: 32 random bytes, hex, in a 0600 file in the mcpx home.
 * Local clients read it automatically; a file others can read is replaced, never trusted.
 */
import { chmodSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'

const TOKEN_BYTES = 32
const OWNER_ONLY = 0o600

/** Read the token, creating (or replacing an exposed) one. */
export function ensureToken(path: string): string {
  const existing = readToken(path)
  if (existing !== null) return existing
  // Web Crypto, not node:crypto (whose load every CLI start-up would pay: this module is on the client's path).
  const token = Buffer.from(crypto.getRandomValues(new Uint8Array(TOKEN_BYTES))).toString('hex')
  const temp = `${path}.${process.pid}.tmp`
  writeFileSync(temp, `${token}\n`, { mode: OWNER_ONLY })
  chmodSync(temp, OWNER_ONLY)
  renameSync(temp, path)
  return token
}

/** The token, or null if absent, empty, or readable by group/others. */
export function readToken(path: string): string | null {
  try {
    if ((statSync(path).mode & 0o077) !== 0) return null
    const token = readFileSync(path, 'utf8').trim()
    return token === '' ? null : token
  } catch {
    return null
  }
}
