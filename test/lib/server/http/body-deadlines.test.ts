/** lib/server/http/timeouts.ts: body deadlines on one timer per handler (BodyDeadlines), each read bounded by its own start. */
import { describe, expect, test } from 'bun:test'
import { BodyDeadlines, withinBodyTimeout } from '../../../../lib/server/http/timeouts.ts'

const MS = 80

/** A read that settles when told to. */
function pendingRead(): { read: Promise<string>; finish(value: string): void } {
  let finish!: (value: string) => void
  const read = new Promise<string>((resolve) => (finish = resolve))
  return { read, finish }
}

describe('BodyDeadlines', () => {
  test('a read that finishes in time gets its value; one that does not gets timeout, after its own bound', async () => {
    const deadlines = new BodyDeadlines(MS)
    const quick = pendingRead()
    const slow = pendingRead()
    const started = performance.now()
    const quickResult = withinBodyTimeout(quick.read, MS, deadlines)
    const slowResult = withinBodyTimeout(slow.read, MS, deadlines)
    quick.finish('body')
    expect(await quickResult).toBe('body')
    expect(await slowResult).toBe('timeout')
    expect(performance.now() - started).toBeGreaterThanOrEqual(MS - 1)
  })

  test('a read begun later is timed from its own start, not from the first read', async () => {
    const deadlines = new BodyDeadlines(MS)
    const first = pendingRead()
    void withinBodyTimeout(first.read, MS, deadlines)
    await Bun.sleep(MS / 2)
    const second = pendingRead()
    const secondStarted = performance.now()
    const secondResult = withinBodyTimeout(second.read, MS, deadlines)
    first.finish('first')
    expect(await secondResult).toBe('timeout')
    expect(performance.now() - secondStarted).toBeGreaterThanOrEqual(MS - 1)
  })

  test('the queue keeps serving after it ran empty', async () => {
    const deadlines = new BodyDeadlines(MS)
    expect(await withinBodyTimeout(pendingRead().read, MS, deadlines)).toBe('timeout')
    const later = pendingRead()
    const laterResult = withinBodyTimeout(later.read, MS, deadlines)
    later.finish('later')
    expect(await laterResult).toBe('later')
    expect(await withinBodyTimeout(pendingRead().read, MS, deadlines)).toBe('timeout')
  })

  test('a rejected read is passed on', async () => {
    const deadlines = new BodyDeadlines(MS)
    await expect(withinBodyTimeout(Promise.reject(new Error('reset')), MS, deadlines)).rejects.toThrow('reset')
  })

  test('a queue of another bound is refused', () => {
    expect(() => withinBodyTimeout(Promise.resolve('x'), MS * 2, new BodyDeadlines(MS))).toThrow(RangeError)
  })
})
