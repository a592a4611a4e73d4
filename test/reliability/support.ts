/**
 * The reliability suite's harness: its size (CI: about a fifth of the full counts; `npm run soak`
 * sets MCPX_RELIABILITY=full), a real daemon process (`mcpx daemon run` with its own MCPX_HOME and
 * config) whose RSS can be sampled and which can be SIGKILLed, and hosts that speak to it: HTTP
 * clients of both eras on /mcp and `mcpx serve` processes over stdio. Answers are matched to their
 * requests by id and counted, never timed.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { homeLayout } from '../../lib/config/index.ts'
import { META } from '../../lib/wire/index.ts'
import { REPO_ROOT, mcpxCommand, tempDir } from '../harness.ts'

export const FULL = process.env.MCPX_RELIABILITY === 'full'

/** `full` at full size, about a fifth of it at CI size. */
export function sized(full: number): number {
  return FULL ? full : Math.max(1, Math.round(full / 5))
}

export const UPSTREAM = join(REPO_ROOT, 'test/fixtures/peers/reliability-upstream.ts')

export interface ServerSpec {
  readonly command?: string
  readonly args?: string[]
  readonly env?: Record<string, string>
}

/** A stdio upstream running the reliability fixture. */
export function fixtureServer(env: Record<string, string> = {}): ServerSpec {
  return { command: process.execPath, args: [UPSTREAM], env }
}

export interface DaemonProcess extends AsyncDisposable {
  readonly dir: string
  readonly env: Record<string, string>
  readonly configFile: string
  readonly socket: string
  readonly pid: number
  readonly proc: Bun.Subprocess
  /** http://127.0.0.1:<port>/mcp */
  readonly mcpUrl: string
  readonly token: string
  rssBytes(): number
  /** POST /v1/memory: RSS, JS heap and live objects after a full collection in the daemon. */
  memory(): Promise<{ rssBytes: number; heapBytes: number; objects: number }>
  health(): Promise<{ pid: number } | null>
  log(): string
}

/** Start `mcpx daemon run` with `servers` and setting overrides (MCPX_* variables). */
export async function startDaemon(servers: Record<string, ServerSpec>, settings: Record<string, string> = {}): Promise<DaemonProcess> {
  const temp = tempDir('mcpx-reliability')
  const home = join(temp.path, 'home')
  const configFile = join(temp.path, 'mcpx.json')
  writeFileSync(configFile, JSON.stringify({ mcpServers: servers }))
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    HOME: temp.path,
    MCPX_HOME: home,
    MCPX_DAEMON_IDLE_MS: '0',
    MCPX_SHUTDOWN_GRACE_MS: '2000',
    ...settings,
  }
  const logFile = join(temp.path, 'daemon.out')
  const proc = Bun.spawn([...mcpxCommand(), 'daemon', 'run', '--config', configFile], {
    env,
    stdin: 'ignore',
    stdout: Bun.file(logFile),
    stderr: Bun.file(join(temp.path, 'daemon.err')),
  })
  const layout = homeLayout(home, configFile)
  const socket = layout.socket
  const stateFile = layout.state
  for (let i = 0; ; i++) {
    if (existsSync(stateFile)) break
    if (proc.exitCode !== null || i > 600) throw new Error(`daemon did not start: ${readFileSync(join(temp.path, 'daemon.err'), 'utf8')}`)
    await Bun.sleep(50)
  }
  const state = JSON.parse(readFileSync(stateFile, 'utf8')) as { pid: number; tcp: { url: string } }
  const token = readFileSync(layout.token, 'utf8').trim()
  const daemon: DaemonProcess = {
    dir: temp.path,
    env,
    configFile,
    socket,
    pid: state.pid,
    proc,
    mcpUrl: `${state.tcp.url}/mcp`,
    token,
    rssBytes: () => rssOf(state.pid),
    memory: async () =>
      (await (
        await fetch('http://localhost/v1/memory', {
          method: 'POST',
          unix: socket,
          headers: { 'Content-Type': 'application/json' },
          body: '{}',
        })
      ).json()) as { rssBytes: number; heapBytes: number; objects: number },
    async health() {
      try {
        const response = await fetch('http://localhost/v1/health', { unix: socket })
        return response.ok ? ((await response.json()) as { pid: number }) : null
      } catch {
        return null
      }
    },
    log: () =>
      ['daemon.out', 'daemon.err'].map((f) => (existsSync(join(temp.path, f)) ? readFileSync(join(temp.path, f), 'utf8') : '')).join('\n'),
    async [Symbol.asyncDispose]() {
      if (proc.exitCode === null) {
        proc.kill('SIGTERM')
        await Promise.race([proc.exited, Bun.sleep(10_000)])
        if (proc.exitCode === null) proc.kill('SIGKILL')
      }
      temp[Symbol.dispose]()
    },
  }
  return daemon
}

/** Resident set size of a process in bytes (/proc/<pid>/status VmRSS). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
  return kb * 1024
}

// ---- HTTP hosts ----------------------------------------------------------------------------

export interface RpcAnswer {
  readonly status: number
  /** The JSON-RPC messages of the answer (one for JSON; the SSE events' data otherwise). */
  readonly messages: Record<string, unknown>[]
  readonly sessionId?: string
}

/** Parse an HTTP answer: JSON, SSE events, or nothing (202). */
export async function readAnswer(response: Response): Promise<RpcAnswer> {
  const type = response.headers.get('content-type') ?? ''
  const text = await response.text()
  const sessionId = response.headers.get('mcp-session-id') ?? undefined
  let messages: Record<string, unknown>[] = []
  if (type.startsWith('text/event-stream')) {
    messages = text
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trim())
      .filter((data) => data !== '')
      .map((data) => JSON.parse(data) as Record<string, unknown>)
  } else if (text.trim() !== '') {
    const value = JSON.parse(text) as unknown
    messages = (Array.isArray(value) ? value : [value]) as Record<string, unknown>[]
  }
  return { status: response.status, messages, ...(sessionId && { sessionId }) }
}

const MODERN = '2026-07-28'

/** A host on /mcp: a legacy 2025-11-25 session or stateless 2026-07-28 calls. */
export class HttpHost {
  #session?: string

  constructor(
    readonly url: string,
    readonly token: string,
    readonly era: 'legacy' | 'modern',
  ) {}

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      Authorization: `Bearer ${this.token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...(this.era === 'legacy'
        ? { 'MCP-Protocol-Version': '2025-11-25', ...(this.#session && { 'Mcp-Session-Id': this.#session }) }
        : { 'MCP-Protocol-Version': MODERN }),
      ...extra,
    }
  }

  async open(): Promise<void> {
    if (this.era === 'modern') return
    const answer = await readAnswer(
      await fetch(this.url, {
        method: 'POST',
        headers: this.headers(),
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 'init',
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'reliability', version: '1' } },
        }),
      }),
    )
    if (!answer.sessionId) throw new Error(`initialize failed: ${JSON.stringify(answer)}`)
    this.#session = answer.sessionId
    await fetch(this.url, {
      method: 'POST',
      headers: this.headers(),
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    })
  }

  get sessionId(): string | undefined {
    return this.#session
  }

  /** POST one JSON-RPC request and read its answer. */
  async request(
    id: string | number,
    method: string,
    params: Record<string, unknown> = {},
    extraHeaders: Record<string, string> = {},
  ): Promise<RpcAnswer> {
    const body =
      this.era === 'modern'
        ? {
            ...params,
            _meta: {
              [META.PROTOCOL_VERSION]: MODERN,
              [META.CLIENT_CAPABILITIES]: {},
              [META.CLIENT_INFO]: { name: 'reliability', version: '1' },
            },
          }
        : params
    const headers = this.headers(
      this.era === 'modern'
        ? { 'Mcp-Method': method, ...(method === 'tools/call' && { 'Mcp-Name': String(params.name) }), ...extraHeaders }
        : extraHeaders,
    )
    return readAnswer(
      await fetch(this.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id, method, params: body }) }),
    )
  }

  call(id: string | number, tool: string, args: Record<string, unknown>): Promise<RpcAnswer> {
    return this.request(id, 'tools/call', { name: tool, arguments: args })
  }
}

/** The text of a tools/call answer's first content block, or undefined. */
export function textOf(message: Record<string, unknown> | undefined): string | undefined {
  const result = message?.result as { content?: { text?: string }[] } | undefined
  return result?.content?.[0]?.text
}

// ---- stdio hosts (`mcpx serve`) ------------------------------------------------------------

/** A host running `mcpx serve` over stdio: every line it reads is kept, answers found by id. */
export class ServeHost implements AsyncDisposable {
  readonly proc: Bun.Subprocess<'pipe', 'pipe', 'pipe'>
  readonly lines: Record<string, unknown>[] = []
  readonly rawLines: string[] = []
  readonly #waiters = new Map<string, (message: Record<string, unknown>) => void>()
  readonly done: Promise<void>

  constructor(daemon: DaemonProcess, args: string[] = ['--mode', 'raw']) {
    this.proc = Bun.spawn([...mcpxCommand(), 'serve', '--config', daemon.configFile, ...args], {
      env: daemon.env,
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
    })
    void new Response(this.proc.stderr).text()
    this.done = this.#read()
  }

  async #read(): Promise<void> {
    const decoder = new TextDecoder()
    let buffer = ''
    for await (const chunk of this.proc.stdout as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true })
      for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
        const line = buffer.slice(0, newline)
        buffer = buffer.slice(newline + 1)
        if (line.trim() === '') continue
        this.rawLines.push(line)
        let message: Record<string, unknown>
        try {
          message = JSON.parse(line) as Record<string, unknown>
        } catch {
          continue
        }
        this.lines.push(message)
        const key = JSON.stringify(message.id ?? null)
        const waiter = this.#waiters.get(key)
        if (waiter && ('result' in message || 'error' in message)) {
          this.#waiters.delete(key)
          waiter(message)
        }
      }
    }
  }

  /** Write raw bytes (a line, hostile or not). */
  write(bytes: string | Uint8Array): void {
    this.proc.stdin.write(bytes)
    void this.proc.stdin.flush()
  }

  /** Send a request and wait for the answer with its id (resolves undefined if stdout ends first). */
  request(id: string | number, method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown> | undefined> {
    const answered = new Promise<Record<string, unknown> | undefined>((resolve) => {
      this.#waiters.set(JSON.stringify(id), resolve)
      void this.done.then(() => resolve(undefined))
    })
    this.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`)
    return answered
  }

  async initialize(): Promise<void> {
    const answer = await this.request('init', 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'reliability-serve', version: '1' },
    })
    if (!answer || !('result' in answer)) throw new Error(`serve initialize failed: ${JSON.stringify(answer)}`)
    this.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`)
  }

  call(id: string | number, tool: string, args: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
    return this.request(id, 'tools/call', { name: tool, arguments: args })
  }

  /** Answers (result or error) that carry `id`. */
  answersFor(id: string | number): Record<string, unknown>[] {
    return this.lines.filter((m) => JSON.stringify(m.id) === JSON.stringify(id) && ('result' in m || 'error' in m))
  }

  async [Symbol.asyncDispose](): Promise<void> {
    try {
      this.proc.stdin.end()
    } catch {
      // Already closed.
    }
    await Promise.race([this.proc.exited, Bun.sleep(5_000)])
    if (this.proc.exitCode === null) this.proc.kill('SIGKILL')
  }
}

/** Ordinary least squares slope of `values` against their index, relative to their mean (per step). */
export function relativeTrend(values: number[]): number {
  const n = values.length
  const meanX = (n - 1) / 2
  const meanY = values.reduce((a, b) => a + b, 0) / n
  let num = 0
  let den = 0
  values.forEach((y, x) => {
    num += (x - meanX) * (y - meanY)
    den += (x - meanX) ** 2
  })
  return den === 0 ? 0 : num / den / meanY
}
