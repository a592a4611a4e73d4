/**
 * The client end of stdio (2026-07-28 basic/transports/stdio.mdx): spawns the upstream in its own
 * process group, frames stdout with the line framer, drains stderr continuously into a bounded tail
 * that is logged at debug level and quoted in errors, never read as failure (stderr is logging: 2025-11-25
 * basic/transports.mdx "stdio"). Shutdown
 * escalates stdin close → SIGTERM → SIGKILL over the whole group, so no grandchild is orphaned.
 */
import { McpxError, RPC } from '../errors/index.ts'
import { log } from '../log/index.ts'
import type { Settings } from '../settings/index.ts'
import { HANDSHAKE_METHODS, type JsonRpcMessage } from '../wire/index.ts'
import { quote, readMessages } from './decode-messages.ts'
import { createLineFramer, encodeFrame, leadingId } from './line-framer.ts'
import { terminateGroup, trackGroup, untrackGroup } from './process-group.ts'
import { createStderrTail } from './stderr-tail.ts'
import { SENT, type SendOptions, type Transport, type TransportHandlers } from './contract.ts'

export interface StdioServerParams {
  command: string
  args?: string[]
  cwd?: string
  /** Added to (and overriding) `parentEnv` (how a stdio server is launched is left to the client by the spec). */
  env?: Record<string, string>
  /** Each stderr line as it arrives (the daemon forwards them to its log); always kept in the tail too. */
  onStderrLine?: (line: string) => void
  /**
   * The environment the child inherits: the CLI's own (cli/context.ts `env`), handed down by the
   * caller. Default none: the child sees `env` only, so library code never leaks what it was not given.
   */
  parentEnv?: Readonly<Record<string, string | undefined>>
}

export interface StdioTransport extends Transport {
  readonly kind: 'stdio'
  /** Process id (= process group id) once started. */
  readonly pid: number | undefined
  /** The last `stderrBufferBytes` the server wrote to stderr. */
  stderrTail(): string
}

type StdioSettings = Pick<Settings, 'maxFrameBytes' | 'shutdownGraceMs' | 'stderrBufferBytes' | 'stderrQuoteChars'>

export function createStdioTransport(params: StdioServerParams, settings: StdioSettings): StdioTransport {
  const label = params.command.split('/').pop() ?? params.command
  const stderr = createStderrTail(settings.stderrBufferBytes, params.onStderrLine ?? ((line) => log.debug(`[${label} stderr] ${line}`)))
  let proc: Bun.Subprocess<'pipe', 'pipe', 'pipe'> | undefined
  let handlers: TransportHandlers | undefined
  let closing: Promise<void> | undefined
  // Set when the child exited on its own and watch() is reporting it; close() then waits for that.
  let crashed: Promise<void> | undefined
  let closed = false
  let pipesDone: Promise<unknown> = Promise.resolve()
  /** Why the connection was failed from this side (an unattributable oversized line). */
  let fatal: McpxError | undefined

  function finish(reason?: McpxError): void {
    if (closed) return
    closed = true
    if (reason) log.debug(`stdio upstream ${label}: ${reason.message}`)
    handlers?.onClose(reason)
  }

  function report(error: McpxError): void {
    log.warn(`stdio upstream ${label}: ${error.message}`)
    handlers?.onError?.(error)
  }

  function deliver(message: JsonRpcMessage): void {
    answered(message)
    try {
      handlers?.onMessage(message)
    } catch (error) {
      log.error(`stdio upstream ${label}: message handler threw`, error)
    }
  }

  /**
   * Requests sent and not yet answered, and where stderr stood when the oldest of them was sent
   * (or when the last answer came): a crash reason quotes only what the server wrote since, not
   * an unrelated warning from its start.
   */
  const unanswered = new Set<unknown>()
  let stderrMark = 0
  function sent(message: JsonRpcMessage): void {
    if (!('method' in message) || !('id' in message)) return
    // The handshake (legacy initialize, 2026 server/discover) keeps what the server wrote since it
    // started: one that dies before answering it says why at start-up, however fast it wrote it.
    if (unanswered.size === 0 && !HANDSHAKE_METHODS.has(message.method)) stderrMark = stderr.mark()
    unanswered.add(message.id)
  }
  function answered(message: JsonRpcMessage): void {
    if ('method' in message || !('id' in message)) return
    if (unanswered.delete(message.id) && unanswered.size === 0) stderrMark = stderr.mark()
  }

  function withStderr(message: string): string {
    const tail = stderr.text(stderrMark).trim()
    return tail === '' ? message : `${message}: ${quote(tail, settings.stderrQuoteChars)}`
  }

  async function readStdout(stream: ReadableStream<Uint8Array>): Promise<void> {
    const framer = createLineFramer({
      maxFrameBytes: settings.maxFrameBytes,
      onLine(line) {
        readMessages(line, 'stdout line', deliver, report)
      },
      onOversize(frame) {
        const limit = `exceeds maxFrameBytes (${frame.maxFrameBytes}; setting maxFrameBytes, MCPX_MAX_FRAME_BYTES)`
        const data = { bytes: frame.bytes, maxFrameBytes: frame.maxFrameBytes, setting: 'maxFrameBytes', frame: quote(frame.head) }
        const id = leadingId(frame.head)
        if (id !== undefined) {
          // The answer is known to belong to request `id`: fail that request now (not at its deadline).
          report(
            new McpxError(
              'PROTOCOL',
              `stdout line of ${frame.bytes} bytes ${limit}; answered request ${JSON.stringify(id)} with an error`,
              data,
            ),
          )
          deliver({
            jsonrpc: '2.0',
            id,
            error: {
              code: RPC.INTERNAL_ERROR,
              message: `the upstream's answer is ${frame.bytes} bytes, which ${limit}`,
              data: { ...data, mcpxCode: 'PROTOCOL' },
            },
          })
          return
        }
        // Whose answer it was cannot be read: nothing may be left waiting for it, so the connection
        // is failed (every request in flight gets an error) and the upstream restarted by its owner.
        fatal = new McpxError(
          'PROTOCOL',
          `stdout line of ${frame.bytes} bytes ${limit}, and its request id could not be read from its start`,
          data,
        )
        report(fatal)
        if (proc) void terminateGroup(proc.pid, settings.shutdownGraceMs)
      },
    })
    try {
      const reader = stream.getReader()
      for (let next = await reader.read(); !next.done; next = await reader.read()) framer.push(next.value)
    } catch (error) {
      log.debug(`stdio upstream ${label}: stdout read failed`, error)
    }
    framer.end()
  }

  /** After exit: let stdout/stderr drain so messages written before exit are delivered before the
   * close. A grandchild holding the pipes open must not stall this, hence the bound. */
  function drained(): Promise<unknown> {
    return within(pipesDone, settings.shutdownGraceMs, undefined)
  }

  async function watch(child: Bun.Subprocess<'pipe', 'pipe', 'pipe'>): Promise<void> {
    pipesDone = Promise.all([readStdout(child.stdout), stderr.drain(child.stderr)])
    const exitCode = await child.exited
    await drained()
    if (closing) return
    let done!: () => void
    crashed = new Promise((resolve) => (done = resolve))
    await terminateGroup(child.pid, settings.shutdownGraceMs)
    const how = child.signalCode ? `was killed by ${child.signalCode}` : `exited with code ${exitCode}`
    finish(
      fatal ??
        new McpxError('CONNECT', withStderr(`server ${how}`), {
          command: params.command,
          exitCode: child.signalCode ? null : exitCode,
          signal: child.signalCode ?? null,
          stderr: stderr.text(stderrMark),
        }),
    )
    done()
  }

  /**
   * A broken pipe means the server is gone or going: its exit and last stderr say why, so wait for
   * them (bounded by shutdownGraceMs) rather than report the broken pipe alone.
   */
  async function writeFailed(child: Bun.Subprocess<'pipe', 'pipe', 'pipe'>, error: unknown): Promise<never> {
    await within(child.exited.then(drained), settings.shutdownGraceMs, undefined)
    const how = child.signalCode
      ? `was killed by ${child.signalCode}`
      : child.exitCode !== null
        ? `exited with code ${child.exitCode}`
        : undefined
    const what = how
      ? `server ${how} (write failed: ${(error as Error).message})`
      : `stdio upstream ${label}: write failed (${(error as Error).message})`
    throw new McpxError(
      'CONNECT',
      withStderr(what),
      { command: params.command, ...(how && { exitCode: child.exitCode, signal: child.signalCode ?? null }) },
      { cause: error },
    )
  }

  async function shutdown(child: Bun.Subprocess<'pipe', 'pipe', 'pipe'>): Promise<void> {
    // A server that stopped reading can leave stdin's buffer unflushed forever: bound the close.
    const stdinClosed = Promise.resolve()
      .then(() => child.stdin.end())
      .catch(() => {
        // Already gone: the escalation below still cleans up the group.
      })
    await within(stdinClosed, settings.shutdownGraceMs, undefined)
    const exitedInTime = await within(
      child.exited.then(() => true),
      settings.shutdownGraceMs,
      false,
    )
    // Even after a clean exit, members of the group (grandchildren) may linger.
    await terminateGroup(child.pid, settings.shutdownGraceMs)
    if (!exitedInTime) await child.exited
    await drained()
    finish()
  }

  return {
    kind: 'stdio',
    get pid() {
      return proc?.pid
    },
    stderrTail: () => stderr.text(),

    async start(h) {
      if (handlers) throw new McpxError('INTERNAL', 'stdio transport started twice')
      handlers = h
      try {
        proc = Bun.spawn([params.command, ...(params.args ?? [])], {
          cwd: params.cwd,
          // Always explicit: Bun.spawn without `env` would hand the child mcpx's whole environment.
          env: childEnv(params),
          stdin: 'pipe',
          stdout: 'pipe',
          stderr: 'pipe',
          detached: true,
        })
      } catch (error) {
        const code = (error as { code?: string }).code
        const why = code === 'ENOENT' ? 'command not found' : code === 'EACCES' ? 'permission denied' : (error as Error).message
        closed = true
        throw new McpxError(
          'CONNECT',
          `cannot start upstream "${params.command}": ${why}`,
          { command: params.command, errno: code },
          { cause: error },
        )
      }
      trackGroup(proc.pid)
      void watch(proc)
    },

    // Not async: a message the pipe takes at once is SENT, with no promise or frame of its own.
    send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
      if (!proc || closed || closing)
        return Promise.reject(new McpxError('CONNECT', `stdio upstream ${label} is not running`, { command: params.command }))
      if (options?.signal?.aborted) return Promise.reject(new McpxError('CANCELLED', 'send cancelled before it was written'))
      const child = proc
      let flushed: number | Promise<number>
      try {
        sent(message)
        child.stdin.write(encodeFrame(message))
        // Bun's flush is synchronous when the pipe took everything; only a pending one is awaited. A
        // server that stops reading fills the pipe: the signal (if any) and the caller's deadline bound it.
        flushed = child.stdin.flush()
      } catch (error) {
        return writeFailed(child, error)
      }
      if (!(flushed instanceof Promise)) return SENT
      return abortable(flushed, options?.signal).then(
        () => {},
        (error: unknown) => (error instanceof McpxError ? Promise.reject(error) : writeFailed(child, error)),
      )
    },

    close() {
      if (closing) return closing
      if (crashed) return (closing = crashed)
      if (!proc || closed) {
        if (proc) untrackGroup(proc.pid)
        finish()
        closing = Promise.resolve()
        return closing
      }
      closing = shutdown(proc)
      return closing
    },
  }
}

/**
 * `work`, or `fallback` once `ms` have passed. The timer is cleared when `work` settles first: a
 * pending grace timer would keep the process alive (a CLI command that closed its upstream would
 * linger for shutdownGraceMs after printing its answer).
 */
async function within<T, F>(work: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const elapsed = new Promise<F>((resolve) => (timer = setTimeout(resolve, ms, fallback)))
  try {
    return await Promise.race([work, elapsed])
  } finally {
    clearTimeout(timer)
  }
}

function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new McpxError('CANCELLED', 'send cancelled while the server was not reading its stdin'))
    signal.addEventListener('abort', onAbort)
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** parentEnv overlaid with the server's own `env`; unset (undefined) entries dropped. */
function childEnv(params: StdioServerParams): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries({ ...params.parentEnv, ...params.env })) if (value !== undefined) env[name] = value
  return env
}
