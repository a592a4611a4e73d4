/**
 * Hostile scripts against the real sandbox pool. Every case must be contained with a clear error
 * (or a harmless value), the caller's event loop must stay responsive throughout (worst timer lag
 * below `codemodeMaxEventLoopLagMs`, itself below the CPU slice so a blocked loop would fail), and
 * the next exec must work.
 */
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { SandboxError, type SandboxFailureReason, createSandboxPool } from '../../../lib/codemode/index.ts'
import { lagMeter, recordingBridge, sandboxSettings } from './helpers.ts'

// bunfig.toml declares a 60 s test timeout, but Bun 1.4.5 does not apply it (default 5 s); these tests spawn
// processes (sandbox children, tsc, bun build) on a loaded 2-core box, so restore the declared default.
setDefaultTimeout(60_000)

const settings = sandboxSettings()
const pool = createSandboxPool(settings)
/**
 * For the builtin that cannot be interrupted (printing a 300,000-digit bigint, near QuickJS's bigint size limit):
 * it takes about 3.3 s on this machine when quiet, just past the shared pool's 3 s deadline plus grace, so the race
 * went either way; a 1 s deadline (killed at 1.3 s) is far below it.
 */
const watchdogPool = createSandboxPool(sandboxSettings({ codemodeTimeoutMs: 1_000 }))
const lag = lagMeter()
const lagBoundMs = settings.codemodeMaxEventLoopLagMs

beforeAll(() => Promise.all([pool.warm(), watchdogPool.warm()]))
afterAll(async () => {
  lag.stop()
  await Promise.all([pool.close(), watchdogPool.close()])
})

afterEach(async () => {
  // The next exec works, and the caller never stalled while the hostile one ran.
  expect((await pool.exec('return 6 * 7', recordingBridge())).value).toBe(42)
  expect(lag.max()).toBeLessThan(lagBoundMs)
  lag.reset()
})

/** The exec fails with SandboxError and one of `reasons` (the first is the expected one; others are load-dependent). */
async function contained(
  code: string,
  reasons: SandboxFailureReason | SandboxFailureReason[],
  bridge = recordingBridge(),
  on = pool,
): Promise<SandboxError> {
  const allowed = Array.isArray(reasons) ? reasons : [reasons]
  try {
    await on.exec(code, bridge)
  } catch (error) {
    expect(error).toBeInstanceOf(SandboxError)
    const e = error as SandboxError
    expect(e.code).toBe('SANDBOX')
    expect(allowed).toContain(e.reason)
    expect(e.message.length).toBeGreaterThan(10)
    // A limit names the setting that raises it (README "Reliability": limits name their setting).
    if (['deadline', 'cpu', 'memory', 'limit'].includes(e.reason)) expect(e.message).toMatch(/\(.*codemode[A-Z]\w+.*\)/)
    return e
  }
  throw new Error(`expected the exec to fail with ${allowed.join(' or ')}`)
}

const HOST_GLOBALS = [
  'process',
  'Bun',
  'require',
  'module',
  'fetch',
  'XMLHttpRequest',
  'WebSocket',
  'Deno',
  'std',
  'os',
  'setTimeout',
  '__mcpx_host',
  '__mcpx_install',
]

describe('hostile scripts: escapes', () => {
  test('the bound test is meaningful: the lag bound is below the CPU slice', () => {
    expect(lagBoundMs).toBeLessThan(settings.codemodeCpuSliceMs)
  })

  test('no host global is reachable from globalThis', async () => {
    const { value } = await pool.exec(
      `return ${JSON.stringify(HOST_GLOBALS)}.filter((n) => n in globalThis || typeof globalThis[n] !== 'undefined')`,
      recordingBridge(),
    )
    expect(value).toEqual([])
  })

  test('constructor chain from a plain object to process/Bun/require', async () => {
    const { value } = await pool.exec(
      'return ({}).constructor.constructor("return [typeof process, typeof Bun, typeof require]")()',
      recordingBridge(),
    )
    expect(value).toEqual(['undefined', 'undefined', 'undefined'])
  })

  test('constructor chain from mcpx functions and namespace methods reaches only the guest realm', async () => {
    const code = `
      const g1 = mcpx.call.constructor('return this')()
      const g2 = test.echo.constructor.constructor('return globalThis')()
      return [g1 === globalThis, g2 === globalThis, typeof g1.process, Object.getPrototypeOf(test) === null]`
    expect((await pool.exec(code, recordingBridge())).value).toEqual([true, true, 'undefined', true])
  })

  test('constructor chain from a caught tool error (a host error on the other side)', async () => {
    const code = `try { await test.fail({}) } catch (e) {
      return [e.constructor.constructor('return typeof process')(), Object.getPrototypeOf(e) === ToolError.prototype, Object.keys(e).sort()] }`
    expect((await pool.exec(code, recordingBridge())).value).toEqual(['undefined', true, ['code', 'data', 'name']])
  })

  test('require() and dynamic import() fail as script errors', async () => {
    const r = await contained('return require("node:fs").readFileSync("/etc/passwd", "utf8")', 'runtime')
    expect(r.data?.name).toBe('ReferenceError')
    const { value } = await pool.exec('try { await import("node:fs"); return "imported" } catch (e) { return e.name }', recordingBridge())
    expect(value).not.toBe('imported')
  })

  test('fetch and friends do not exist: a local server gets no request', async () => {
    let hits = 0
    await using server = Bun.serve({ port: 0, fetch: () => (hits++, new Response('pwned')) })
    const url = `http://127.0.0.1:${server.port}/`
    const code = `const out = []
      for (const f of [() => fetch(${JSON.stringify(url)}), () => new XMLHttpRequest(), () => import(${JSON.stringify(url)}), () => new WebSocket('ws://127.0.0.1')]) {
        try { await f(); out.push('ok') } catch (e) { out.push(e.name) } }
      return out`
    const { value } = await pool.exec(code, recordingBridge())
    expect((value as string[]).includes('ok')).toBe(false)
    expect(hits).toBe(0)
  })

  test('the host-call channel cannot be reached or forged', async () => {
    const { value } = await pool.exec(
      'return [typeof __mcpx_host, Object.getOwnPropertyNames(globalThis).filter((n) => n.startsWith("__"))]',
      recordingBridge(),
    )
    expect(value).toEqual(['undefined', ['__mcpx_run']])
  })

  test('prototype pollution stays in the guest: host objects and the next exec are clean', async () => {
    const bridge = recordingBridge()
    const code = `Object.prototype.polluted = 'yes'; Array.prototype.map = null; JSON.parse = () => 'hijacked'
      await mcpx.call('test.echo', JSON.parse('{}') === 'hijacked' ? {"__proto__": {"admin": true}, constructor: {prototype: {admin: true}}} : {})
      return 1`
    await pool.exec(code, bridge)
    const args = bridge.calls[0]!.args
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(({} as Record<string, unknown>).admin).toBeUndefined()
    expect((args as Record<string, unknown>).admin).toBeUndefined()
    expect(typeof [].map).toBe('function')
    const next = await pool.exec('return [Object.prototype.polluted, typeof Array.prototype.map, JSON.parse("1")]', recordingBridge())
    expect(next.value).toEqual([null, 'function', 1])
  })
})

describe('hostile scripts: time', () => {
  test('infinite loop', async () => {
    await contained('while (true) {}', 'cpu')
  })

  test('infinite loop that catches its own interruption', async () => {
    await contained('while (true) { try { while (true) {} } catch (e) {} }', 'cpu')
  })

  test('endless microtask loop (await in a loop never yields to the host)', async () => {
    await contained('while (true) await null', 'cpu')
  })

  test('expensive builtins in a loop', async () => {
    // Either the interrupt handler catches it between builtins, or the watchdog kills the process.
    await contained('const s = "x".repeat(1 << 20); while (true) JSON.stringify([s, s, s, s])', ['cpu', 'deadline'])
  })

  test('one builtin that never polls the interrupt handler: the watchdog kills and respawns the child', async () => {
    const before = watchdogPool.stats().restarts
    const e = await contained('return String(10n ** 300000n).length', 'deadline', recordingBridge(), watchdogPool)
    expect(e.message).toContain('killed')
    expect(watchdogPool.stats().restarts).toBe(before + 1)
  })

  test('a promise that never settles fails at once as stalled', async () => {
    await contained('await new Promise(() => {})', 'stalled')
  })

  test('a tool call that never answers ends at the deadline, and the call is aborted', async () => {
    const bridge = recordingBridge()
    await contained('await test.hang({})', 'deadline', bridge)
    expect(bridge.signals[0]?.aborted).toBe(true)
  })

  test('Atomics.wait cannot block the sandbox forever', async () => {
    const outcome = await pool
      .exec('Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); return "returned"', recordingBridge())
      .catch((error: unknown) => error)
    if (outcome instanceof SandboxError) expect(['runtime', 'deadline', 'cpu']).toContain(outcome.reason)
    else expect(outcome).toMatchObject({ value: 'returned' })
  })

  test('a hostile toJSON on the result runs under the same limits', async () => {
    await contained('return { toJSON() { while (true) {} } }', 'cpu')
  })
})

describe('hostile scripts: memory', () => {
  test('memory bomb: unbounded array of strings', async () => {
    // Array#fill is a fast C loop; String#repeat is not (QuickJS appends char by char), so it would test the clock instead.
    await contained('const a = []; while (true) a.push(new Array(1 << 17).fill(a.length))', 'memory')
  })

  test('memory bomb: one huge allocation', async () => {
    await contained('const s = "x".repeat(2 ** 29); return s.length', ['memory', 'runtime'])
  })

  test('memory bomb: typed arrays', async () => {
    await contained('const keep = []; while (true) keep.push(new Float64Array(1 << 20))', ['memory', 'runtime'])
  })

  test('deep recursion is a catchable stack overflow, not a crash', async () => {
    const e = await contained('function f(n) { return f(n + 1) + 1 }\nreturn f(0)', 'runtime')
    expect(e.message).toMatch(/stack/i)
    const { value } = await pool.exec('function f() { f() }\ntry { f() } catch (e) { return "caught" }', recordingBridge())
    expect(value).toBe('caught')
  })

  test('deeply nested data in the result', async () => {
    // Serialising it overflows the stack, or (QuickJS checks cycles linearly) runs out of time.
    await contained('let o = {}; for (let i = 0; i < 1e5; i++) o = {o}; return o', ['runtime', 'cpu', 'deadline', 'memory'])
  })
})

describe('hostile scripts: volume', () => {
  test('huge return value', async () => {
    const e = await contained(`return "x".repeat(${settings.codemodeMaxResultBytes + 1})`, 'limit')
    expect(e.message).toContain(String(settings.codemodeMaxResultBytes))
  })

  test('log flood: lines beyond the cap are counted and dropped', async () => {
    const { logs, stats } = await pool.exec('for (let i = 0; i < 20000; i++) console.log(i); return 1', recordingBridge())
    expect(logs.length).toBe(settings.codemodeMaxLogLines + 1)
    expect(logs.at(-1)).toContain('dropped')
    expect(stats.logsDropped).toBe(20000 - settings.codemodeMaxLogLines)
  })

  test('huge log line is cut to the line cap', async () => {
    const { logs } = await pool.exec('let s = "y"; while (s.length < 5e6) s += s; console.log(s); return 1', recordingBridge())
    expect(logs[0]!.length).toBeLessThanOrEqual(settings.codemodeMaxLogLineBytes)
  })

  test('thousands of sequential tool calls stop at the per-exec limit', async () => {
    const bridge = recordingBridge()
    const e = await contained('for (let i = 0; i < 5000; i++) await test.echo({i})', 'limit', bridge)
    expect(e.message).toContain(String(settings.codemodeMaxToolCalls))
    expect(bridge.calls.length).toBeLessThanOrEqual(settings.codemodeMaxToolCalls)
  })

  test('thousands of parallel tool calls: limited in number and in concurrency', async () => {
    const bridge = recordingBridge()
    await contained('await Promise.all(Array.from({length: 5000}, (_, i) => test.echo({i})))', 'limit', bridge)
    expect(bridge.calls.length).toBeLessThanOrEqual(settings.codemodeMaxToolCalls)
    expect(bridge.peakConcurrency).toBeLessThanOrEqual(settings.codemodeMaxConcurrentCalls)
  })

  test('huge tool arguments are refused before reaching the caller', async () => {
    const bridge = recordingBridge()
    await contained('await test.echo({s: "x".repeat(1 << 20)})', 'limit', bridge)
    expect(bridge.calls).toEqual([])
  })

  test('a huge tool result becomes a catchable error inside the script', async () => {
    const { value } = await pool.exec(
      `try { await test.big({size: ${settings.codemodeMaxCallResultBytes * 2}}); return 'got it' } catch (e) { return [e.name, e.code] }`,
      recordingBridge(),
    )
    expect(value).toEqual(['ToolError', 'SANDBOX'])
  })

  test("a sibling exec killed with the watchdog's child ends as a deadline or a crash, the pool recovers", async () => {
    const results = await Promise.allSettled([
      watchdogPool.exec('await test.slow({ms: 50}); return "sibling"', recordingBridge()),
      watchdogPool.exec('return String(10n ** 300000n).length', recordingBridge()),
    ])
    const reasons = results.map((r) => (r.status === 'rejected' ? (r.reason as SandboxError).reason : r.value.value))
    expect(reasons[1]).toBe('deadline')
    // The sibling was stuck behind the builtin too: past its own deadline it ends as one (whichever
    // exec's watchdog fired first), else it dies with the process as a crash.
    expect(['sibling', 'crash', 'deadline']).toContain(reasons[0] as string)
  })
})
