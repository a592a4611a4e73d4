/**
 * Sealed tokens: AES-256-GCM (authenticated encryption) under a key ring, so replicas sharing the
 * ring open each other's tokens. The first key of the ring seals; every key opens (rotation: add
 * the new key first, keep the old ones until their tokens expired, then drop them). A token is
 * `<key id>.<iv>.<ciphertext>.<tag>` in base64url; the key id is a digest, never the key.
 * 2026-07-28 basic/patterns/mrtr.mdx: requestState is attacker-controlled and must be
 * integrity-protected; SEP-2322 lets any instance continue a round when the state travels sealed.
 */
import { readFileSync } from 'node:fs'
import { McpxError } from '../errors/index.ts'
import { keyRings } from './caches.ts'
import { randomBytes } from './random.ts'

const KEY_BYTES = 32
/** NIST SP 800-38D section 8.2: a 96-bit random IV per message. */
const IV_BYTES = 12
const TAG_BYTES = 16
const KEY_ID_CHARS = 8

export interface SealKey {
  readonly id: string
  readonly key: Buffer
}

export interface KeyRing {
  /** Seals new tokens. */
  readonly current: SealKey
  /** Every key that opens: the current one and those retired but not yet dropped. */
  readonly keys: ReadonlyMap<string, SealKey>
}

function sealKey(key: Buffer): SealKey {
  return { id: new Bun.CryptoHasher('sha256').update(key).digest('base64url').slice(0, KEY_ID_CHARS), key }
}

export function keyRing(keys: readonly Buffer[]): KeyRing {
  if (keys.length === 0) throw new McpxError('CONFIG', 'a key ring needs at least one key')
  const sealed = keys.map(sealKey)
  return { current: sealed[0]!, keys: new Map(sealed.map((k) => [k.id, k])) }
}

/** One random key: tokens open only in this process (the single-daemon default). */
export function randomKeyRing(): KeyRing {
  return keyRing([randomBytes(KEY_BYTES)])
}

/**
 * A key file: one key per line, 64 hex digits or base64 of 32 bytes; `#` comments and blank lines
 * ignored; the first key seals. Generate one with `openssl rand -hex 32`.
 */
export function loadKeyRing(path: string): KeyRing {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new McpxError('CONFIG', `seal key file ${path} cannot be read: ${(error as Error).message}`, { setting: 'sealKeyFile' })
  }
  const keys = text
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter(Boolean)
    .map((line, index) => {
      const key = /^[0-9a-f]{64}$/i.test(line) ? Buffer.from(line, 'hex') : Buffer.from(line, 'base64')
      if (key.length !== KEY_BYTES)
        throw new McpxError('CONFIG', `seal key file ${path}: key ${index + 1} is not 32 bytes (64 hex digits or base64)`, {
          setting: 'sealKeyFile',
        })
      return key
    })
  if (keys.length === 0) throw new McpxError('CONFIG', `seal key file ${path} holds no key`, { setting: 'sealKeyFile' })
  return keyRing(keys)
}

/**
 * node:crypto for AES-GCM, loaded on first use: Bun builds the module when it is imported (about 1 MB of
 * a process's RSS, README "Start-up and memory"), and a daemon with one replica may never seal anything.
 */
function nodeCrypto(): typeof import('node:crypto') {
  return require('node:crypto') as typeof import('node:crypto')
}

/** `aad` binds the token to its purpose (a requestState never opens as a session id). */
export function seal(ring: KeyRing, plaintext: string, aad: string): string {
  const iv = randomBytes(IV_BYTES)
  const cipher = nodeCrypto().createCipheriv('aes-256-gcm', ring.current.key, iv)
  cipher.setAAD(Buffer.from(aad))
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return `${ring.current.id}.${iv.toString('base64url')}.${body.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}`
}

/** The plaintext, or undefined when the token is malformed, from an unknown key or altered. */
export function open(ring: KeyRing, token: string, aad: string): string | undefined {
  const parts = token.split('.')
  if (parts.length !== 4) return undefined
  const key = ring.keys.get(parts[0]!)
  if (!key) return undefined
  const [iv, body, tag] = [canonical(parts[1]!), canonical(parts[2]!), canonical(parts[3]!)]
  if (!iv || !body || !tag || iv.length !== IV_BYTES || tag.length !== TAG_BYTES) return undefined
  try {
    const decipher = nodeCrypto().createDecipheriv('aes-256-gcm', key.key, iv)
    decipher.setAAD(Buffer.from(aad))
    decipher.setAuthTag(tag)
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8')
  } catch {
    return undefined
  }
}

/** Decoded bytes, only when `text` is their one base64url spelling (so no edited character slips through as padding bits). */
function canonical(text: string): Buffer | undefined {
  const bytes = Buffer.from(text, 'base64url')
  return bytes.toString('base64url') === text ? bytes : undefined
}

/** The ring a setting names, read once per process per path ('' = a random per-process key). */
export function keyRingFor(path: string): KeyRing {
  let ring = keyRings.get(path)
  if (!ring) keyRings.set(path, (ring = path === '' ? randomKeyRing() : loadKeyRing(path)))
  return ring
}
