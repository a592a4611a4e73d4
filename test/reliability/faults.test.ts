/**
 * Faults (issue "reliability under faults and load"): an upstream SIGKILLed mid-call, one that
 * hangs, one that writes garbage on stdout, results of 17 MB and 50 MB (over maxFrameBytes), a
 * never-initializing upstream beside healthy ones, and the daemon itself stopped gracefully or
 * SIGKILLed with hosts connected over HTTP (both eras) and stdio (`mcpx serve`). Every in-flight
 * request gets exactly one answer where something is left to give it, the marked side-effecting
 * tool (`append`) runs at most once, healthy upstreams stay listed and callable throughout.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { runMcpx } from '../harness.ts'
import { type DaemonProcess, HttpHost, type RpcAnswer, ServeHost, fixtureServer, startDaemon, textOf } from './support.ts'

setDefaultTimeout(120_000)

const MB = 1_000_000
const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [])

/**
 * What a failed call says: its JSON-RPC error, or the text of an isError result (the raw surface
 * reports upstream failures as tool errors the model can read); '' for a success.
 */
function failureOf(message: Record<string, unknown> | undefined): string {
  if (message?.error !== undefined) return JSON.stringify(message.error)
  const result = message?.result as { isError?: boolean } | undefined
  return result?.isError === true ? JSON.stringify(result) : ''
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'utf8') : ''
  return stat !== '' && stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
}

describe('upstream faults, with a never-initializing upstream beside healthy ones', () => {
  let daemon: DaemonProcess
  let host: HttpHost
  let ids = 0
  const nextId = () => `f${++ids}`
  /** Healthy upstreams stay callable: checked between and during faults. */
  const healthyCall = async () => {
    const answer = await host.call(nextId(), 'other_echo', { text: 'still here' })
    return textOf(answer.messages[0])
  }

  beforeAll(async () => {
    daemon = await startDaemon(
      { up: fixtureServer(), other: fixtureServer(), stuck: fixtureServer({ RELIABILITY_MODE: 'never-init' }) },
      { MCPX_TIMEOUT_MS: '4000', MCPX_PROBE_TIMEOUT_MS: '1000', MCPX_SURFACE_READY_TIMEOUT_MS: '1000', MCPX_RESTART_BACKOFF_MS: '50' },
    )
    host = new HttpHost(`${daemon.mcpUrl}?codemode=false`, daemon.token, 'legacy')
    await host.open()
  })
  afterAll(async () => {
    await daemon?.[Symbol.asyncDispose]()
  })

  test('the raw surface lists and calls the healthy upstreams while one never initializes; its state is visible', async () => {
    const listed = await host.request(nextId(), 'tools/list')
    const names = ((listed.messages[0]!.result as { tools: { name: string }[] }).tools ?? []).map((t) => t.name)
    expect(names).toContain('up_echo')
    expect(names).toContain('other_echo')
    expect(names.some((n) => n.startsWith('stuck_'))).toBe(false)
    // Every later request is served at once, not after a wait for the stuck upstream.
    for (let i = 0; i < 5; i++) expect(await healthyCall()).toBe('still here')
    const states: string[] = []
    for (let i = 0; i < 200; i++) {
      const servers = (await (await fetch('http://localhost/v1/servers', { unix: daemon.socket })).json()) as {
        name: string
        state: string
        error?: { message: string }
      }[]
      const stuck = servers.find((s) => s.name === 'stuck')!
      if (!states.includes(stuck.state)) states.push(stuck.state)
      if (stuck.state === 'failed') {
        expect(stuck.error?.message).toBeTruthy()
        break
      }
      await Bun.sleep(50)
    }
    expect(states).toContain('failed')
    const cli = await runMcpx(['servers', '--config', daemon.configFile], { env: daemon.env })
    expect(cli.stdout).toMatch(/stuck\s+failed: initialize got no answer/)
    expect(cli.stdout).toMatch(/up\s+ready/)
  })

  test('an upstream SIGKILLed mid-call: each call in flight gets one error saying it may or may not have run; the side effect ran once; the upstream restarts', async () => {
    const file = join(daemon.dir, 'append-kill.txt')
    const append = host.call(nextId(), 'up_append', { file, line: 'once', ms: 3000 })
    const slow = host.call(nextId(), 'up_slow', { ms: 3000 })
    while (lines(file).length === 0) await Bun.sleep(10)
    const crash = await host.call(nextId(), 'up_crash', {})
    const [appended, slept] = await Promise.all([append, slow])
    for (const answer of [appended, slept]) {
      expect(answer.messages).toHaveLength(1)
      expect(failureOf(answer.messages[0])).toContain('may or may not have run')
    }
    expect(crash.messages).toHaveLength(1)
    expect(lines(file)).toEqual(['once'])
    expect(await healthyCall()).toBe('still here')
    let echoed: string | undefined
    for (let i = 0; i < 100 && echoed === undefined; i++) {
      echoed = textOf((await host.call(nextId(), 'up_echo', { text: 'back' })).messages[0])
      if (echoed === undefined) await Bun.sleep(50)
    }
    expect(echoed).toBe('back')
    expect(lines(file)).toEqual(['once'])
  })

  test('a hanging call fails at its deadline while other calls keep succeeding', async () => {
    const hang = host.call(nextId(), 'up_hang', {})
    const during = await Promise.all([1, 2, 3].map(() => healthyCall()))
    expect(during).toEqual(['still here', 'still here', 'still here'])
    const answer = await hang
    expect(answer.messages).toHaveLength(1)
    expect(failureOf(answer.messages[0])).toContain('no answer within')
  })

  test('garbage on an upstream stdout is skipped; the call and the next ones succeed', async () => {
    expect(textOf((await host.call(nextId(), 'up_garbage', {})).messages[0])).toBe('after garbage')
    expect(textOf((await host.call(nextId(), 'up_echo', { text: 'clean' })).messages[0])).toBe('clean')
  })

  for (const size of [17 * MB, 50 * MB]) {
    test(`a ${size / MB} MB result fails its call at once with an error naming maxFrameBytes (not a timeout); the upstream serves on`, async () => {
      const answer = await host.call(nextId(), 'up_big', { bytes: size })
      expect(answer.messages).toHaveLength(1)
      const error = failureOf(answer.messages[0])
      expect(error).toContain('maxFrameBytes')
      expect(error).not.toContain('no answer within')
      expect(textOf((await host.call(nextId(), 'up_echo', { text: 'after big' })).messages[0])).toBe('after big')
      expect(await healthyCall()).toBe('still here')
    })
  }
})

/** In-flight work for the daemon-level faults: calls that outlive the stop, from every kind of host. */
async function hostsWithCallsInFlight(daemon: DaemonProcess, file: string) {
  const legacy = new HttpHost(`${daemon.mcpUrl}?codemode=false`, daemon.token, 'legacy')
  const modern = new HttpHost(`${daemon.mcpUrl}?codemode=false`, daemon.token, 'modern')
  await legacy.open()
  const serve = new ServeHost(daemon)
  await serve.initialize()
  // Warm the upstream so every call below is in flight at the upstream when the daemon goes.
  expect(textOf((await modern.call('warm', 'up_echo', { text: 'warm' })).messages[0])).toBe('warm')
  const http = [
    legacy.call('legacy-append', 'up_append', { file, line: 'legacy', ms: 6000 }).catch((error: Error) => error),
    legacy.call('legacy-slow', 'up_slow', { ms: 300 }).catch((error: Error) => error),
    modern.call('modern-append', 'up_append', { file, line: 'modern', ms: 6000 }).catch((error: Error) => error),
    modern.call('modern-slow', 'up_slow', { ms: 300 }).catch((error: Error) => error),
  ]
  const stdio = [
    serve.call('serve-append', 'up_append', { file, line: 'serve', ms: 6000 }),
    serve.call('serve-slow', 'up_slow', { ms: 300 }),
  ]
  while (lines(file).length < 3) await Bun.sleep(10)
  return { http, stdio, serve }
}

describe('the daemon stopped with hosts connected', () => {
  test('graceful stop: every in-flight request over HTTP (both eras) and stdio gets exactly one answer; `daemon stop` returns once the process is gone', async () => {
    await using daemon = await startDaemon({ up: fixtureServer() }, { MCPX_SHUTDOWN_GRACE_MS: '1500' })
    const file = join(daemon.dir, 'append-stop.txt')
    const { http, stdio, serve } = await hostsWithCallsInFlight(daemon, file)
    await using _serve = serve
    const stop = await runMcpx(['daemon', 'stop', '--config', daemon.configFile], { env: daemon.env })
    expect(stop.stdout).toBe('stopped\n')
    expect(alive(daemon.pid)).toBe(false)
    for (const answer of await Promise.all(http)) {
      expect(answer).not.toBeInstanceOf(Error)
      const { status, messages } = answer as RpcAnswer
      // Never a 202 with an empty body: one JSON-RPC answer, a result or an error.
      expect(status).not.toBe(202)
      expect(messages).toHaveLength(1)
    }
    const byId = Object.fromEntries(
      (await Promise.all(http)).map((a) => [String((a as RpcAnswer).messages[0]!.id), (a as RpcAnswer).messages[0]!]),
    )
    expect(textOf(byId['legacy-slow'])).toBe('slept 300')
    expect(textOf(byId['modern-slow'])).toBe('slept 300')
    expect(failureOf(byId['legacy-append'])).toContain('may or may not have run')
    expect(failureOf(byId['modern-append'])).toContain('may or may not have run')
    const stdioAnswers = await Promise.all(stdio)
    expect(stdioAnswers.every((a) => a !== undefined)).toBe(true)
    expect(serve.answersFor('serve-append')).toHaveLength(1)
    expect(serve.answersFor('serve-slow')).toHaveLength(1)
    expect(lines(file).sort()).toEqual(['legacy', 'modern', 'serve'])
  })

  test('SIGKILL: HTTP hosts see a transport error (never a wrong or empty answer); the side effect ran at most once; stdio hosts get at most one answer each', async () => {
    await using daemon = await startDaemon({ up: fixtureServer() })
    const file = join(daemon.dir, 'append-kill.txt')
    const { http, stdio, serve } = await hostsWithCallsInFlight(daemon, file)
    await using _serve = serve
    daemon.proc.kill('SIGKILL')
    await daemon.proc.exited
    for (const answer of await Promise.all(http.slice(0, 1).concat(http.slice(2, 3)))) expect(answer).toBeInstanceOf(Error)
    await Promise.race([Promise.all(stdio), Bun.sleep(20_000)])
    expect(serve.answersFor('serve-append').length).toBeLessThanOrEqual(1)
    for (const answer of serve.answersFor('serve-append')) expect('error' in answer).toBe(true)
    // The side effects started once each and were never re-sent to a restarted daemon.
    expect(lines(file).sort()).toEqual(['legacy', 'modern', 'serve'])
  })
})
