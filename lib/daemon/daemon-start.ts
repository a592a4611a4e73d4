/**
 * Starting the daemon on demand, for its client: only one client at a time starts it (the holder of
 * the start lock spawns), every other waits for that daemon to answer; a daemon started by hand, or
 * one still stopping, holds the daemon lock and is served from or waited out.
 */
import { mkdirSync } from 'node:fs'
import { ensurePrivateDir, type HomeLayout } from '../config/index.ts'
import { McpxError } from '../errors/index.ts'
import type { ConnectRetry } from './connect.ts'
import { acquireLock, type Lock } from './lock.ts'
import type { DaemonInfo } from './operation-contract.ts'

/** How to start the daemon (DaemonClientOptions.start). */
export interface DaemonStartOptions {
  readonly argv: readonly string[]
  readonly timeoutMs: number
  readonly logMaxBytes: number
  readonly env: Readonly<Record<string, string | undefined>>
  /** Let the daemon's JavaScriptCore use its FTL tier (setting daemonFtlJit); spawn.ts. */
  readonly ftlJit?: boolean
}

/** How often a waiting client looks whether the starter's daemon answers, without connectRetry. */
const START_POLL_MS = 50

/**
 * The info of the daemon that answers once one was started, by this client or another. `health`
 * is the client's probe (null while nothing answers).
 */
export async function startDaemonOnce(
  layout: HomeLayout,
  start: DaemonStartOptions,
  connectRetry: ConnectRetry | undefined,
  health: () => Promise<DaemonInfo | null>,
): Promise<DaemonInfo> {
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
  let wait = connectRetry?.backoffMs ?? START_POLL_MS
  for (;;) {
    const lock = tryLock(layout.startLock)
    if (lock) {
      try {
        // Another starter may have finished between our health check and taking the lock.
        const running = await health()
        if (running) return running
        // node:child_process and the spawner load only when a daemon must be started.
        const { spawnDaemon } = await import('./spawn.ts')
        return await spawnDaemon({
          argv: start.argv,
          layout,
          timeoutMs: start.timeoutMs,
          logMaxBytes: start.logMaxBytes,
          env: start.env,
          ...(start.ftlJit !== undefined && { ftlJit: start.ftlJit }),
        })
      } catch (error) {
        // The daemon lock is held: another daemon (started by hand, or one still stopping) owns
        // it. Serve from it if it answers; otherwise wait below until it is gone.
        if (!(error instanceof McpxError && error.data?.pid !== undefined)) throw error
        const winner = await health()
        if (winner) return winner
      } finally {
        lock.release()
      }
    }
    await Bun.sleep(wait)
    wait = Math.min(wait * 2, connectRetry?.backoffMaxMs ?? START_POLL_MS)
    const started = await health()
    if (started) return started
    if (performance.now() > deadline)
      throw new McpxError(
        'TIMEOUT',
        `another mcpx client was starting the daemon and it did not answer within ${start.timeoutMs} ms (lock ${layout.startLock}, log ${layout.daemonLog})`,
        { lock: layout.startLock },
      )
  }
}

/** The lock at `path`, or undefined when a live process holds it. */
function tryLock(path: string): Lock | undefined {
  try {
    return acquireLock(path)
  } catch (error) {
    if (error instanceof McpxError && error.data?.pid !== undefined) return undefined
    throw error
  }
}
