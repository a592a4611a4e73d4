/**
 * The daemon client the CLI uses: calls /v1 operations by name from the one operation table,
 * streams a `call` and follows the event feed, notes the daemon's build, and stops the daemon.
 * Where the daemon answers is daemon-endpoint.ts's; starting it on demand, daemon-start.ts's;
 * reading its answers (error bodies, NDJSON, SSE), daemon-answers.ts's.
 */
import type { FetchOptions } from 'ofetch'
import type { HomeLayout } from '../config/index.ts'
import { McpxError } from '../errors/index.ts'
import type { ConnectRetry } from './connect.ts'
import { isAlive } from './lock.ts'
import type { DaemonEvent } from './events.ts'
import { CALL_PATH, type CallStreamLine as StreamLine } from './call-stream.ts'
import type { DaemonInfo } from './operation-contract.ts'
import { postOverUnix } from './unix-post.ts'
import { BUILD_HEADER, otherBuildLine } from './build.ts'
import { errorFromBody, ndjsonLines, parseEvents } from './daemon-answers.ts'
import { type DaemonVia, endpointOf, reachDaemon, unreachable } from './daemon-endpoint.ts'
import { type DaemonStartOptions, startDaemonOnce } from './daemon-start.ts'

export interface DaemonClientOptions {
  readonly layout: HomeLayout
  /** 'unix' (default) uses the socket; 'tcp' the loopback port and the bearer token. */
  readonly via?: DaemonVia
  /** How to start the daemon on demand; without it, a stopped daemon is a CONNECT error. */
  readonly start?: DaemonStartOptions
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
      // A daemon that closed the connection mid-answer is going away: health asks nothing twice, so it is "not running".
      if (
        error instanceof McpxError &&
        error.code === 'CONNECT' &&
        (error.data?.daemon === 'unreachable' || error.data?.daemon === 'closed')
      )
        return null
      throw error
    }
  }

  /** The running daemon's info, starting it first when `start` was given. */
  async ensureRunning(): Promise<DaemonInfo> {
    const running = await this.health()
    if (running) return this.#checkConfig(running)
    const start = this.options.start
    if (!start) throw unreachable(this.options.layout)
    return this.#checkConfig(await startDaemonOnce(this.options.layout, start, this.options.connectRetry, () => this.health()))
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
    // A daemon that closes the connection while going away has done what was asked.
    await this.#call('shutdown', {}).catch((error: unknown) => {
      if (!(error instanceof McpxError && error.data?.daemon === 'closed')) throw error
    })
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

  #guard<T>(signal: AbortSignal | undefined, run: () => Promise<T>): Promise<T> {
    return reachDaemon(this.options, signal, run)
  }

  #fetch(url: string, init: RequestInit & { unix?: string }): Promise<Response> {
    return this.#guard(init.signal ?? undefined, () => fetch(url, init))
  }

  #endpoint() {
    return endpointOf(this.options.layout, this.options.via)
  }
}
