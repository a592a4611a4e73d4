/**
 * mcpx_exec behaviour with well-behaved scripts: values, TypeScript, top-level await/return,
 * namespaces and aliases, tool errors as catchable ToolErrors (plain data), search, console, limits
 * on concurrency, cancellation, syntax errors with lines. Runs real sandbox child processes.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { SandboxError, createSandboxPool } from '../../../lib/codemode/index.ts'
import { recordingBridge, sandboxSettings } from './helpers.ts'

// bunfig.toml declares a 60 s test timeout, but Bun 1.4.5 does not apply it (default 5 s); these tests spawn
// processes (sandbox children, tsc, bun build) on a loaded 2-core box, so restore the declared default.
setDefaultTimeout(60_000)

const settings = sandboxSettings()
const pool = createSandboxPool(settings)
afterAll(() => pool.close())

async function failure(promise: Promise<unknown>): Promise<SandboxError> {
  try {
    await promise
  } catch (error) {
    expect(error).toBeInstanceOf(SandboxError)
    return error as SandboxError
  }
  throw new Error('expected the exec to fail')
}

describe('mcpx_exec: values and language', () => {
  test('returns JSON values; undefined becomes null; top-level await works', async () => {
    const bridge = recordingBridge()
    expect((await pool.exec('return 1 + 2', bridge)).value).toBe(3)
    expect((await pool.exec('const x = await Promise.resolve({a: [1, "b", null]}); return x', bridge)).value).toEqual({ a: [1, 'b', null] })
    expect((await pool.exec('let y = 1', bridge)).value).toBeNull()
  })

  test('TypeScript: types, interfaces and enums are stripped', async () => {
    const code =
      'interface P { n: number }\nenum Color { Red, Green }\nconst p: P = { n: 41 }\nconst f = (x: number): number => x + 1\nreturn [f(p.n), Color.Green] as const'
    expect((await pool.exec(code, recordingBridge())).value).toEqual([42, 1])
  })

  test('a JavaScript syntax error is reported as such, with its line', async () => {
    const error = await failure(pool.exec('const a = 1\nconst b = ;\nreturn a', recordingBridge()))
    expect(error.reason).toBe('syntax')
    expect(error.line).toBe(2)
    expect(error.message).toContain('line 2')
    expect(error.code).toBe('SANDBOX')
  })

  test('a TypeScript syntax error is reported with its line; a script cut short names its end', async () => {
    const ts = await failure(pool.exec('const a: number = 1\n\nlet b: = 2', recordingBridge()))
    expect({ reason: ts.reason, line: ts.line }).toEqual({ reason: 'syntax', line: 3 })
    const cut = await failure(pool.exec('return [1,\n2 +', recordingBridge()))
    expect(cut.reason).toBe('syntax')
    expect(cut.message).toContain('end of script')
  })

  test('an uncaught throw is a runtime failure naming the error, with the logs so far', async () => {
    const error = await failure(pool.exec('console.log("before")\nthrow new TypeError("nope")', recordingBridge()))
    expect(error.reason).toBe('runtime')
    expect(error.message).toBe('TypeError: nope')
    expect(error.logs).toEqual(['before'])
    expect(String(error.data?.stack)).toContain('script.js:2')
  })
})

describe('mcpx_exec: tools', () => {
  test('namespace objects call tools by qualified name; non-identifier names get aliases', async () => {
    const bridge = recordingBridge()
    const { value } = await pool.exec(
      'const a = await test.echo({q: 1})\nconst b = await weird_server.get_weather({city: "Oslo"})\nconst c = await weird_server.delete_({})\nreturn [a, b, c]',
      bridge,
    )
    expect(value).toEqual([
      { name: 'test.echo', args: { q: 1 } },
      { name: 'weird-server.get-weather', args: { city: 'Oslo' } },
      { name: 'weird-server.delete', args: {} },
    ])
    expect(bridge.calls.map((c) => c.name)).toEqual(['test.echo', 'weird-server.get-weather', 'weird-server.delete'])
  })

  test("a name the namespace does not list is still a call (the host's NOT_FOUND names it); probes see only what is listed", async () => {
    const bridge = recordingBridge()
    const { value } = await pool.exec(
      'const typo = await test.ecoh({q: 1})\nreturn [typo, "ecoh" in test, Object.keys(test), typeof test.then, JSON.stringify(test), typeof (await test)]',
      bridge,
    )
    expect(value).toEqual([
      { name: 'test.ecoh', args: { q: 1 } },
      false,
      ['echo', 'fail', 'rpc_fail', 'big', 'hang', 'slow'],
      'undefined',
      '{}',
      'object',
    ])
    expect(bridge.calls.map((c) => c.name)).toEqual(['test.ecoh'])
  })

  test('mcpx.call, mcpx.search and mcpx.namespaces', async () => {
    const bridge = recordingBridge()
    const { value, stats } = await pool.exec(
      'const r = await mcpx.call("test.echo", {x: true})\nconst hits = await mcpx.search("echo things", {limit: 3})\nreturn {r, hits, ns: mcpx.namespaces}',
      bridge,
    )
    expect(value).toEqual({
      r: { name: 'test.echo', args: { x: true } },
      hits: [{ server: 'test', tool: 'echo', score: 1 }],
      ns: bridge.namespaces,
    })
    expect(bridge.searches).toEqual([{ query: 'echo things', options: { limit: 3 } }])
    expect({ toolCalls: stats.toolCalls, searches: stats.searches }).toEqual({ toolCalls: 1, searches: 1 })
  })

  test('tool errors arrive as catchable ToolErrors carrying plain data only', async () => {
    const code = `
      const out = []
      try { await test.fail({detail: 7}) } catch (e) { out.push([e instanceof ToolError, e instanceof Error, e.name, e.message, e.code, e.data]) }
      try { await test.rpc_fail({}) } catch (e) { out.push([e.code, e.rpcCode, e.data]) }
      try { await test.fail({}) } catch (e) { out.push(e.constructor.constructor('return typeof process + typeof Bun')()) }
      return out`
    const { value } = await pool.exec(code, recordingBridge())
    expect(value).toEqual([
      [true, true, 'ToolError', 'the tool said no', 'TOOL', { detail: 7 }],
      ['PEER', -32602, { field: 'q' }],
      'undefinedundefined',
    ])
  })

  test('an uncaught tool error fails the exec as a runtime ToolError', async () => {
    const error = await failure(pool.exec('await test.fail({})', recordingBridge()))
    expect({ reason: error.reason, name: error.data?.name }).toEqual({ reason: 'runtime', name: 'ToolError' })
  })

  test('bad arguments are TypeErrors inside the script, before any call', async () => {
    const bridge = recordingBridge()
    const { value } = await pool.exec('try { await test.echo([1]) } catch (e) { return e.name }', bridge)
    expect(value).toBe('TypeError')
    expect(bridge.calls).toEqual([])
  })

  test('calls run in parallel up to the per-exec concurrency limit', async () => {
    const bridge = recordingBridge()
    const { value } = await pool.exec('return (await Promise.all(Array.from({length: 12}, (_, i) => test.slow({ms: 5})))).length', bridge)
    expect(value).toBe(12)
    expect(bridge.peakConcurrency).toBeGreaterThan(1)
    expect(bridge.peakConcurrency).toBeLessThanOrEqual(settings.codemodeMaxConcurrentCalls)
  })

  test('console output comes back with the result, objects as JSON', async () => {
    const { logs, stats } = await pool.exec(
      'console.log("a", 1, {b: [2]}); console.warn("w"); console.error(new Error("e").message); return 0',
      recordingBridge(),
    )
    expect(logs).toEqual(['a 1 {"b":[2]}', '[warn] w', '[error] e'])
    expect(stats.logLines).toBe(3)
  })
})

describe('mcpx_exec: caller control', () => {
  test('an AbortSignal cancels a script waiting on a tool, and the call sees its signal aborted', async () => {
    const bridge = recordingBridge()
    const controller = new AbortController()
    const running = pool.exec('await test.hang({})', bridge, { signal: controller.signal })
    while (bridge.calls.length === 0) await new Promise<void>((resolve) => setImmediate(resolve))
    controller.abort()
    const error = await failure(running)
    expect({ code: error.code, reason: error.reason }).toEqual({ code: 'CANCELLED', reason: 'cancelled' })
    expect(bridge.signals[0]?.aborted).toBe(true)
  })

  test('scripts longer than the code limit are refused before running', async () => {
    const small = createSandboxPool(sandboxSettings({ codemodeMaxCodeBytes: 100 }))
    try {
      const error = await failure(small.exec(`return "${'x'.repeat(200)}"`, recordingBridge()))
      expect(error.reason).toBe('limit')
      expect(small.stats().processes).toBe(0)
    } finally {
      await small.close()
    }
  })

  test('several execs share the pool at once', async () => {
    const results = await Promise.all([1, 2, 3, 4].map((n) => pool.exec(`await test.slow({ms: 5}); return ${n}`, recordingBridge())))
    expect(results.map((r) => r.value)).toEqual([1, 2, 3, 4])
  })
})
