/**
 * Soak: 20,000 sequential tools/call through the daemon (CI: a fifth) after a warm-up, the
 * daemon's RSS sampled every 2,000 calls (CI: every 400). The least-squares trend over the samples, as a share of their
 * mean, must not rise by more than 10 % across the run: memory stays flat under steady use.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { type DaemonProcess, HttpHost, fixtureServer, relativeTrend, sized, startDaemon, textOf } from './support.ts'

setDefaultTimeout(900_000)

const CALLS = Number(process.env.MCPX_SOAK_CALLS ?? sized(20_000))
const SAMPLE_EVERY = sized(2_000)
/**
 * Calls before the first sample: Bun's heap grows to a plateau over the first several thousand
 * calls (measured: about 70 → 85 MB by 10,000, then flat over 50,000), which is not a trend.
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

test(`${CALLS} sequential calls: all answered, RSS sampled every ${SAMPLE_EVERY} shows no upward trend beyond ${MAX_TREND * 100} %`, async () => {
  const host = new HttpHost(`${daemon.mcpUrl}?codemode=false`, daemon.token, 'legacy')
  await host.open()
  // Warm-up: the heap and JIT settle before the first sample.
  for (let i = 0; i < WARMUP; i++) await host.call(`warm-${i}`, 'up_echo', { text: 'warm' })
  const samples = [daemon.rssBytes()]
  let wrong = 0
  for (let i = 1; i <= CALLS; i++) {
    const answer = await host.call(i, 'up_echo', { text: `n${i}` })
    if (answer.messages[0]?.id !== i || textOf(answer.messages[0]) !== `n${i}`) wrong++
    if (i % SAMPLE_EVERY === 0) samples.push(daemon.rssBytes())
  }
  expect(wrong).toBe(0)
  const rise = relativeTrend(samples) * (samples.length - 1)
  console.error(`soak: RSS samples (MB) ${samples.map((b) => (b / 2 ** 20).toFixed(1)).join(', ')}; trend across the run ${(rise * 100).toFixed(1)} %`)
  expect(rise).toBeLessThanOrEqual(MAX_TREND)
})
