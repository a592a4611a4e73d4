/** When an upstream is tried again: waits doubling per failure up to the cap, one pending restart, its moment shown. */
import { describe, expect, test } from 'bun:test'
import { UpstreamBackoff } from '../../../lib/gateway/upstream-backoff.ts'

const settings = { connectFailureHoldMs: 1_000, restartBackoffMs: 100, restartBackoffMaxMs: 500 }

describe('UpstreamBackoff', () => {
  test('the waits double per failure before the last, up to restartBackoffMaxMs; a failure holds calls off', () => {
    const backoff = new UpstreamBackoff(settings)
    expect(backoff.waitMs(100)).toBe(100)
    backoff.failed()
    expect(backoff.waitMs(100)).toBe(100)
    expect(backoff.holdUntil).toBeGreaterThan(Date.now())
    backoff.failed()
    expect(backoff.waitMs(100)).toBe(200)
    backoff.failed()
    backoff.failed()
    expect(backoff.waitMs(100)).toBe(500)
    backoff.reset()
    expect(backoff.waitMs(100)).toBe(100)
  })

  test('one pending restart at a time, whose moment is shown until it runs; cancel drops it', async () => {
    const backoff = new UpstreamBackoff({ ...settings, restartBackoffMs: 20 })
    let runs = 0
    backoff.restartLater(() => runs++)
    backoff.restartLater(() => runs++)
    expect(backoff.restartInMs).toBeGreaterThanOrEqual(0)
    expect(backoff.restartInMs).toBeLessThanOrEqual(20)
    await Bun.sleep(60)
    expect(runs).toBe(1)
    expect(backoff.restartInMs).toBeUndefined()
    backoff.restartLater(() => runs++)
    backoff.cancel()
    await Bun.sleep(60)
    expect(runs).toBe(1)
    expect(backoff.restartInMs).toBeUndefined()
  })
})
