/** Sealed tokens under a key ring (lib/server/seal.ts): rotation, tampering, purpose binding, key files. */
import { describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { keyRing, loadKeyRing, open, seal } from '../../../lib/server/seal.ts'
import { createRequestStateCodec } from '../../../lib/server/request-state.ts'
import { tempDir } from '../../harness.ts'

const [k1, k2, k3] = [randomBytes(32), randomBytes(32), randomBytes(32)]

describe('seal / open', () => {
  test('rotation: the new key seals, the old key still opens, a dropped key does not', () => {
    const before = keyRing([k1])
    const rotated = keyRing([k2, k1])
    const after = keyRing([k2])
    const old = seal(before, 'state sealed before rotation', 'p')
    expect(open(rotated, old, 'p')).toBe('state sealed before rotation')
    const fresh = seal(rotated, 'new', 'p')
    expect(fresh.split('.')[0]).toBe(after.current.id)
    expect(open(after, fresh, 'p')).toBe('new')
    expect(open(after, old, 'p')).toBeUndefined()
  })

  test('any edited character, another purpose or a foreign ring is refused; the plaintext is not readable', () => {
    const ring = keyRing([k1])
    const token = seal(ring, 'secret answers', 'p')
    expect(token).not.toContain(Buffer.from('secret answers').toString('base64url'))
    for (let i = 0; i < token.length; i++) {
      if (token[i] === '.') continue
      const edited = `${token.slice(0, i)}${token[i] === 'A' ? 'B' : 'A'}${token.slice(i + 1)}`
      expect(open(ring, edited, 'p')).toBeUndefined()
    }
    expect(open(ring, token, 'other purpose')).toBeUndefined()
    expect(open(keyRing([k3]), token, 'p')).toBeUndefined()
  })

  test("two replicas with the same key file open each other's requestState", () => {
    using dir = tempDir('mcpx-seal')
    const file = join(dir.path, 'keys')
    writeFileSync(file, `# current first\n${k2.toString('hex')}\n${k1.toString('base64')}\n`)
    const a = createRequestStateCodec(60_000, loadKeyRing(file))
    const b = createRequestStateCodec(60_000, loadKeyRing(file))
    const params = { name: 'tool', arguments: { x: 1 } }
    const token = a.seal('tools/call', params, { answers: { q: { action: 'accept' } }, asked: ['q'] }, 'alice')
    expect(b.open('tools/call', params, token, 'alice')).toEqual({ answers: { q: { action: 'accept' } }, asked: ['q'], state: undefined })
    expect(() => b.open('tools/call', params, token, 'bob')).toThrow('Invalid requestState: bound to a different caller')
    expect(() => b.open('tools/call', { ...params, arguments: { x: 2 } }, token, 'alice')).toThrow(
      'Invalid requestState: bound to a different request',
    )
  })

  test('requestStateSingleUse: a token opens once (the same token again is refused), a fresh one of the same request opens', () => {
    let now = 1_000
    const codec = createRequestStateCodec(60_000, undefined, () => now, '', true)
    const params = { name: 'tool', arguments: {} }
    const token = codec.seal('tools/call', params, { answers: {}, asked: ['q'] })
    expect(codec.open('tools/call', params, token).asked).toEqual(['q'])
    expect(() => codec.open('tools/call', params, token)).toThrow('Invalid requestState: already used')
    expect(codec.open('tools/call', params, codec.seal('tools/call', params, { answers: {}, asked: ['q'] })).asked).toEqual(['q'])
    // Without the setting a retry may be sent again (the default: MRTR retries are idempotent unless a server says otherwise).
    const lenient = createRequestStateCodec(60_000, undefined, () => now)
    const again = lenient.seal('tools/call', params, { answers: {}, asked: [] })
    lenient.open('tools/call', params, again)
    expect(lenient.open('tools/call', params, again).asked).toEqual([])
    now += 60_001
    expect(() => codec.open('tools/call', params, token)).toThrow('Invalid requestState: expired')
  })

  test('a bad key file is a CONFIG error naming the line', () => {
    using dir = tempDir('mcpx-seal')
    const file = join(dir.path, 'keys')
    writeFileSync(file, `${k1.toString('hex')}\nshort\n`)
    expect(() => loadKeyRing(file)).toThrow('key 2 is not 32 bytes')
    expect(() => loadKeyRing(join(dir.path, 'missing'))).toThrow('cannot be read')
  })
})
