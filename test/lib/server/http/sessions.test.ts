/** lib/server/http/sessions.ts: legacy session ids, lookup and expiry. */
import { describe, expect, test } from 'bun:test'
import { SessionStore, isValidSessionId, newSessionId, type SessionEndReason } from '../../../../lib/server/http/sessions.ts'

function clock(start = 1_000) {
  const state = { now: start }
  return { now: () => state.now, advance: (ms: number) => void (state.now += ms) }
}

describe('SessionStore', () => {
  test('ids are visible ASCII 0x21-0x7E, random and unique', () => {
    const ids = new Set(Array.from({ length: 200 }, () => newSessionId()))
    expect(ids.size).toBe(200)
    for (const id of ids) {
      expect(isValidSessionId(id)).toBe(true)
      expect(id.length).toBeGreaterThanOrEqual(32)
    }
    expect(isValidSessionId('has space')).toBe(false)
    expect(isValidSessionId('é')).toBe(false)
    expect(isValidSessionId('')).toBe(false)
  })

  test('create, get, delete → unknown afterwards (404 for the caller), onEnd once', () => {
    const ended: [string, SessionEndReason][] = []
    const store = new SessionStore<{ revision: string }>({
      sessionIdleMs: 60_000,
      maxSessions: 10,
      onEnd: (id, _p, reason) => ended.push([id, reason]),
    })
    const id = store.create({ revision: '2025-11-25' })
    expect(store.get(id)).toEqual({ revision: '2025-11-25' })
    expect(store.delete(id)).toBe(true)
    expect(store.get(id)).toBeUndefined()
    expect(store.delete(id)).toBe(false)
    expect(ended).toEqual([[id, 'deleted']])
    store.close()
  })

  test('idle expiry: unused past sessionIdleMs → gone; use keeps it alive', () => {
    const time = clock()
    const ended: SessionEndReason[] = []
    const store = new SessionStore<number>({ sessionIdleMs: 100, maxSessions: 10, now: time.now, onEnd: (_i, _p, r) => ended.push(r) })
    const a = store.create(1)
    const b = store.create(2)
    time.advance(60)
    expect(store.get(a)).toBe(1) // touch a
    time.advance(60)
    expect(store.get(b)).toBeUndefined()
    expect(store.get(a)).toBe(1)
    time.advance(100)
    expect(store.has(a)).toBe(false)
    expect(ended).toEqual(['idle', 'idle'])
    store.close()
  })

  test('peek does not refresh the idle clock', () => {
    const time = clock()
    const store = new SessionStore<number>({ sessionIdleMs: 100, maxSessions: 10, now: time.now })
    const a = store.create(1)
    time.advance(60)
    expect(store.peek(a)).toBe(1)
    time.advance(60)
    expect(store.peek(a)).toBeUndefined()
    store.close()
  })

  test('cap: the least recently used session is evicted', () => {
    const time = clock()
    const evicted: number[] = []
    const store = new SessionStore<number>({
      sessionIdleMs: 0,
      maxSessions: 2,
      now: time.now,
      onEnd: (_i, p, r) => r === 'evicted' && evicted.push(p),
    })
    const a = store.create(1)
    const b = store.create(2)
    store.get(a) // b is now least recently used
    const c = store.create(3)
    expect(evicted).toEqual([2])
    expect(store.has(b)).toBe(false)
    expect(store.ids().sort()).toEqual([a, c].sort())
    store.close()
  })

  test('the expiry timer reaps sessions nobody asks about again', async () => {
    const reaped = Promise.withResolvers<[string, SessionEndReason]>()
    const store = new SessionStore<number>({ sessionIdleMs: 5, maxSessions: 10, onEnd: (id, _p, reason) => reaped.resolve([id, reason]) })
    const id = store.create(1)
    expect(await reaped.promise).toEqual([id, 'idle'])
    expect(store.size).toBe(0)
    store.close()
  })

  test('close() ends every session and refuses new ones', () => {
    const reasons: SessionEndReason[] = []
    const store = new SessionStore<number>({ sessionIdleMs: 60_000, maxSessions: 10, onEnd: (_i, _p, r) => reasons.push(r) })
    store.create(1)
    store.create(2)
    store.close()
    expect(reasons).toEqual(['closed', 'closed'])
    expect(store.size).toBe(0)
    expect(() => store.create(3)).toThrow()
  })
})
