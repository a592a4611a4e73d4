/**
 * The one place the client builds transports, so connect() stays transport-agnostic and tests can
 * substitute a factory. HTTP transports are the Streamable HTTP end (both eras) and the
 * 2024-11-05 HTTP+SSE end (legacy fallback, 2026-07-28 streamable-http.mdx:721-737).
 */
import type { Settings } from '../settings/index.ts'
import * as transports from '../transport/index.ts'
import type { AuthProvider, Transport, TransportKind } from '../transport/index.ts'
import type { HttpTarget, StdioTarget } from './types.ts'

/** The HTTP end's session controls (legacy Streamable HTTP, TR-29/TR-30). */
export interface SessionControl {
  readonly sessionId?: string
  resetSession(): void
}

export interface TransportFactory {
  stdio(target: StdioTarget, settings: Settings): Transport
  http(kind: Exclude<TransportKind, 'stdio'>, target: HttpTarget, settings: Settings, auth?: AuthProvider): Transport
}

type HttpFactory = (params: { url: string; headers?: Record<string, string>; auth?: AuthProvider }, settings: Settings) => Transport

/** Transports from lib/transport. */
export const defaultTransports: TransportFactory = {
  stdio: (target, settings) => transports.createStdioTransport(target, settings),
  http(kind, target, settings, auth) {
    const room = transports as unknown as Record<string, HttpFactory | undefined>
    const create = kind === 'http+sse' ? room.createSseTransport : room.createHttpTransport
    if (!create) throw new Error(`the ${kind} client transport is not available in this build`)
    return create({ url: target.url, headers: target.headers, auth }, settings)
  },
}

export function sessionControl(transport: Transport): SessionControl | undefined {
  const candidate = transport as Partial<SessionControl>
  return typeof candidate.resetSession === 'function' ? (candidate as SessionControl) : undefined
}
