/**
 * The mcpx_exec engine as the caller sees it: `createSandboxPool(settings).exec(code, bridge)`. Scripts
 * run in warm child processes (child-command.ts); every tool call goes through the caller's bridge, so
 * credentials never enter the child. The child enforces lib/settings/codemode.ts limits, the pool
 * re-checks those that protect itself and owns a SIGKILL watchdog at deadline + grace (then respawns).
 */
import type { Settings } from '../settings/index.ts'
import { type McpxError, RpcError, asMcpxError } from '../errors/index.ts'
import { log } from '../log/index.ts'
import { sandboxChildCommand, withAddressSpaceLimit } from './child-command.ts'
import { SandboxError } from './errors.ts'
import type { ChildMessage, ExecLimits, ExecStats, ScriptFailure } from './protocol.ts'
import { SandboxProcess } from './sandbox-process.ts'

/** What a script can reach: the caller performs the calls (and validates, authorises, routes them). */
export interface ExecBridge {
  /** Call `server.tool`; throw to make the script's await throw a ToolError. */
  call(qualifiedName: string, args: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<unknown>
  /** Tool search for `mcpx.search(query, opts)`. */
  search(query: string, options?: Record<string, unknown>): Promise<unknown>
  /** server → tool names; each server becomes a namespace object in the script. */
  readonly namespaces: Readonly<Record<string, readonly string[]>>
  /** Each console line as it is written (the result's `logs` still carries them all). */
  log?(line: string): void
}

export interface ExecResult {
  /** The script's return value, JSON round-tripped (undefined → null). */
  readonly value: unknown
  readonly logs: readonly string[]
  readonly stats: ExecStats
}

export interface SandboxPoolStats {
  readonly processes: number
  readonly running: number
  readonly queued: number
  /** Child processes that died or were killed since the pool started. */
  readonly restarts: number
}

export interface SandboxPool {
  exec(code: string, bridge: ExecBridge, options?: { signal?: AbortSignal }): Promise<ExecResult>
  /** Start the child processes now and wait until each can run a script. */
  warm(): Promise<void>
  stats(): SandboxPoolStats
  close(): Promise<void>
  /** close() only when no exec holds or waits for a slot, decided at once; null (and nothing done) otherwise. */
  closeIfIdle(): Promise<void> | null
  [Symbol.asyncDispose](): Promise<void>
}

export interface SandboxPoolOptions {
  /** argv of a sandbox child; default: this program's `sandbox-child` subcommand. */
  readonly command?: string[]
}

interface ActiveExec {
  readonly id: number
  readonly bridge: ExecBridge
  readonly process: SandboxProcess
  readonly calls: AbortController
  toolCalls: number
  /** performance.now() when the exec was sent: a watchdog kill tells apart who was past its deadline. */
  readonly sentAt: number
  settle(outcome: { result?: ExecResult; error?: McpxError }): void
}

/** Limits sent with each exec, from settings. */
function execLimits(settings: Settings): ExecLimits {
  return {
    timeoutMs: settings.codemodeTimeoutMs,
    memoryMb: settings.codemodeMemoryMb,
    cpuSliceMs: settings.codemodeCpuSliceMs,
    stackBytes: settings.codemodeStackBytes,
    maxToolCalls: settings.codemodeMaxToolCalls,
    maxConcurrentCalls: Math.max(1, settings.codemodeMaxConcurrentCalls),
    maxResultBytes: settings.codemodeMaxResultBytes,
    maxLogLines: settings.codemodeMaxLogLines,
    maxLogLineBytes: settings.codemodeMaxLogLineBytes,
  }
}

export function createSandboxPool(settings: Settings, options: SandboxPoolOptions = {}): SandboxPool {
  const limits = execLimits(settings)
  const command = withAddressSpaceLimit(options.command ?? sandboxChildCommand(), settings.codemodeAddressSpaceMb)
  // Warm processes: one per core unless set. Up to one process per running exec is started on
  // demand, so a ready exec never waits behind a script spinning out its CPU slice in a shared child.
  const size = settings.codemodeProcesses > 0 ? settings.codemodeProcesses : navigator.hardwareConcurrency
  const maxProcesses = Math.max(size, settings.codemodeMaxConcurrentExecs)
  const processes: SandboxProcess[] = []
  const active = new Map<number, ActiveExec>()
  const queue: Array<() => void> = []
  let running = 0
  let restarts = 0
  let nextId = 0
  let closed = false
  const killedByWatchdog = new WeakSet<SandboxProcess>()
  /** Processes started for a burst and ended once it passed (not counted as restarts). */
  const retired = new WeakSet<SandboxProcess>()

  const spawn = (): SandboxProcess => {
    const child: SandboxProcess = new SandboxProcess(command, limits.memoryMb, {
      onMessage: (message) => onChildMessage(message),
      onExit: ({ exitCode, signal, stderrTail }) => {
        const index = processes.indexOf(child)
        if (index >= 0) processes.splice(index, 1)
        if (!closed && !killedByWatchdog.has(child) && !retired.has(child)) restarts++
        for (const exec of [...active.values()]) {
          if (exec.process !== child) continue
          exec.settle({
            error: new SandboxError({
              reason: 'crash',
              message: `sandbox process ended (code ${exitCode}, signal ${signal}) while the script ran${stderrTail.trim() ? `: ${stderrTail.trim().slice(-500)}` : ''}`,
            }),
          })
        }
      },
    })
    processes.push(child)
    return child
  }

  const load = (p: SandboxProcess) => {
    let n = 0
    for (const e of active.values()) if (e.process === p) n++
    return n
  }
  /**
   * An idle live child (a warm one first); else a new one while under `maxProcesses`; else the
   * least loaded. When the last idle child is taken a spare is started, so the next exec finds one.
   */
  const pick = (): SandboxProcess => {
    const live = processes.filter((p) => p.alive)
    const idle = live.filter((p) => load(p) === 0)
    const chosen = idle[0] ?? (live.length < maxProcesses ? spawn() : live.reduce((best, p) => (load(p) < load(best) ? p : best)))
    if (idle.length <= 1 && processes.filter((p) => p.alive).length < maxProcesses) spawn().ready.catch(() => {})
    return chosen
  }

  const acquireSlot = async (signal?: AbortSignal): Promise<void> => {
    if (running < Math.max(1, settings.codemodeMaxConcurrentExecs)) {
      running++
      return
    }
    if (queue.length >= settings.codemodeMaxQueuedExecs) {
      throw new SandboxError({
        reason: 'limit',
        message: `sandbox is busy: ${running} scripts running and ${queue.length} queued (codemodeMaxConcurrentExecs, codemodeMaxQueuedExecs)`,
      })
    }
    await new Promise<void>((resolve, reject) => {
      const go = () => {
        signal?.removeEventListener('abort', abort)
        running++
        resolve()
      }
      const abort = () => {
        const index = queue.indexOf(go)
        if (index >= 0) queue.splice(index, 1)
        reject(new SandboxError({ reason: 'cancelled', message: 'exec was cancelled while queued' }))
      }
      signal?.addEventListener('abort', abort, { once: true })
      queue.push(go)
    })
  }

  const releaseSlot = (): void => {
    running--
    queue.shift()?.()
  }

  const onChildMessage = (message: ChildMessage): void => {
    if (message.t === 'ready') return
    const exec = active.get(message.id)
    if (!exec) return
    if (message.t === 'log') {
      exec.bridge.log?.(message.line)
      return
    }
    if (message.t === 'call') {
      void answerCall(exec, message.callId, message.kind, message.name, message.argsJson)
      return
    }
    if (message.t === 'done') {
      if (message.failure) exec.settle({ error: new SandboxError(message.failure, message.logs, message.stats) })
      else exec.settle({ result: { value: JSON.parse(message.valueJson ?? 'null'), logs: message.logs, stats: message.stats } })
    }
  }

  const answerCall = async (exec: ActiveExec, callId: number, kind: 'call' | 'search', name: string, argsJson: string): Promise<void> => {
    let json: string
    exec.toolCalls++
    if (exec.toolCalls > limits.maxToolCalls || Buffer.byteLength(argsJson, 'utf8') > limits.maxResultBytes) {
      json = errorReply(new SandboxError({ reason: 'limit', message: 'tool call refused: per-exec limit reached' }))
    } else {
      try {
        const args = JSON.parse(argsJson) as Record<string, unknown>
        const value =
          kind === 'search' ? await exec.bridge.search(name, args) : await exec.bridge.call(name, args, { signal: exec.calls.signal })
        json = `{"ok":true,"value":${JSON.stringify(value ?? null) ?? 'null'}}`
        if (Buffer.byteLength(json, 'utf8') > settings.codemodeMaxCallResultBytes) {
          json = errorReply(
            new SandboxError({
              reason: 'limit',
              message: `result of ${name} is ${json.length} bytes, over the ${settings.codemodeMaxCallResultBytes} byte limit for scripts (codemodeMaxCallResultBytes)`,
            }),
          )
        }
      } catch (error) {
        json = errorReply(error)
      }
    }
    if (active.get(exec.id) === exec) exec.process.send({ t: 'reply', id: exec.id, callId, json })
  }

  const exec = async (code: string, bridge: ExecBridge, execOptions: { signal?: AbortSignal } = {}): Promise<ExecResult> => {
    const { signal } = execOptions
    if (closed) throw new SandboxError({ reason: 'crash', message: 'sandbox pool is closed' })
    if (signal?.aborted) throw new SandboxError({ reason: 'cancelled', message: 'exec was cancelled before it started' })
    if (code.length > settings.codemodeMaxCodeBytes) {
      throw new SandboxError({
        reason: 'limit',
        message: `script is ${code.length} bytes, over the ${settings.codemodeMaxCodeBytes} byte limit (codemodeMaxCodeBytes)`,
      })
    }
    await acquireSlot(signal)
    try {
      let child = pick()
      try {
        await child.ready
      } catch (error) {
        // One fresh attempt: a child may die between exec calls (killed by a sibling's watchdog).
        log.debug(`sandbox child failed to start, retrying: ${String(error)}`)
        child = spawn()
        await child.ready.catch((e: unknown) => {
          throw new SandboxError({
            reason: 'crash',
            message: `sandbox process failed to start: ${e instanceof Error ? e.message : String(e)}`,
          })
        })
      }
      return await runOn(child, code, bridge, signal)
    } finally {
      releaseSlot()
      retireIdle()
    }
  }

  /** After a burst: idle processes beyond the warm ones plus one spare are ended (memory back). */
  const retireIdle = (): void => {
    const live = processes.filter((p) => p.alive)
    let surplus = live.length - (size + 1)
    for (const p of live) {
      if (surplus <= 0) break
      if (load(p) > 0) continue
      retired.add(p)
      p.kill()
      surplus--
    }
  }

  const runOn = (child: SandboxProcess, code: string, bridge: ExecBridge, signal?: AbortSignal): Promise<ExecResult> =>
    new Promise<ExecResult>((resolve, reject) => {
      const id = ++nextId
      const timers: Array<ReturnType<typeof setTimeout>> = []
      const killAfter = (ms: number, failure: ScriptFailure) =>
        timers.push(
          setTimeout(() => {
            if (active.get(id) !== entry) return
            log.debug(`sandbox child ${child.pid} killed: ${failure.message}`)
            entry.settle({ error: new SandboxError(failure) })
            // Execs on the same child that are past their own deadline too were stuck behind the
            // same builtin: they end as what they are (a deadline), not as the kill's crash.
            if (failure.reason === 'deadline') {
              const now = performance.now()
              for (const other of [...active.values()])
                if (other.process === child && now - other.sentAt >= limits.timeoutMs) other.settle({ error: new SandboxError(failure) })
            }
            if (child.alive) {
              killedByWatchdog.add(child)
              restarts++
              child.kill()
            }
          }, ms),
        )
      const onAbort = () => {
        child.send({ t: 'cancel', id })
        killAfter(settings.codemodeKillGraceMs, { reason: 'cancelled', message: 'exec was cancelled and the script did not stop in time' })
      }
      const entry: ActiveExec = {
        id,
        bridge,
        process: child,
        calls: new AbortController(),
        toolCalls: 0,
        sentAt: performance.now(),
        settle: ({ result, error }) => {
          if (active.get(id) !== entry) return
          active.delete(id)
          for (const timer of timers) clearTimeout(timer)
          signal?.removeEventListener('abort', onAbort)
          entry.calls.abort()
          if (error) reject(error)
          else resolve(result!)
        },
      }
      active.set(id, entry)
      signal?.addEventListener('abort', onAbort, { once: true })
      killAfter(limits.timeoutMs + settings.codemodeKillGraceMs, {
        reason: 'deadline',
        message: `script exceeded its ${limits.timeoutMs} ms deadline (codemodeTimeoutMs) inside a builtin that could not be interrupted; sandbox process killed`,
      })
      child.send({ t: 'exec', id, code, namespaces: bridge.namespaces, limits })
    })

  const close = async (): Promise<void> => {
    closed = true
    for (const exec of [...active.values()]) exec.settle({ error: new SandboxError({ reason: 'crash', message: 'sandbox pool closed' }) })
    const exits = processes.map((p) => {
      p.kill()
      return p.exited
    })
    await Promise.allSettled(exits)
  }

  return {
    exec,
    warm: async () => {
      while (processes.filter((p) => p.alive).length < size) spawn()
      await Promise.all(processes.map((p) => p.ready))
    },
    stats: () => ({ processes: processes.filter((p) => p.alive).length, running: active.size, queued: queue.length, restarts }),
    close,
    // `running` counts an exec from the moment it takes its slot, before it has a child (active).
    closeIfIdle: () => (running === 0 && queue.length === 0 ? close() : null),
    [Symbol.asyncDispose]: close,
  }
}

/** `data` of a tool error larger than this is left out of the script's ToolError. */
const MAX_ERROR_DATA_BYTES = 64 * 1024

/** Plain-data error for the script's ToolError: message, stable code, JSON-RPC code and data when known. */
function errorReply(error: unknown): string {
  const mcpx = asMcpxError(error)
  const body: Record<string, unknown> = { message: mcpx.message, code: mcpx.code }
  if (mcpx instanceof RpcError) body.rpcCode = mcpx.rpcCode
  const data = mcpx instanceof RpcError ? mcpx.rpcData : mcpx.data
  if (data !== undefined) {
    try {
      const text = JSON.stringify(data)
      if (text !== undefined && text.length <= MAX_ERROR_DATA_BYTES) body.data = JSON.parse(text)
    } catch {
      // Unserialisable data (cycles, BigInt) is left out; message and code still reach the script.
    }
  }
  return JSON.stringify({ ok: false, error: body })
}
