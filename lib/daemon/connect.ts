/**
 * Telling a daemon that is not running from one that is busy, and riding out the busy case.
 * Bun 1.4.5 keeps every Unix listen backlog at 512 whatever is asked, so a burst of clients makes
 * connect(2) fail with EAGAIN — which Bun reports as ECONNREFUSED (verified with strace: the kernel
 * said EAGAIN, the error says ECONNREFUSED -111). The error code alone therefore cannot decide;
 * the lock does: a refused connect while the lock's owner is alive (and not a zombie) and its socket
 * file exists is back-pressure, retried with backoff within the deadline. Only the connect is ever
 * retried: a refused connect wrote nothing, so nothing can run twice.
 */
import { existsSync } from 'node:fs'
import type { HomeLayout } from '../config/index.ts'
import { liveOwner } from './lock.ts'

export type ConnectFailure = 'absent' | 'busy'

export interface ConnectRetry {
  /** Give up retrying a busy daemon after this long (the request's deadline). */
  readonly deadlineMs: number
  readonly backoffMs: number
  readonly backoffMaxMs: number
}

const CONNECT_CODES = new Set(['ECONNREFUSED', 'EAGAIN', 'EWOULDBLOCK'])
const ABSENT_CODES = new Set(['ENOENT', 'ENOTDIR'])

/** The errno-style code of a connect failure, looking through wrappers (ofetch, AggregateError). */
export function errorCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string') return code
  }
  return undefined
}

/** Why a connect to `socket` failed, or undefined when the error is not a failed connect. */
export function connectFailure(error: unknown, layout: HomeLayout, socket: string): ConnectFailure | undefined {
  const code = errorCode(error)
  if (code === undefined) return undefined
  if (ABSENT_CODES.has(code)) return 'absent'
  if (!CONNECT_CODES.has(code)) return undefined
  return liveOwner(layout.lock) !== null && existsSync(socket) ? 'busy' : 'absent'
}

/** Run `attempt` (one connect and what follows it), retrying while the daemon is busy. */
export async function retryWhileBusy<T>(
  attempt: () => Promise<T>,
  layout: HomeLayout,
  socket: string,
  retry: ConnectRetry,
  signal?: AbortSignal,
): Promise<T> {
  const deadline = performance.now() + retry.deadlineMs
  let wait = retry.backoffMs
  for (;;) {
    try {
      return await attempt()
    } catch (error) {
      if (signal?.aborted || performance.now() + wait > deadline || connectFailure(error, layout, socket) !== 'busy') throw error
    }
    // Jitter spreads a burst of clients over the window instead of retrying in lockstep.
    await Bun.sleep(wait * (0.5 + Math.random() / 2))
    wait = Math.min(wait * 2, retry.backoffMaxMs)
  }
}
