/**
 * Where the CLI's client finds the daemon of one config location: the socket, or the loopback port
 * from daemon.json (state-files.ts) plus the token file; and what "nobody answers there" becomes
 * (one CONNECT error saying how to start it). A connect a busy daemon refused is retried (connect.ts).
 */
import type { HomeLayout } from '../config/index.ts'
import { McpxError } from '../errors/index.ts'
import { type ConnectRetry, errorCode, retryWhileBusy } from './connect.ts'
import { readState } from './state-files.ts'
import { readToken } from './token.ts'

export interface Endpoint {
  readonly base: string
  readonly init: RequestInit & { unix?: string }
}

/** How the client reaches the daemon: 'unix' (default) the socket; 'tcp' the loopback port and the bearer token. */
export type DaemonVia = 'unix' | 'tcp'

export function endpointOf(layout: HomeLayout, via: DaemonVia | undefined): Endpoint {
  if (via !== 'tcp') return { base: 'http://localhost', init: { unix: layout.socket } }
  const state = readState(layout)
  const token = readToken(layout.token)
  if (state === null || token === null) throw unreachable(layout)
  return { base: state.tcp.url, init: { headers: { Authorization: `Bearer ${token}` } } }
}

/** A socket or port with nobody behind it is the daemon not running, said once, with how to start it. */
export async function reachDaemon<T>(
  target: { readonly layout: HomeLayout; readonly via?: DaemonVia; readonly connectRetry?: ConnectRetry },
  signal: AbortSignal | undefined,
  run: () => Promise<T>,
): Promise<T> {
  const retry = target.connectRetry
  try {
    if (retry === undefined || target.via === 'tcp') return await run()
    return await retryWhileBusy(run, target.layout, target.layout.socket, retry, signal)
  } catch (error) {
    // The caller's own deadline or abort, not the daemon's absence (ofetch wraps the reason).
    if (signal?.aborted) throw signal.reason ?? error
    // Connected, then cut off before the answer: the daemon is (or was) there; it stopped or crashed.
    if (errorCode(error) === 'ECONNRESET') throw closedMidRequest(target.layout, error)
    throw unreachable(target.layout, error)
  }
}

function closedMidRequest(layout: HomeLayout, cause: unknown): McpxError {
  return new McpxError(
    'CONNECT',
    `the mcpx daemon closed the connection before answering (on ${layout.socket}): it stopped or crashed mid-request; \`mcpx logs -n 20\` says which`,
    { daemon: 'closed', socket: layout.socket },
    { cause },
  )
}

export function unreachable(layout: HomeLayout, cause?: unknown): McpxError {
  return new McpxError(
    'CONNECT',
    `the mcpx daemon is not running (no answer on ${layout.socket}); start it with \`mcpx daemon start\``,
    { daemon: 'unreachable', socket: layout.socket },
    { cause },
  )
}
