/**
 * Framing fuzz: hostile frames (hostile-frames.ts) over `mcpx serve` (stdio) and over the daemon's
 * /mcp (HTTP, with header abuse too), a valid call after every few of them. Every valid call is
 * answered once, correctly, with its own id; nothing crashes (same daemon pid, the serve process
 * alive); the daemon's memory comes back to its start (after a warm-up round) within ±20 %.
 * FUZZ_SKIP=kind,kind leaves frame kinds out (to tell which kind breaks a run).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { type DaemonProcess, HttpHost, ServeHost, fixtureServer, sized, startDaemon, textOf } from './support.ts'
import { hostileFrame, random } from './hostile-frames.ts'

setDefaultTimeout(900_000)

const FRAMES = sized(10_000)
const VALID_EVERY = 10
const MAX_FRAME_BYTES = 64 * 1024
const MEMORY_TOLERANCE = 0.2
/** Frames sent before the memory baseline is taken. */
const WARMUP_FRAMES = Math.round(FRAMES / 4)

let daemon: DaemonProcess
beforeAll(async () => {
  daemon = await startDaemon({ up: fixtureServer() }, { MCPX_MAX_FRAME_BYTES: String(MAX_FRAME_BYTES), MCPX_TIMEOUT_MS: '60000' })
})
afterAll(async () => {
  await daemon?.[Symbol.asyncDispose]()
})

/**
 * Daemon RSS once it has settled (sampled until two readings agree within 2 %), each reading after a
 * full collection in the daemon (POST /v1/memory, as the soak samples): read without one, RSS moves
 * with where the collector is in its cycle (and the daemon's own idle collection, daemonIdleGcMs),
 * not with what the daemon still holds.
 */
async function settledRss(): Promise<number> {
  let last = (await daemon.memory()).rssBytes
  for (let i = 0; i < 20; i++) {
    await Bun.sleep(250)
    const now = (await daemon.memory()).rssBytes
    if (Math.abs(now - last) / last < 0.02) return now
    last = now
  }
  return last
}

describe('framing fuzz', () => {
  test(`${FRAMES} hostile frames over mcpx serve, a valid call after every ${VALID_EVERY}: all valid calls answered with their id, no crash, memory back ±20 %`, async () => {
    await using host = new ServeHost(daemon)
    await host.initialize()
    const next = random(20261201)
    const valid: Promise<void>[] = []
    const problems: string[] = []
    const kinds = new Map<string, number>()
    const round = async (prefix: string, frames: number) => {
      for (let i = 0; i < frames; i++) {
        const frame = hostileFrame(next, MAX_FRAME_BYTES)
        kinds.set(frame.kind, (kinds.get(frame.kind) ?? 0) + 1)
        host.write(frame.bytes)
        host.write('\n')
        if (i % VALID_EVERY === VALID_EVERY - 1) {
          const id = `${prefix}-${i}`
          valid.push(
            host.call(id, 'up_echo', { text: `payload ${id}` }).then((answer) => {
              if (answer?.id !== id || textOf(answer) !== `payload ${id}`) problems.push(`${id}: ${JSON.stringify(answer).slice(0, 200)}`)
            }),
          )
          // Let the pipe drain now and then, as a host waiting on its calls does.
          if (valid.length % 20 === 0) await Promise.all(valid.slice(-20))
        }
      }
      await Promise.all(valid)
    }
    // Memory is compared from after a warm-up round (the daemon's heap and JIT settle first).
    await round('warm', WARMUP_FRAMES)
    const before = await settledRss()
    valid.length = 0
    await round('valid', FRAMES)
    expect(problems).toEqual([])
    expect(valid.length).toBe(Math.floor(FRAMES / VALID_EVERY))
    for (let i = 0; i < FRAMES; i += VALID_EVERY)
      if (i + VALID_EVERY - 1 < FRAMES) expect(host.answersFor(`valid-${i + VALID_EVERY - 1}`)).toHaveLength(1)
    expect(host.proc.exitCode).toBeNull()
    expect((await daemon.health())?.pid).toBe(daemon.pid)
    const after = await settledRss()
    expect(Math.abs(after - before) / before).toBeLessThanOrEqual(MEMORY_TOLERANCE)
    expect(kinds.size).toBeGreaterThanOrEqual(15)
  })

  test(`${FRAMES} hostile frames and header abuse over /mcp, a valid call after every ${VALID_EVERY}: all valid calls answered with their id, no crash, memory back ±20 %`, async () => {
    const legacy = new HttpHost(daemon.mcpUrl, daemon.token, 'legacy')
    const modern = new HttpHost(daemon.mcpUrl, daemon.token, 'modern')
    await legacy.open()
    for (let i = 0; i < 50; i++)
      expect(
        textOf((await modern.call(`warm-${i}`, 'mcpx_call', { tool: 'up.echo', arguments: { text: 'warm' } })).messages[0]),
      ).toBeDefined()
    const next = random(20261202)
    const problems: string[] = []
    let refusedConnections = 0
    const headerSets = [
      () => legacy.headers(),
      () => modern.headers({ 'Mcp-Method': 'tools/call', 'Mcp-Name': 'up_echo' }),
      () => ({ Authorization: `Bearer ${daemon.token}`, 'Content-Type': 'application/json' }),
      () => ({ ...legacy.headers(), 'Mcp-Session-Id': 'not-a-session' }),
      () => ({ ...legacy.headers(), 'MCP-Protocol-Version': '1999-01-01' }),
      () => ({ ...modern.headers(), 'Mcp-Method': 'x'.repeat(4000) }),
      () => ({ ...legacy.headers(), 'Content-Type': 'text/plain' }),
      () => ({ ...legacy.headers(), Accept: 'text/html' }),
      () => ({ ...legacy.headers(), 'X-Padding': 'p'.repeat(8000) }),
      () => ({ ...legacy.headers(), Authorization: 'Bearer wrong' }),
      () => ({ ...legacy.headers(), 'Content-Length': '5' }),
    ]
    const LANES = 8
    const round = async (prefix: string, frames: number) => {
      let index = 0
      await Promise.all(
        Array.from({ length: LANES }, async () => {
          for (let i = index++; i < frames; i = index++) {
            const frame = hostileFrame(next, MAX_FRAME_BYTES)
            const headers = headerSets[Math.floor(next() * headerSets.length)]!()
            try {
              const response = await fetch(daemon.mcpUrl, { method: 'POST', headers, body: frame.bytes as Uint8Array<ArrayBuffer> })
              await response.arrayBuffer()
              if (response.status >= 500) problems.push(`hostile ${frame.kind} → ${response.status}`)
            } catch {
              // A refused connection (a bad Content-Length is closed by the server) is a fine answer.
              refusedConnections++
            }
            if (i % VALID_EVERY === VALID_EVERY - 1) {
              const id = `${prefix}-${i}`
              const host = Math.floor(i / VALID_EVERY) % 2 === 0 ? legacy : modern
              const answer = await host.call(id, 'mcpx_call', { tool: 'up.echo', arguments: { text: `payload ${id}` } })
              const message = answer.messages.find((m) => 'result' in m || 'error' in m)
              if (message?.id !== id || !JSON.stringify(message.result ?? null).includes(`payload ${id}`))
                problems.push(`${id}: ${JSON.stringify(answer).slice(0, 300)}`)
            }
          }
        }),
      )
    }
    await round('warm', WARMUP_FRAMES)
    const before = await settledRss()
    await round('valid', FRAMES)
    expect(problems).toEqual([])
    expect((await daemon.health())?.pid).toBe(daemon.pid)
    const after = await settledRss()
    expect(Math.abs(after - before) / before).toBeLessThanOrEqual(MEMORY_TOLERANCE)
    expect(refusedConnections).toBeLessThan(FRAMES)
  })
})
