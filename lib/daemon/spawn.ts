/**
 * Starting the daemon in the background: spawn `mcpx daemon run --ready-fd 3` detached (own
 * session, output appended to the daemon log) and wait for the one JSON line it writes on fd 3 —
 * its /v1/health info once both listeners are up, or the error that stopped it. No polling.
 */
import { spawn } from 'node:child_process'
import { closeSync, openSync, readFileSync, renameSync, statSync } from 'node:fs'
import { type HomeLayout, ensurePrivateDir } from '../config/index.ts'
import { McpxError, type ErrorCode } from '../errors/index.ts'
import type { DaemonInfo } from './operation-contract.ts'

/** The fd number the child reports readiness on (stdin, stdout, stderr, then this). */
const READY_FD = 3
const LOG_TAIL_BYTES = 2_000

export interface SpawnOptions {
  /** argv of `mcpx daemon run` (plus flags such as --config); `--ready-fd 3` is appended. */
  readonly argv: readonly string[]
  readonly layout: HomeLayout
  readonly timeoutMs: number
  /** Rotate the log to `.1` first when it has grown past this. */
  readonly logMaxBytes: number
  /** The daemon's environment: its starter's (the CLI context's: cli/context.ts alone reads the environment). */
  readonly env: Readonly<Record<string, string | undefined>>
  /** Let the daemon use JavaScriptCore's FTL tier (setting daemonFtlJit); default: not. */
  readonly ftlJit?: boolean
}

/**
 * The JavaScriptCore option Bun reads from the environment at start (`BUN_JSC_<option>`). The
 * daemon's per-call code is promise plumbing and I/O: measured over 10,000 and 30,000 calls, its
 * CPU per call was no higher with FTL off (lower, as it no longer pays for FTL compiles), and it
 * held about 2 MB less (B3/Air code pages and their allocations; README "Start-up and memory").
 * Upstreams do not inherit it (they get the baseline variables only, lib/config/environment.ts);
 * neither do the code-mode sandboxes (an empty environment).
 */
const FTL_VARIABLE = 'BUN_JSC_useFTLJIT'

/** `env` with FTL off unless asked for or already set. */
export function spawnEnvironment(options: Pick<SpawnOptions, 'env' | 'ftlJit'>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...options.env }
  if (options.ftlJit !== true && env[FTL_VARIABLE] === undefined) env[FTL_VARIABLE] = '0'
  return env
}

export async function spawnDaemon(options: SpawnOptions): Promise<DaemonInfo> {
  ensurePrivateDir(options.layout.home)
  ensurePrivateDir(options.layout.logDir)
  rotateLog(options.layout.daemonLog, options.logMaxBytes)
  const logFd = openSync(options.layout.daemonLog, 'a', 0o600)
  const [command, ...args] = options.argv
  const child = spawn(command!, [...args, '--ready-fd', String(READY_FD)], {
    detached: true,
    stdio: ['ignore', logFd, logFd, 'pipe'],
    env: spawnEnvironment(options) as NodeJS.ProcessEnv,
  })
  closeSync(logFd)
  const ready = child.stdio[READY_FD]!
  let text = ''
  ready.on('data', (chunk) => {
    text += String(chunk)
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const spawnError = new Promise<never>((_, reject) =>
    child.once('error', (error) =>
      reject(new McpxError('CONNECT', `could not start the daemon (${command}): ${error.message}`, undefined, { cause: error })),
    ),
  )
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), options.timeoutMs)
  })
  const ended = new Promise<'ended'>((resolve) => ready.once('close', () => resolve('ended')))
  try {
    const outcome = await Promise.race([ended, timeout, spawnError])
    if (outcome === 'timeout') {
      child.kill('SIGTERM')
      throw new McpxError('TIMEOUT', `the daemon did not start within ${options.timeoutMs} ms (log: ${options.layout.daemonLog})`, {
        log: options.layout.daemonLog,
      })
    }
    const line = text.trim()
    if (line === '') {
      await exited
      throw new McpxError(
        'CONNECT',
        `the daemon exited before listening (code ${child.exitCode}); log tail:\n${logTail(options.layout.daemonLog)}`,
        { log: options.layout.daemonLog },
      )
    }
    const message = JSON.parse(line) as { info?: DaemonInfo; error?: { code: ErrorCode; message: string; data?: Record<string, unknown> } }
    if (message.error) throw new McpxError(message.error.code, message.error.message, message.error.data)
    return message.info!
  } finally {
    if (timer) clearTimeout(timer)
    ready.destroy()
    child.unref()
  }
}

function rotateLog(path: string, maxBytes: number): void {
  try {
    if (statSync(path).size > maxBytes) renameSync(path, `${path}.1`)
  } catch {
    // No log yet.
  }
}

function logTail(path: string): string {
  try {
    const text = readFileSync(path, 'utf8')
    return text.slice(-LOG_TAIL_BYTES).trim()
  } catch {
    return '(no log)'
  }
}
