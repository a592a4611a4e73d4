/**
 * Soak: 20,000 sequential tools/call through the daemon (CI: a fifth) after a warm-up, the
 * daemon's memory sampled every 2,000 calls (CI: every 400). Each sample is taken after a full
 * garbage collection in the daemon (POST /v1/memory), so it measures what is still referenced —
 * a leak — rather than when the collector last ran: sampled without one, RSS swings by ±8 MB
 * between collections (measured: 77–93 MB and back to 82 MB over 40,000 calls with a flat heap).
 * The least-squares trend over the samples, as a share of their mean, must not rise by more than
 * 10 % across the run, for RSS and for the JS heap.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { type DaemonProcess, HttpHost, fixtureServer, relativeTrend, sized, startDaemon, textOf } from './support.ts'

setDefaultTimeout(900_000)

const CALLS = Number(process.env.MCPX_SOAK_CALLS ?? sized(20_000))
const SAMPLE_EVERY = sized(2_000)
/**
 * Calls before the first sample: the allocator and JIT settle over the first several thousand
 * calls (RSS about 70 → 78 MB by 10,000, then flat), which is not a trend.
 */
const WARMUP = sized(10_000)
const MAX_TREND = 0.1

let daemon: DaemonProcess
beforeAll(async () => {
  daemon = await startDaemon({ up: fixtureServer() })
})
afterAll(async () => {
  await daemon?.[Symbol.asyncDispose]()
})

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1)

test(`${CALLS} sequential calls: all answered, memory sampled every ${SAMPLE_EVERY} shows no upward trend beyond ${MAX_TREND * 100} %`, async () => {
  const host = new HttpHost(`${daemon.mcpUrl}?codemode=false`, daemon.token, 'legacy')
  await host.open()
  // Warm-up: the heap and JIT settle before the first sample.
  for (let i = 0; i < WARMUP; i++) await host.call(`warm-${i}`, 'up_echo', { text: 'warm' })
  const samples = [await daemon.memory()]
  let wrong = 0
  for (let i = 1; i <= CALLS; i++) {
    const answer = await host.call(i, 'up_echo', { text: `n${i}` })
    if (answer.messages[0]?.id !== i || textOf(answer.messages[0]) !== `n${i}`) wrong++
    if (i % SAMPLE_EVERY === 0) samples.push(await daemon.memory())
  }
  expect(wrong).toBe(0)
  const rss = samples.map((s) => s.rssBytes)
  const heap = samples.map((s) => s.heapBytes)
  const rssRise = relativeTrend(rss) * (rss.length - 1)
  const heapRise = relativeTrend(heap) * (heap.length - 1)
  console.error(`soak: RSS samples (MB) ${rss.map(mb).join(', ')}; trend across the run ${(rssRise * 100).toFixed(1)} %`)
  console.error(
    `soak: JS heap samples (MB) ${heap.map(mb).join(', ')}; live objects ${samples[0]!.objects} → ${samples.at(-1)!.objects}; trend across the run ${(heapRise * 100).toFixed(1)} %`,
  )
  expect(rssRise).toBeLessThanOrEqual(MAX_TREND)
  expect(heapRise).toBeLessThanOrEqual(MAX_TREND)
})
