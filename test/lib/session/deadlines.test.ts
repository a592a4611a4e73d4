/** lib/session/deadlines.ts through lib/server/http/body-read.ts: body reads bounded on one timer per handler, each from its own start. */
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { BodyRead } from '../../../lib/server/http/body-read.ts'
import { DeadlineQueue } from '../../../lib/session/index.ts'
import { REPO_ROOT } from '../../harness.ts'

const MS = 80

/** `read` bounded by `ms` on `deadlines` (or a timer of its own): what its wait settles with, the queue entry gone after. */
async function withinBodyTimeout(read: Promise<unknown>, ms: number, deadlines?: DeadlineQueue): Promise<unknown> {
  const bounded = new BodyRead(read as Promise<Uint8Array>, { maxFrameBytes: 1024, bodyTimeoutMs: ms, ...(deadlines && { deadlines }) })
  const outcome = await bounded.settled
  bounded.bytes(outcome)
  if (outcome instanceof Error) throw outcome
  return outcome
}

/** A read that settles when told to. */
function pendingRead(): { read: Promise<string>; finish(value: string): void } {
  let finish!: (value: string) => void
  const read = new Promise<string>((resolve) => (finish = resolve))
  return { read, finish }
}

describe('DeadlineQueue', () => {
  test('a read that finishes in time gets its value; one that does not gets timeout, after its own bound', async () => {
    const deadlines = new DeadlineQueue(MS)
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
    const deadlines = new DeadlineQueue(MS)
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
    const deadlines = new DeadlineQueue(MS)
    expect(await withinBodyTimeout(pendingRead().read, MS, deadlines)).toBe('timeout')
    const later = pendingRead()
    const laterResult = withinBodyTimeout(later.read, MS, deadlines)
    later.finish('later')
    expect(await laterResult).toBe('later')
    expect(await withinBodyTimeout(pendingRead().read, MS, deadlines)).toBe('timeout')
  })

  test('a rejected read is passed on', async () => {
    const deadlines = new DeadlineQueue(MS)
    await expect(withinBodyTimeout(Promise.reject(new Error('reset')), MS, deadlines)).rejects.toThrow('reset')
  })

  test('an entry added again is timed from then, as one entry', async () => {
    const deadlines = new DeadlineQueue(MS)
    const expired: number[] = []
    const entry = { due: 0, expire: () => void expired.push(performance.now()) }
    const started = performance.now()
    deadlines.add(entry)
    await Bun.sleep(MS / 2)
    deadlines.add(entry)
    expect(deadlines.size).toBe(1)
    await Bun.sleep(MS * 1.5)
    expect(expired).toHaveLength(1)
    expect(expired[0]! - started).toBeGreaterThanOrEqual(MS * 1.5 - 1)
  })

  test('a queue of another bound is refused', () => {
    expect(
      () => new BodyRead(Promise.resolve(new Uint8Array()), { maxFrameBytes: 1, bodyTimeoutMs: MS * 2, deadlines: new DeadlineQueue(MS) }),
    ).toThrow(RangeError)
  })
})

describe('DeadlineQueue keeps the process alive only while an entry waits', () => {
  const MODULE = join(REPO_ROOT, 'lib/session/deadlines.ts')
  const run = async (body: string) => {
    const started = performance.now()
    const child = Bun.spawn([process.execPath, '-e', `import { DeadlineQueue } from ${JSON.stringify(MODULE)}\n${body}`], {
      stdout: 'pipe',
      stderr: 'inherit',
    })
    const out = await new Response(child.stdout).text()
    await child.exited
    return { out: out.trim(), ms: performance.now() - started }
  }

  test('an entry that waits holds the process until it expires', async () => {
    const { out, ms } = await run(`new DeadlineQueue(400).add({ due: 0, expire: () => console.log('expired') })`)
    expect(out).toBe('expired')
    expect(ms).toBeGreaterThanOrEqual(400)
  })

  test('a deleted entry does not: the process ends before the bound', async () => {
    const { out, ms } = await run(
      `const q = new DeadlineQueue(5000); const e = { due: 0, expire: () => console.log('expired') }; q.add(e); q.delete(e); console.log('cancelled')`,
    )
    expect(out).toBe('cancelled')
    expect(ms).toBeLessThan(5000)
  })
})
