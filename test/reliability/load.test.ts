/**
 * Load (counts, not timings): 50 HTTP clients × 200 tools/call on /mcp in each era (a 2025-11-25
 * session per client; stateless 2026-07-28), 20 `mcpx serve` hosts × 100 calls, and a burst of
 * 1,000 connections at once on the daemon's Unix socket. Every answer is matched to its request by
 * id and payload: 0 lost, 0 crossed, 0 failed, and one daemon (the same pid) throughout.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { readFileSync, readdirSync } from 'node:fs'
import { connect } from 'node:net'
import { type DaemonProcess, HttpHost, ServeHost, fixtureServer, sized, startDaemon, textOf } from './support.ts'

setDefaultTimeout(600_000)

const HTTP_CLIENTS = 50
const HTTP_CALLS = sized(200)
const SERVE_HOSTS = 20
const SERVE_CALLS = sized(100)
const BURST = sized(1_000)

let daemon: DaemonProcess
beforeAll(async () => {
  daemon = await startDaemon({ up: fixtureServer() }, { MCPX_TIMEOUT_MS: '120000' })
})
afterAll(async () => {
  await daemon?.[Symbol.asyncDispose]()
})

/** Processes running `daemon run` for this test's config: there must be exactly one. */
function daemonsRunning(): number {
  let count = 0
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')
      if (cmdline.includes('daemon') && cmdline.includes('run') && cmdline.includes(daemon.configFile)) count++
    } catch {
      // Gone meanwhile.
    }
  }
  return count
}

describe('load through the daemon', () => {
  for (const era of ['legacy', 'modern'] as const) {
    test(`${HTTP_CLIENTS} HTTP clients × ${HTTP_CALLS} calls (${era}): 0 lost, 0 crossed, 0 failed`, async () => {
      const problems: string[] = []
      let answered = 0
      await Promise.all(
        Array.from({ length: HTTP_CLIENTS }, async (_, client) => {
          const host = new HttpHost(`${daemon.mcpUrl}?codemode=false`, daemon.token, era)
          await host.open()
          for (let i = 0; i < HTTP_CALLS; i++) {
            const id = `${era}-${client}-${i}`
            try {
              const answer = await host.call(id, 'up_echo', { text: `payload ${id}` })
              const message = answer.messages.find((m) => 'result' in m || 'error' in m)
              if (message?.id !== id || textOf(message) !== `payload ${id}`) problems.push(`${id}: ${JSON.stringify(answer).slice(0, 300)}`)
              else answered++
            } catch (error) {
              problems.push(`${id}: ${String(error)}`)
            }
          }
        }),
      )
      expect(problems).toEqual([])
      expect(answered).toBe(HTTP_CLIENTS * HTTP_CALLS)
      expect((await daemon.health())?.pid).toBe(daemon.pid)
    })
  }

  test(`${SERVE_HOSTS} mcpx serve hosts × ${SERVE_CALLS} calls: 0 lost, 0 crossed, 0 failed, one daemon`, async () => {
    const hosts = Array.from({ length: SERVE_HOSTS }, () => new ServeHost(daemon))
    try {
      await Promise.all(hosts.map((h) => h.initialize()))
      const problems: string[] = []
      await Promise.all(
        hosts.map(async (host, h) => {
          // Several calls in flight per host at once, as a host with parallel tool calls has.
          const calls = Array.from({ length: SERVE_CALLS }, (_, i) => i)
          const inFlight = 4
          await Promise.all(
            Array.from({ length: inFlight }, async (_, lane) => {
              for (let i = lane; i < calls.length; i += inFlight) {
                const id = `serve-${h}-${i}`
                const answer = await host.call(id, 'up_echo', { text: `payload ${id}` })
                if (answer?.id !== id || textOf(answer) !== `payload ${id}`) problems.push(`${id}: ${JSON.stringify(answer).slice(0, 300)}`)
              }
            }),
          )
          for (let i = 0; i < SERVE_CALLS; i++)
            if (host.answersFor(`serve-${h}-${i}`).length !== 1)
              problems.push(`serve-${h}-${i}: ${host.answersFor(`serve-${h}-${i}`).length} answers`)
        }),
      )
      expect(problems).toEqual([])
      expect(daemonsRunning()).toBe(1)
      expect((await daemon.health())?.pid).toBe(daemon.pid)
    } finally {
      await Promise.all(hosts.map((h) => h[Symbol.asyncDispose]()))
    }
  })

  test(`a burst of ${BURST} connections at once on the Unix socket: every one answered, one daemon`, async () => {
    const statuses = await Promise.all(Array.from({ length: BURST }, () => rawHealth(daemon.socket)))
    const failed = statuses.filter((s) => s !== 200)
    expect(failed).toEqual([])
    expect(daemonsRunning()).toBe(1)
    expect((await daemon.health())?.pid).toBe(daemon.pid)
  })
})

/**
 * GET /v1/health over a fresh Unix-socket connection; a connect refused for a full listen backlog
 * (EAGAIN: the daemon is busy, not gone) is retried with backoff, as mcpx's own clients do.
 */
async function rawHealth(socket: string): Promise<number | string> {
  for (let attempt = 0, backoffMs = 5; ; attempt++, backoffMs = Math.min(backoffMs * 2, 200)) {
    const outcome = await new Promise<number | string>((resolve) => {
      let text = ''
      const s = connect(socket, () => s.write('GET /v1/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'))
      s.on('data', (chunk) => (text += chunk.toString()))
      s.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? String(error)))
      s.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0) || `closed: ${JSON.stringify(text.slice(0, 80))}`))
    })
    if (outcome !== 'EAGAIN' || attempt >= 50) return outcome
    await Bun.sleep(backoffMs)
  }
}
