/**
 * lib/server/session-id.ts and the adoption path of http/sessions.ts: a sealed legacy session id
 * holds what the session negotiated, opens on any replica sharing the key ring and nowhere else,
 * and an id a store ended is never taken back (404 stays 404).
 */
import { describe, expect, test } from 'bun:test'
import { SessionStore } from '../../../lib/server/http/sessions.ts'
import { openSession, randomKeyRing, sealedSessionIds, sessionOwner } from '../../../lib/server/index.ts'

describe('sealed session ids', () => {
  const ring = randomKeyRing()
  const seed = {
    revision: '2025-06-18' as const,
    clientCapabilities: { roots: { listChanged: true } },
    clientInfo: { name: 'host', version: '1.2.3' },
    principal: 'alice',
  }

  test('an id carries owner, time, revision, capabilities, info and principal; it is a valid session id', () => {
    const id = sealedSessionIds(ring, 'replica-2', () => 42)(seed)
    // 2025-11-25 basic/transports.mdx: visible ASCII only; longer than a random id (it carries the seed).
    expect(id).toMatch(/^[\x21-\x7e]+$/)
    expect(openSession(ring, id)).toEqual({ owner: 'replica-2', mintedMs: 42, ...seed })
    expect(sessionOwner(ring, id)).toBe('replica-2')
  })

  test('another ring, an altered id or a random one open to nothing', () => {
    const id = sealedSessionIds(ring, 'replica-1')(seed)
    expect(openSession(randomKeyRing(), id)).toBeUndefined()
    const last = id.at(-2) === 'A' ? 'B' : 'A'
    expect(openSession(ring, `${id.slice(0, -2)}${last}${id.at(-1)}`)).toBeUndefined()
    expect(openSession(ring, 'not-a-sealed-id')).toBeUndefined()
  })

  test('two ids of the same seed differ (a fresh nonce and IV each)', () => {
    const mint = sealedSessionIds(ring, 'replica-1')
    expect(mint(seed)).not.toBe(mint(seed))
  })
})

describe('SessionStore.adopt', () => {
  test('an adopted id is served; an id the store ended (deleted, idle, evicted) is refused for good', () => {
    let now = 0
    const store = new SessionStore<number>({ sessionIdleMs: 100, maxSessions: 2, now: () => now })
    expect(store.adopt('a', 1)).toBe(true)
    expect(store.get('a')).toBe(1)
    expect(store.adopt('a', 2)).toBe(false)
    store.delete('a')
    expect(store.ended('a')).toBe(true)
    expect(store.adopt('a', 3)).toBe(false)
    store.adopt('b', 1)
    now = 200
    expect(store.get('b')).toBeUndefined()
    expect(store.adopt('b', 1)).toBe(false)
    store.adopt('c', 1)
    store.adopt('d', 1)
    store.adopt('e', 1)
    expect(store.ended('c')).toBe(true)
    expect(store.adopt('c', 1)).toBe(false)
    store.close()
    // Closing is not ending: a daemon that stops leaves its sessions to the other replicas.
    expect(store.ended('d')).toBe(false)
  })
})
