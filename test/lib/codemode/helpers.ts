/**
 * Shared pieces of the code-mode tests: sandbox settings with short deadlines, a recording bridge
 * (real async tool functions, counting calls and peak concurrency), and an event-loop lag meter.
 */
import { McpxError, RpcError } from '../../../lib/errors/index.ts'
import type { ExecBridge } from '../../../lib/codemode/index.ts'
import type { SettingOverrides, Settings } from '../../../lib/settings/index.ts'
import { testSettings } from '../../harness.ts'

/** Deadlines short enough for a test suite, with the lag bound below the CPU slice (so a blocked loop would show). */
export function sandboxSettings(overrides: SettingOverrides = {}): Settings {
  return testSettings({
    codemodeTimeoutMs: 3_000,
    codemodeCpuSliceMs: 500,
    codemodeKillGraceMs: 300,
    codemodeMaxToolCalls: 100,
    codemodeMaxConcurrentCalls: 4,
    codemodeMaxResultBytes: 64 * 1024,
    codemodeMaxCallResultBytes: 128 * 1024,
    codemodeMaxLogLines: 20,
    codemodeMaxLogLineBytes: 200,
    ...overrides,
  })
}

export interface RecordingBridge extends ExecBridge {
  readonly calls: Array<{ name: string; args: Record<string, unknown> }>
  readonly searches: Array<{ query: string; options?: Record<string, unknown> }>
  /** Most calls in flight at once. */
  peakConcurrency: number
  /** Signals handed to calls (aborted once their exec is over). */
  readonly signals: AbortSignal[]
}

/**
 * Tools: `test.echo` returns its arguments; `test.fail` throws McpxError TOOL with data;
 * `test.rpc_fail` throws a JSON-RPC error; `test.big` returns `size` characters; `test.hang`
 * never answers; `weird-server.get-weather` exists to exercise aliases.
 */
export function recordingBridge(): RecordingBridge {
  let inflight = 0
  const bridge: RecordingBridge = {
    calls: [],
    searches: [],
    peakConcurrency: 0,
    signals: [],
    namespaces: { test: ['echo', 'fail', 'rpc_fail', 'big', 'hang', 'slow'], 'weird-server': ['get-weather', 'delete'] },
    async call(name, args, options) {
      bridge.calls.push({ name, args })
      if (options?.signal) bridge.signals.push(options.signal)
      inflight++
      bridge.peakConcurrency = Math.max(bridge.peakConcurrency, inflight)
      try {
        // A real turn of the event loop, like an upstream round trip.
        await new Promise<void>((resolve) => setImmediate(resolve))
        switch (name) {
          case 'test.fail':
            throw new McpxError('TOOL', 'the tool said no', { detail: args.detail ?? null })
          case 'test.rpc_fail':
            throw new RpcError(-32602, 'bad params', { field: 'q' })
          case 'test.big':
            return { text: 'x'.repeat(Number(args.size ?? 0)) }
          case 'test.hang':
            return await new Promise(() => {})
          case 'test.slow':
            await new Promise<void>((resolve) => setTimeout(resolve, Number(args.ms ?? 10)))
            return { slept: args.ms }
          default:
            return { name, args }
        }
      } finally {
        inflight--
      }
    },
    async search(query, options) {
      bridge.searches.push({ query, options })
      return [{ server: 'test', tool: 'echo', score: 1 }]
    },
  }
  return bridge
}

/** Measures the worst gap between timer ticks on this thread (the caller's event loop). */
export function lagMeter(intervalMs = 10): { max(): number; reset(): void; stop(): void } {
  let last = performance.now()
  let worst = 0
  const timer = setInterval(() => {
    const now = performance.now()
    worst = Math.max(worst, now - last - intervalMs)
    last = now
  }, intervalMs)
  return {
    max: () => worst,
    reset: () => {
      worst = 0
      last = performance.now()
    },
    stop: () => clearInterval(timer),
  }
}
