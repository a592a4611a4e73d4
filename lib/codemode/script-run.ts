/**
 * One exec inside the sandbox child: a fresh QuickJS engine (own wasm Memory = heap cap), the prelude,
 * the script, and the pump feeding tool answers back in. Time is bounded three ways: the interrupt
 * handler (deadline, CPU slice), a host timer for scripts that only wait, and the parent's SIGKILL
 * watchdog. The engine is never reused, so nothing a script did can reach the next exec.
 */
import type { QuickJSHandle, QuickJSWASMModule } from 'quickjs-emscripten-core'
import { aliasNamespaces } from './identifiers.ts'
import type { PreparedContext } from './prepared-context.ts'
import { renderInstall } from './prelude.ts'
import type { ExecLimits, ExecStats, ScriptFailure } from './protocol.ts'
import { WRAPPER_PREFIX_CHARS, prepareScript } from './transpile.ts'

export interface ScriptRequest {
  readonly code: string
  readonly namespaces: Readonly<Record<string, readonly string[]>>
  readonly limits: ExecLimits
}

export interface ScriptOutcome {
  readonly valueJson?: string
  readonly failure?: ScriptFailure
  readonly logs: string[]
  readonly stats: ExecStats
}

/** How the run reaches the parent: a tool call or search, answered with reply JSON (never rejects). */
export type HostCall = (kind: 'call' | 'search', name: string, argsJson: string) => Promise<string>

export interface ScriptRun {
  readonly outcome: Promise<ScriptOutcome>
  cancel(): void
}

const SCRIPT_FILE = 'script.js'
/** Longest tool name or search query a script may pass (MCP names are short; anything longer is abuse). */
const MAX_NAME_CHARS = 4 * 1024
/** Error text that crosses back to the caller is cut to these lengths (a script may throw a 50 MB message). */
const MAX_ERROR_MESSAGE_CHARS = 4 * 1024
const MAX_ERROR_STACK_CHARS = 8 * 1024

export function startScript(
  sandbox: PreparedContext,
  request: ScriptRequest,
  hostCall: HostCall,
  onLog?: (line: string) => void,
): ScriptRun {
  const { engine, runtime, ctx, hostObject, hooks } = sandbox
  const { limits } = request
  const startedAt = performance.now()
  const deadline = Date.now() + limits.timeoutMs
  const logs: string[] = []
  let logsDropped = 0
  let toolCalls = 0
  let searches = 0
  let inflight = 0
  const waiting: Array<() => void> = []
  let failure: ScriptFailure | undefined
  let valueJson: string | undefined
  let finished = false
  let sliceStart = 0
  let scriptStarted = false
  let collectDropped: () => number = () => 0
  let resolveOutcome!: (outcome: ScriptOutcome) => void
  const outcome = new Promise<ScriptOutcome>((resolve) => (resolveOutcome = resolve))

  const fail = (next: ScriptFailure): void => {
    failure ??= next
  }

  const finish = (): void => {
    if (finished) return
    finished = true
    clearTimeout(timer)
    waiting.length = 0
    logsDropped += collectDropped()
    const resultBytes = valueJson === undefined ? 0 : utf8Bytes(valueJson)
    const stats: ExecStats = {
      durationMs: performance.now() - startedAt,
      toolCalls,
      searches,
      logLines: logs.length,
      logsDropped,
      resultBytes,
    }
    if (logsDropped > 0) logs.push(`… ${logsDropped} more console line(s) dropped (limit ${limits.maxLogLines})`)
    resolveOutcome(failure ? { failure, logs, stats } : { valueJson: valueJson ?? 'null', logs, stats })
  }

  const timer = setTimeout(() => {
    fail({ reason: 'deadline', message: `script exceeded its ${limits.timeoutMs} ms deadline (codemodeTimeoutMs)` })
    finish()
  }, limits.timeoutMs)

  const prepared = prepareScript(request.code)
  if (!prepared.ok) {
    fail(prepared.failure)
    finish()
    return { outcome, cancel: () => {} }
  }

  try {
    runtime.setMaxStackSize(limits.stackBytes)
    // Called by QuickJS every few thousand bytecodes; true stops the script with an uncatchable error.
    runtime.setInterruptHandler(() => {
      if (failure || finished) return true
      const now = Date.now()
      if (now > deadline) fail({ reason: 'deadline', message: `script exceeded its ${limits.timeoutMs} ms deadline (codemodeTimeoutMs)` })
      else if (now - sliceStart > limits.cpuSliceMs) {
        fail({ reason: 'cpu', message: `script ran ${limits.cpuSliceMs} ms without awaiting (CPU slice exceeded: codemodeCpuSliceMs)` })
      }
      return failure !== undefined
    })
  } catch (error) {
    fail({ reason: 'crash', message: `sandbox engine failed to start: ${String(error)}` })
    finish()
    return { outcome, cancel: () => {} }
  }

  const str = (handle: QuickJSHandle): string | undefined => (ctx.typeof(handle) === 'string' ? ctx.getString(handle) : undefined)

  const callHost = (kindH: QuickJSHandle, nameH: QuickJSHandle, argsH: QuickJSHandle): QuickJSHandle => {
    const deferred = ctx.newPromise()
    const kind = str(kindH) === 'search' ? 'search' : 'call'
    const name = str(nameH) ?? ''
    const argsJson = str(argsH) ?? '{}'
    if (toolCalls + searches >= limits.maxToolCalls) {
      fail({ reason: 'limit', message: `script made more than ${limits.maxToolCalls} tool calls and searches (codemodeMaxToolCalls)` })
      return deferred.handle
    }
    if (name.length > MAX_NAME_CHARS) {
      fail({ reason: 'limit', message: `tool name or query of ${name.length} characters is over the ${MAX_NAME_CHARS} character limit` })
      return deferred.handle
    }
    const argsBytes = utf8Bytes(argsJson)
    if (argsBytes > limits.maxResultBytes) {
      fail({
        reason: 'limit',
        message: `arguments of ${name} are ${argsBytes} bytes, over the ${limits.maxResultBytes} byte limit (codemodeMaxResultBytes)`,
      })
      return deferred.handle
    }
    if (kind === 'search') searches++
    else toolCalls++
    void (async () => {
      // A slot is handed straight from a finishing call to a waiter, so `inflight` never dips to 0
      // between them (settle() would take that for a stalled script).
      if (inflight < limits.maxConcurrentCalls) inflight++
      else await new Promise<void>((resolve) => waiting.push(resolve))
      if (finished) return
      const reply = await hostCall(kind, name, argsJson)
      const next = waiting.shift()
      if (next) next()
      else inflight--
      if (finished) return
      const replyHandle = ctx.newString(reply)
      deferred.resolve(replyHandle)
      replyHandle.dispose()
      deferred.dispose()
      schedulePump()
    })()
    return deferred.handle
  }

  const hostLog = (lineH: QuickJSHandle): void => {
    if (logs.length >= limits.maxLogLines) {
      logsDropped++
      return
    }
    const line = str(lineH) ?? ''
    const kept = line.length > limits.maxLogLineBytes ? line.slice(0, limits.maxLogLineBytes) : line
    logs.push(kept)
    onLog?.(kept)
  }

  const hostDone = (jsonH: QuickJSHandle): void => {
    if (failure || valueJson !== undefined) return
    const json = str(jsonH) ?? 'null'
    const bytes = utf8Bytes(json)
    if (bytes > limits.maxResultBytes) {
      fail({
        reason: 'limit',
        message: `script result is ${bytes} bytes, over the ${limits.maxResultBytes} byte limit (codemodeMaxResultBytes)`,
      })
    } else valueJson = json
  }

  const hostFail = (jsonH: QuickJSHandle): void => {
    if (failure || valueJson !== undefined) return
    fail(scriptError(str(jsonH)))
  }

  hooks.call = callHost
  hooks.log = hostLog
  hooks.done = hostDone
  hooks.fail = hostFail
  /** Lines the prelude counted past the cap without sending them (kept on the host object it closed over). */
  const droppedInGuest = (): number => {
    try {
      const handle = ctx.getProp(hostObject, 'dropped')
      const n = ctx.typeof(handle) === 'number' ? ctx.getNumber(handle) : 0
      handle.dispose()
      return Number.isSafeInteger(n) && n > 0 ? n : 0
    } catch {
      return 0
    }
  }
  collectDropped = droppedInGuest

  /** Run guest code, then decide whether the exec is over. Host exceptions here are engine traps. */
  const enter = (step: () => void): void => {
    sliceStart = Date.now()
    try {
      step()
    } catch (error) {
      fail(atMemoryCap(engine, limits) ? memoryFailure() : trapFailure(error))
    }
    settle()
  }

  const evalStep = (source: string, filename: string) => () => {
    const result = ctx.evalCode(source, filename)
    if (result.error) {
      const error = ctx.dump(result.error)
      result.error.dispose()
      if (!failure) fail(scriptError(JSON.stringify(error ?? {}), true))
    } else result.value.dispose()
  }

  /** Answers arriving together (parallel calls) are run in one pass over the job queue. */
  let pumpScheduled = false
  const schedulePump = (): void => {
    if (pumpScheduled) return
    pumpScheduled = true
    setImmediate(() => {
      pumpScheduled = false
      if (!finished) pump()
    })
  }

  const pump = (): void =>
    enter(() => {
      const result = runtime.executePendingJobs(-1)
      if (result.error) result.error.dispose()
    })

  const settle = (): void => {
    if (finished) return
    if (scriptStarted && !failure && valueJson === undefined && inflight === 0 && waiting.length === 0 && !runtime.hasPendingJob()) {
      fail(
        atMemoryCap(engine, limits)
          ? memoryFailure()
          : { reason: 'stalled', message: 'script is awaiting a promise that nothing can settle (no tool call is in flight)' },
      )
    }
    if (failure || valueJson !== undefined) finish()
  }

  enter(
    evalStep(
      renderInstall({
        namespaces: request.namespaces,
        aliases: aliasNamespaces(request.namespaces),
        maxLogLineBytes: limits.maxLogLineBytes,
        maxLogLines: limits.maxLogLines,
      }),
      'mcpx-install.js',
    ),
  )
  if (!finished) {
    scriptStarted = true
    enter(evalStep(prepared.source, SCRIPT_FILE))
  }
  if (!finished) pump()

  return {
    outcome,
    cancel: () => {
      fail({ reason: 'cancelled', message: 'exec was cancelled by the caller' })
      finish()
    },
  }
}

/**
 * The stack in the script's own coordinates: line 1's columns lose the wrapper's prefix, and the
 * wrapper's own frames (the `.call` that starts the script, native frames) are dropped.
 */
function scriptStack(stack: string): string {
  return stack
    .split('\n')
    .filter((line) => !/\(native\)|<eval>/.test(line))
    .map((line) =>
      line.replace(
        new RegExp(`${SCRIPT_FILE.replace('.', '\\.')}:1:(\\d+)`),
        (_, col: string) => `${SCRIPT_FILE}:1:${Math.max(1, Number(col) - WRAPPER_PREFIX_CHARS)}`,
      ),
    )
    .join('\n')
}

/** Error description the prelude's `describe()` produced (or QuickJS's dump of a sync throw). */
function scriptError(json: string | undefined, atCompile = false): ScriptFailure {
  let parsed: { name?: unknown; message?: unknown; stack?: unknown } = {}
  try {
    parsed = JSON.parse(json ?? '{}') ?? {}
  } catch {
    // Leave the generic message below.
  }
  const name = typeof parsed.name === 'string' ? parsed.name.slice(0, MAX_NAME_CHARS) : 'Error'
  const message = typeof parsed.message === 'string' ? parsed.message.slice(0, MAX_ERROR_MESSAGE_CHARS) : 'script failed'
  const stack =
    typeof parsed.stack === 'string' && parsed.stack !== '' ? scriptStack(parsed.stack).slice(0, MAX_ERROR_STACK_CHARS) : undefined
  // QuickJS names its own allocation failure this way; the script cannot forge the engine's state.
  if (name === 'InternalError' && message === 'out of memory') return memoryFailure()
  const reason = name === 'SyntaxError' && atCompile ? 'syntax' : 'runtime'
  // `require` is what a Node habit reaches for first; say why it is missing, as for `import` (transpile.ts).
  const hint =
    name === 'ReferenceError' && message === "'require' is not defined"
      ? ': there is no module loader in the mcpx sandbox; tools are the global namespace objects (see mcpx types)'
      : ''
  return { reason, name, message: `${name}: ${message}${hint}`, ...(stack ? { stack } : {}) }
}

/**
 * A trap of the engine while guest code ran. The host's own stack running out is the script's
 * doing (recursion or nesting deep in native code, e.g. serialising `{o: {o: …}}`, can exhaust the
 * wasm call stack before QuickJS's own limit fires; which fires first depends on the wasm tier):
 * a runtime error of the script. Every exec has its own wasm instance (engine.ts), so the broken
 * one affects nobody else.
 */
function trapFailure(error: unknown): ScriptFailure {
  if (error instanceof RangeError && /call stack/i.test(error.message))
    return {
      reason: 'runtime',
      name: 'RangeError',
      message: 'RangeError: Maximum call stack size exceeded (nesting or recursion deeper than the sandbox stack)',
    }
  return { reason: 'crash', message: `sandbox engine trapped: ${String(error)}` }
}

function memoryFailure(): ScriptFailure {
  return { reason: 'memory', message: 'script exceeded its memory cap (codemodeMemoryMb)' }
}

/** True when the engine's wasm Memory has grown to (nearly) its maximum. */
function atMemoryCap(engine: QuickJSWASMModule, limits: ExecLimits): boolean {
  try {
    const bytes = engine.getWasmMemory().buffer.byteLength
    const cap = limits.memoryMb * 1024 * 1024
    return cap > 0 && bytes >= cap - 1024 * 1024
  } catch {
    return false
  }
}

/** Size in bytes as it will travel (UTF-8), which is what the byte limits mean. */
function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8')
}
