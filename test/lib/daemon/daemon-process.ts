/**
 * Test helpers: a real mcpx daemon (the CLI, `daemon start`) in an isolated MCPX_HOME, stopped on
 * dispose; a foreground `daemon run` whose readiness is its "listening" log line; raw HTTP over TCP
 * for replaying browser requests byte for byte.
 */
import { readFileSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import type { HomeLayout } from '../../../lib/config/index.ts'
import { layoutForEnv } from '../../support/layout.ts'
import type { DaemonInfo } from '../../../lib/daemon/index.ts'
import { mcpxCommand, REPO_ROOT, runMcpx, tempDir } from '../../harness.ts'

export interface RunningDaemon {
  readonly info: DaemonInfo
  readonly layout: HomeLayout
  readonly env: Record<string, string>
  readonly token: string
  /** fetch over the Unix socket. */
  unix(path: string, init?: RequestInit): Promise<Response>
  /** fetch over loopback TCP, with the bearer token unless `token: null`. */
  tcp(path: string, init?: RequestInit & { token?: string | null }): Promise<Response>
  [Symbol.asyncDispose](): Promise<void>
}

export async function startTestDaemon(extraEnv: Record<string, string> = {}): Promise<RunningDaemon> {
  const dir = tempDir('mcpx-daemon')
  const env = { MCPX_HOME: join(dir.path, 'home'), HOME: dir.path, XDG_CONFIG_HOME: join(dir.path, 'xdg'), ...extraEnv }
  const started = await runMcpx(['daemon', 'start', '--json'], { env })
  if (started.exitCode !== 0) {
    dir[Symbol.dispose]()
    throw new Error(`daemon start failed (${started.exitCode}): ${started.stderr}`)
  }
  const info = JSON.parse(started.stdout) as DaemonInfo
  const layout = layoutForEnv(env)
  const token = readFileSync(layout.token, 'utf8').trim()
  return {
    info,
    layout,
    env,
    token,
    unix: (path, init = {}) => fetch(`http://localhost${path}`, { ...init, unix: layout.socket } as RequestInit),
    tcp: (path, init = {}) => {
      const headers = new Headers(init.headers)
      const bearer = init.token === undefined ? token : init.token
      if (bearer !== null && !headers.has('authorization')) headers.set('Authorization', `Bearer ${bearer}`)
      return fetch(`${info.tcp.url}${path}`, { ...init, headers })
    },
    async [Symbol.asyncDispose]() {
      await runMcpx(['daemon', 'stop'], { env })
      try {
        process.kill(info.pid, 'SIGKILL')
      } catch {
        // already gone: the normal case
      }
      dir[Symbol.dispose]()
    },
  }
}

/** `mcpx daemon run` in the foreground; resolves once its stderr says it listens. */
export async function runForeground(env: Record<string, string>) {
  const proc = Bun.spawn([...mcpxCommand(), 'daemon', 'run'], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const reader = proc.stderr.getReader()
  const decoder = new TextDecoder()
  let stderr = ''
  while (!stderr.includes('listening on')) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`daemon run exited before listening: ${stderr}`)
    stderr += decoder.decode(value)
  }
  reader.releaseLock()
  return proc
}

/** Send raw bytes to 127.0.0.1:port and return the status line and body of the answer. */
export function rawHttp(port: number, request: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let text = ''
    socket.on('data', (chunk) => {
      text += String(chunk)
    })
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text }))
    socket.on('error', reject)
    socket.write(request)
  })
}
