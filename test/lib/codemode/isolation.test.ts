/**
 * Code mode isolation (issue: eight spinning scripts made a trivial exec wait 8 s behind them in
 * one shared sandbox process): every running exec gets a process of its own, so a ready exec
 * completes while eight scripts spin out their CPU slices. Asserts the order of completion, not
 * durations: the trivial exec is answered before the first spinner is stopped.
 */
import { afterAll, expect, setDefaultTimeout, test } from 'bun:test'
import { type SandboxError, createSandboxPool } from '../../../lib/codemode/index.ts'
import { recordingBridge, sandboxSettings } from './helpers.ts'

setDefaultTimeout(60_000)

const SPINNERS = 8
// A long slice makes the margin wide on a loaded machine; the spinners are stopped by it.
const settings = sandboxSettings({ codemodeCpuSliceMs: 4_000, codemodeTimeoutMs: 10_000 })
const pool = createSandboxPool(settings)
afterAll(() => pool.close())

test(`a trivial exec completes while ${SPINNERS} scripts spin (each running exec has its own sandbox process)`, async () => {
  await pool.warm()
  const finished: string[] = []
  const spinners = Array.from({ length: SPINNERS }, (_, i) =>
    pool.exec('while (true) {}', recordingBridge()).then(
      () => finished.push(`spinner ${i} returned`),
      (error: unknown) => finished.push(`spinner ${i} ${(error as SandboxError).reason}`),
    ),
  )
  // Every spinner is on a process of its own before the trivial exec arrives.
  while (pool.stats().running < SPINNERS) await Bun.sleep(10)
  const trivial = await pool.exec('return 1 + 1', recordingBridge())
  finished.push('trivial')
  expect(trivial.value).toBe(2)
  await Promise.all(spinners)
  expect(finished[0]).toBe('trivial')
  // Stopped by the CPU slice, or (eight spinners sharing few cores) by the wall-clock deadline.
  expect(finished.slice(1).filter((line) => / (cpu|deadline)$/.test(line))).toHaveLength(SPINNERS)
  // The burst's extra processes are ended once it passed: the warm ones and one spare remain.
  expect(pool.stats().processes).toBeLessThanOrEqual(SPINNERS)
  expect((await pool.exec('return 3', recordingBridge())).value).toBe(3)
})

test('closeIfIdle ends the pool only when no exec holds or waits for a slot, decided at once', async () => {
  const idle = createSandboxPool(settings)
  await idle.warm()
  // The exec takes its slot synchronously, before its child is ready: the pool is not idle from then on.
  const running = idle.exec('return 5', recordingBridge())
  expect(idle.closeIfIdle()).toBeNull()
  expect((await running).value).toBe(5)
  const closing = idle.closeIfIdle()
  expect(closing).not.toBeNull()
  await closing
  expect(idle.stats().processes).toBe(0)
  await expect(idle.exec('return 1', recordingBridge())).rejects.toMatchObject({ reason: 'crash' })
})
