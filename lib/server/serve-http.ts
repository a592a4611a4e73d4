/**
 * Serve an engine over Streamable HTTP with Bun.serve on one path (default `/mcp`). Idle sockets
 * and stalled bodies are closed by httpIdleTimeoutMs; long calls and SSE streams are exempt
 * (http/timeouts.ts): streams are kept alive by SSE comment lines (clients MUST NOT treat them as malformed) and ended by the engine.
 */
import type { Settings } from '../settings/index.ts'
import type { Engine } from './engine.ts'
import { createHttpHandler } from './http/handler.ts'
import type { OriginPolicy } from './http/origin.ts'
import { BODY_LIMIT_ENFORCED_BY_MCPX, idleTimeoutSeconds, withIdleTimeouts } from './http/timeouts.ts'
import { LOOPBACK_BIND_ADDRESS, HTTP_STATUS } from '../wire/index.ts'

export interface ServeHttpOptions {
  port?: number
  /** Default 127.0.0.1 (running locally, servers SHOULD bind only to loopback: basic/transports.mdx "Security Warning"). */
  hostname?: string
  path?: string
  origin?: Omit<OriginPolicy, 'port'>
}

export interface HttpServer extends AsyncDisposable {
  readonly url: string
  readonly port: number
  close(): Promise<void>
}

export function serveHttp(engine: Engine, settings: Settings, options: ServeHttpOptions = {}): HttpServer {
  const path = options.path ?? '/mcp'
  const hostname = options.hostname ?? LOOPBACK_BIND_ADDRESS
  let handler: ReturnType<typeof createHttpHandler> | undefined
  const server = Bun.serve({
    port: options.port ?? 0,
    hostname,
    idleTimeout: idleTimeoutSeconds(settings),
    ...BODY_LIMIT_ENFORCED_BY_MCPX,
    development: false,
    fetch: withIdleTimeouts(settings, (request) => {
      if (new URL(request.url).pathname !== path) return new Response('Not Found', { status: HTTP_STATUS.NOT_FOUND })
      return handler!.fetch(request)
    }),
  })
  const port = server.port as number
  handler = createHttpHandler({ engine, settings, origin: { ...options.origin, port } })
  const close = async () => {
    // Stop accepting, answer (or fail) every request in flight, then end sessions and streams.
    const stopped = server.stop(false)
    await engine.drain(settings.shutdownGraceMs)
    handler?.close()
    await engine.close()
    // Let ended streams flush their last events (a listen stream's closing result), then force.
    let timer: ReturnType<typeof setTimeout> | undefined
    await Promise.race([stopped, new Promise((resolve) => (timer = setTimeout(resolve, settings.shutdownGraceMs)))])
    clearTimeout(timer)
    await server.stop(true)
  }
  return { url: `http://${hostname}:${port}${path}`, port, close, [Symbol.asyncDispose]: close }
}
