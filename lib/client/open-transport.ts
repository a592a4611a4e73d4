/**
 * The one place the client builds transports, so connect() stays transport-agnostic and tests can
 * substitute a factory. HTTP transports are the Streamable HTTP end (both eras) and the
 * 2024-11-05 HTTP+SSE end (legacy fallback, 2026-07-28 basic/transports/streamable-http.mdx "HTTP+SSE Transport").
 */
import type { Settings } from '../settings/index.ts'
import { type AuthProvider, type Transport, type TransportKind, createStdioTransport } from '../transport/index.ts'
import type { HttpTarget, StdioTarget } from './connect-options.ts'

/**
 * The HTTP end's session controls (legacy Streamable HTTP only: after a 404 the client re-initializes without the id;
 * 2026 has no sessions, so a modern client sends none).
 */
export interface SessionControl {
  readonly sessionId?: string
  resetSession(): void
  /** A new session started: the standalone GET stream, if one was open, follows it (legacy Streamable HTTP). */
  renewListenStream?(): void
  /** The standalone GET stream found the session refused while nothing was asked. */
  onSessionRefused?(listener: () => void): void
}

/** What connect() hands the stdio factory: the target plus the environment the child inherits. */
export type StdioLaunch = StdioTarget & { parentEnv?: Readonly<Record<string, string | undefined>> }

export interface TransportFactory {
  stdio(target: StdioLaunch, settings: Settings): Transport
  http(kind: Exclude<TransportKind, 'stdio'>, target: HttpTarget, settings: Settings, auth?: AuthProvider): Transport
}

/** Transports from lib/transport. */
export const defaultTransports: TransportFactory = {
  stdio: (target, settings) => createStdioTransport(target, settings),
  http(kind, target, settings, auth) {
    const params = { url: target.url, headers: target.headers, auth }
    const { createHttpTransport, createSseTransport } = require('./http-transports.ts') as typeof import('./http-transports.ts')
    return kind === 'http+sse' ? createSseTransport(params, settings) : createHttpTransport(params, settings)
  },
}

export function sessionControl(transport: Transport): SessionControl | undefined {
  const candidate = transport as Partial<SessionControl>
  return typeof candidate.resetSession === 'function' ? (candidate as SessionControl) : undefined
}
