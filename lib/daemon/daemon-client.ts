/**
 * The daemon client the CLI uses: finds the daemon of one config location through its layout
 * (socket, or TCP port from daemon.json plus the token file), calls /v1 operations by name from
 * the one operation table, and starts the daemon on demand. A connect a busy daemon refused is retried (connect.ts); only one
 * client at a time starts the daemon (the start lock), the others wait for it to answer.
 */
import { mkdirSync, readFileSync } from 'node:fs'
import type { FetchOptions } from 'ofetch'
import { ensurePrivateDir, type HomeLayout } from '../config/index.ts'
import { type ErrorCode, McpxError } from '../errors/index.ts'
import { createSseParser } from '../transport/index.ts'
import { type ConnectRetry, retryWhileBusy } from './connect.ts'
import { acquireLock, isAlive, type Lock } from './lock.ts'
import type { DaemonEvent } from './events.ts'
import { CALL_PATH, type CallStreamLine as StreamLine } from './call-stream.ts'
import type { DaemonInfo } from './operation-contract.ts'
import { readToken } from './token.ts'
import { postOverUnix } from './unix-post.ts'
import { BUILD_HEADER, otherBuildLine } from './build.ts'

export interface DaemonClientOptions {
  readonly layout: HomeLayout
  /** 'unix' (default) uses the socket; 'tcp' the loopback port and the bearer token. */
  readonly via?: 'unix' | 'tcp'
  /** How to start the daemon on demand; without it, a stopped daemon is a CONNECT error. */
  readonly start?: {
    readonly argv: readonly string[]
    readonly timeoutMs: number
    readonly logMaxBytes: number
    readonly env: Readonly<Record<string, string | undefined>>
    /** Let the daemon's JavaScriptCore use its FTL tier (setting daemonFtlJit); spawn.ts. */
    readonly ftlJit?: boolean
  }
  /** How long stop() waits for the daemon's process to be gone (setting daemonStopTimeoutMs). */
  readonly stopTimeoutMs?: number
  /** Bound on the health probe, so a wedged daemon fails the command instead of hanging it. */
  readonly healthTimeoutMs?: number
  /** Called once with the daemon's info when this client first reaches it (e.g. to report a config problem). */
  readonly onInfo?: (info: DaemonInfo) => void
  /** Retry connects a busy daemon refused; without it a refused connect fails at once. */
  readonly connectRetry?: ConnectRetry
  /**
   * This CLI's build id (build.ts): each /v1 answer's Mcpx-Build header is compared with it, and
   * `onOtherBuild` called once when the daemon runs another build (or one too old to say).
   */
  readonly build?: { readonly id: string; readonly onOtherBuild?: () => void }
}

/** How often stop() looks whether the daemon's process is gone. */
const STOP_POLL_MS = 20

/** The one line every command prints when the daemon could not load its config file. */
export function configProblemLine(info: DaemonInfo): string | null {
  const problem = info.configProblem
  if (problem === undefined) return null
  const serving = problem.servingSince === null ? 'serving no servers' : `serving the version of ${clockTime(problem.servingSince)}`
  return `config ${problem.file} not loaded: ${problem.message}; ${serving}`
}

function clockTime(iso: string): string {
  const at = new Date(iso)
  return `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`
}

interface Endpoint {
  readonly base: string
  readonly init: RequestInit & { unix?: string }
}

export class DaemonClient {
  constructor(readonly options: DaemonClientOptions) {}

  /** /v1/health of the running daemon, or null when none answers. */
  async health(): Promise<DaemonInfo | null> {
    try {
      const limit = this.options.healthTimeoutMs
      return await this.#call<DaemonInfo>('health', {}, limit ? AbortSignal.timeout(limit) : undefined)
    } catch (error) {
      if (error instanceof DOMException && error.name === 'TimeoutError') {
        throw new McpxError(
          'TIMEOUT',
          `the mcpx daemon did not answer /v1/health within ${this.options.healthTimeoutMs} ms (socket ${this.options.layout.socket})`,
          { socket: this.options.layout.socket },
        )
      }
      if (error instanceof McpxError && error.code === 'CONNECT' && error.data?.daemon === 'unreachable') return null
      throw error
    }
  }

  /** The running daemon's info, starting it first when `start` was given. */
  async ensureRunning(): Promise<DaemonInfo> {
    const running = await this.health()
    if (running) return this.#checkConfig(running)
    const start = this.options.start
    if (!start) throw unreachable(this.options.layout)
    return this.#start(start)
  }

  /** One starter at a time: the holder of the start lock spawns, everyone else waits for it to answer. */
  async #start(start: NonNullable<DaemonClientOptions['start']>): Promise<DaemonInfo> {
    const { layout } = this.options
    try {
      mkdirSync(layout.home, { recursive: true, mode: 0o700 })
      ensurePrivateDir(layout.runDir)
    } catch (error) {
      if (error instanceof McpxError) throw error
      // A home that is a file, or not ours to write: the user's setup, not a bug in mcpx.
      const { code, message } = error as NodeJS.ErrnoException
      throw new McpxError(
        'CONFIG',
        `cannot use ${layout.home} as the mcpx home (MCPX_HOME): ${code === 'EEXIST' || code === 'ENOTDIR' ? 'a file is in the way of its directories' : message}`,
        { home: layout.home, errno: code },
      )
    }
    const deadline = performance.now() + start.timeoutMs
    let wait = this.options.connectRetry?.backoffMs ?? START_POLL_MS
    for (;;) {
      const lock = tryLock(layout.startLock)
      if (lock) {
        try {
          // Another starter may have finished between our health check and taking the lock.
          const running = await this.health()
          if (running) return this.#checkConfig(running)
          // A daemon this run started reports a config it could not load like one already running.
          // node:child_process and the spawner load only when a daemon must be started.
          const { spawnDaemon } = await import('./spawn.ts')
          return this.#checkConfig(
            await spawnDaemon({
              argv: start.argv,
              layout,
              timeoutMs: start.timeoutMs,
              logMaxBytes: start.logMaxBytes,
              env: start.env,
              ...(start.ftlJit !== undefined && { ftlJit: start.ftlJit }),
            }),
          )
        } catch (error) {
          // The daemon lock is held: another daemon (started by hand, or one still stopping) owns
          // it. Serve from it if it answers; otherwise wait below until it is gone.
          if (!(error instanceof McpxError && error.data?.pid !== undefined)) throw error
          const winner = await this.health()
          if (winner) return this.#checkConfig(winner)
        } finally {
          lock.release()
        }
      }
      await Bun.sleep(wait)
      wait = Math.min(wait * 2, this.options.connectRetry?.backoffMaxMs ?? START_POLL_MS)
      const started = await this.health()
      if (started) return this.#checkConfig(started)
      if (performance.now() > deadline)
        throw new McpxError(
          'TIMEOUT',
          `another mcpx client was starting the daemon and it did not answer within ${start.timeoutMs} ms (lock ${layout.startLock}, log ${layout.daemonLog})`,
          { lock: layout.startLock },
        )
    }
  }

  #reported = false
  /** Whether the daemon's answers named another build than `options.build.id`; undefined before the first answer. */
  #otherBuild: boolean | undefined

  /** Compare an answer's build with ours (once per client); a USAGE error from another build says what likely caused it. */
  #noteBuild(headers: Headers): void {
    const mine = this.options.build
    if (mine === undefined || this.#otherBuild !== undefined) return
    this.#otherBuild = headers.get(BUILD_HEADER) !== mine.id
    if (this.#otherBuild) mine.onOtherBuild?.()
  }

  #errorFrom(body: unknown, status: number): McpxError {
    const error = errorFromBody(body, status)
    // A daemon from an older build rejects what it does not know yet (a new parameter, an operation) as USAGE.
    if (!this.#otherBuild || error.code !== 'USAGE') return error
    return new McpxError(error.code, `${error.message} (${otherBuildLine()})`, { ...error.data, otherBuild: true })
  }

  #checkConfig(info: DaemonInfo): DaemonInfo {
    if (!this.#reported) {
      this.#reported = true
      this.options.onInfo?.(info)
    }
    return info
  }

  /** Call a /v1 operation by name; starts the daemon on demand when configured to. */
  async request<T = unknown>(operation: string, params: Record<string, unknown> = {}): Promise<T> {
    // One health check per client (a CLI run), not per request: later requests go straight out.
    if (this.options.start)
      await (this.#running ??= this.ensureRunning().catch((error) => {
        this.#running = undefined
        throw error
      }))
    return this.#call<T>(operation, params)
  }

  #running?: Promise<DaemonInfo>

  /**
   * Ask the daemon to stop; false when none was running. Resolves once its process is gone (it
   * answers what is in flight first), or fails after `stopTimeoutMs` naming the pid still alive.
   */
  async stop(): Promise<boolean> {
    const info = await this.health()
    if (info === null) return false
    await this.#call('shutdown', {})
    const timeoutMs = this.options.stopTimeoutMs ?? 0
    const deadline = performance.now() + timeoutMs
    while (isAlive(info.pid)) {
      if (performance.now() >= deadline) {
        throw new McpxError(
          'TIMEOUT',
          `the mcpx daemon (pid ${info.pid}) stopped serving but is still running after ${timeoutMs} ms (daemonStopTimeoutMs)`,
          { pid: info.pid, setting: 'daemonStopTimeoutMs' },
        )
      }
      await Bun.sleep(STOP_POLL_MS)
    }
    return true
  }

  /**
   * A streamed operation (`call` with `stream: true`, call-stream.ts): one request, no health
   * check first — a daemon that is not running is started (when configured to) and the request
   * sent again, which is safe because the first one reached nobody. `onLine` sees every line
   * before the result (progress, questions, the daemon's info when its config did not load).
   */
  async callStream<T = unknown>(params: Record<string, unknown>, onLine: (line: StreamLine) => void | Promise<void>): Promise<T> {
    const path = CALL_PATH
    const operation = 'call'
    const body = JSON.stringify({ ...params, stream: true })
    const send = async () => {
      // On the socket, the one request of a warm `mcpx call` goes out on this thread (unix-post.ts says why).
      if (this.options.via !== 'tcp') return this.#guard(undefined, () => postOverUnix(this.options.layout.socket, path, body))
      const endpoint = this.#endpoint()
      const headers = new Headers(endpoint.init.headers)
      headers.set('Content-Type', 'application/json')
      return this.#fetch(`${endpoint.base}${path}`, { ...endpoint.init, method: 'POST', headers, body })
    }
    let response: Response
    try {
      response = await send()
    } catch (error) {
      if (!(this.options.start && error instanceof McpxError && error.data?.daemon === 'unreachable')) throw error
      await this.ensureRunning()
      response = await send()
    }
    this.#noteBuild(response.headers)
    if (!response.ok || response.body === null) throw this.#errorFrom(await response.json().catch(() => null), response.status)
    for await (const line of ndjsonLines(response.body)) {
      if (line.type === 'result') return line.result as T
      if (line.type === 'error') throw this.#errorFrom({ error: line.error }, response.status)
      if (line.type === 'info') this.#checkConfig(line.info as unknown as DaemonInfo)
      await onLine(line)
    }
    throw new McpxError(
      'CONNECT',
      `the mcpx daemon closed the ${operation} answer before its result (socket ${this.options.layout.socket})`,
      { socket: this.options.layout.socket },
    )
  }

  /** Follow /v1/events; ends when the daemon stops or `signal` aborts. */
  async *events(options: { lastEventId?: number; signal?: AbortSignal } = {}): AsyncGenerator<DaemonEvent> {
    const endpoint = this.#endpoint()
    const headers = new Headers(endpoint.init.headers)
    if (options.lastEventId !== undefined) headers.set('Last-Event-ID', String(options.lastEventId))
    const response = await this.#fetch(`${endpoint.base}/v1/events`, {
      ...endpoint.init,
      headers,
      ...(options.signal && { signal: options.signal }),
    })
    this.#noteBuild(response.headers)
    if (!response.ok || response.body === null) throw errorFromBody(await response.json().catch(() => null), response.status)
    yield* parseEvents(response.body)
  }

  async #call<T>(name: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<T> {
    // The operation table (and what its handlers import) loads with the first plain request, not at start-up.
    const operation = (await import('./operations.ts')).findOperation(name)
    const endpoint = this.#endpoint()
    const rest = { ...params }
    const path = operation.path.replace(/:([A-Za-z]+)/g, (_, key: string) => {
      const value = rest[key]
      delete rest[key]
      if (value === undefined) throw new McpxError('USAGE', `${name}: parameter "${key}" is required`, { operation: name, param: key })
      return encodeURIComponent(String(value))
    })
    const url = `${endpoint.base}${path}`
    const query =
      operation.method === 'GET'
        ? Object.fromEntries(
            Object.entries(rest)
              .filter(([, v]) => v !== undefined)
              .map(([k, v]) => [k, typeof v === 'object' ? JSON.stringify(v) : String(v)]),
          )
        : undefined
    // ofetch: JSON in and out; no retries (a call is not idempotent) and errors read from the body.
    // Loaded here, not at start-up: a warm `mcpx call` makes its one request with stream() instead.
    const { ofetch } = await import('ofetch')
    const response = await this.#guard(signal, () =>
      ofetch.raw(url, {
        ...endpoint.init,
        method: operation.method,
        ...(query && { query }),
        ...(operation.method !== 'GET' && { body: rest }),
        ...(signal && { signal }),
        retry: 0,
        ignoreResponseError: true,
        responseType: 'json',
      } as FetchOptions<'json'>),
    )
    this.#noteBuild(response.headers)
    if (!response.ok) throw this.#errorFrom(response._data ?? null, response.status)
    return response._data as T
  }

  /** A socket or port with nobody behind it is the daemon not running, said once, with how to start it. */
  async #guard<T>(signal: AbortSignal | undefined, run: () => Promise<T>): Promise<T> {
    const retry = this.options.connectRetry
    try {
      if (retry === undefined || this.options.via === 'tcp') return await run()
      return await retryWhileBusy(run, this.options.layout, this.options.layout.socket, retry, signal)
    } catch (error) {
      // The caller's own deadline or abort, not the daemon's absence (ofetch wraps the reason).
      if (signal?.aborted) throw signal.reason ?? error
      throw unreachable(this.options.layout, error)
    }
  }

  #fetch(url: string, init: RequestInit & { unix?: string }): Promise<Response> {
    return this.#guard(init.signal ?? undefined, () => fetch(url, init))
  }

  #endpoint(): Endpoint {
    const layout = this.options.layout
    if (this.options.via !== 'tcp') return { base: 'http://localhost', init: { unix: layout.socket } }
    const state = readState(layout)
    const token = readToken(layout.token)
    if (state === null || token === null) throw unreachable(layout)
    return { base: state.tcp.url, init: { headers: { Authorization: `Bearer ${token}` } } }
  }
}

/** How often a waiting client looks whether the starter's daemon answers, without connectRetry. */
const START_POLL_MS = 50

/** The lock at `path`, or undefined when a live process holds it. */
function tryLock(path: string): Lock | undefined {
  try {
    return acquireLock(path)
  } catch (error) {
    if (error instanceof McpxError && error.data?.pid !== undefined) return undefined
    throw error
  }
}

function unreachable(layout: HomeLayout, cause?: unknown): McpxError {
  return new McpxError(
    'CONNECT',
    `the mcpx daemon is not running (no answer on ${layout.socket}); start it with \`mcpx daemon start\``,
    { daemon: 'unreachable', socket: layout.socket },
    { cause },
  )
}

function readState(layout: HomeLayout): { tcp: { url: string } } | null {
  try {
    return JSON.parse(readFileSync(layout.state, 'utf8'))
  } catch {
    return null
  }
}

/** Rebuild the McpxError a /v1 error body describes (api-routes.ts errorResponse writes it). */
function errorFromBody(body: unknown, status: number): McpxError {
  const error = (body as { error?: { code?: unknown; message?: unknown; data?: unknown } } | null)?.error
  if (error && typeof error.code === 'string' && typeof error.message === 'string') {
    const data = error.data !== null && typeof error.data === 'object' ? (error.data as Record<string, unknown>) : undefined
    return new McpxError(error.code as ErrorCode, error.message, data)
  }
  return new McpxError('INTERNAL', `daemon answered HTTP ${status} without an error body`)
}

/** One JSON object a line (a streamed operation's answer). */
async function* ndjsonLines(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamLine> {
  const decoder = new TextDecoder()
  let buffered = ''
  const reader = body.getReader()
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    buffered += decoder.decode(chunk.value, { stream: true })
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const text = buffered.slice(0, end)
      buffered = buffered.slice(end + 1)
      if (text.trim() !== '') yield JSON.parse(text) as StreamLine
    }
  }
}

/** The feed's events, parsed by the one SSE parser (lib/transport). */
async function* parseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<DaemonEvent> {
  const ready: DaemonEvent[] = []
  const parser = createSseParser({ onEvent: (event) => event.data !== '' && ready.push(JSON.parse(event.data) as DaemonEvent) })
  const reader = body.getReader()
  for (;;) {
    const { value, done } = await reader.read()
    if (done) parser.end()
    else parser.push(value)
    while (ready.length > 0) yield ready.shift()!
    if (done) return
  }
}
