/** lib/gateway/settle.ts: `done` once before the caller sees the outcome; `failure` maps the error it sees. */
import { describe, expect, test } from 'bun:test'
import { settle } from '../../../lib/gateway/settle.ts'

describe('settle', () => {
  test('a value: done ran once, before the caller resumed', async () => {
    const events: string[] = []
    const value = await settle(
      async () => 'ok',
      () => events.push('done'),
    )
    events.push(`got ${value}`)
    expect(events).toEqual(['done', 'got ok'])
  })

  test('a rejection and a synchronous throw: done once each, the error as given or as failure maps it', async () => {
    let done = 0
    const boom = new Error('boom')
    await expect(
      settle(
        () => Promise.reject(boom),
        () => done++,
      ),
    ).rejects.toBe(boom)
    await expect(
      settle(
        () => {
          throw boom
        },
        () => done++,
      ),
    ).rejects.toBe(boom)
    const mapped = (error: unknown) => new Error(`mapped ${(error as Error).message}`)
    await expect(
      settle(
        () => Promise.reject(boom),
        () => done++,
        mapped,
      ),
    ).rejects.toThrow('mapped boom')
    await expect(
      settle(
        () => {
          throw boom
        },
        () => done++,
        mapped,
      ),
    ).rejects.toThrow('mapped boom')
    expect(done).toBe(4)
  })
})
