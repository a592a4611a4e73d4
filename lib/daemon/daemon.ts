/**
 * The long-lived daemon: one per config location (lock), a Unix socket in a 0700 directory and a
 * loopback TCP port (token required; the port chosen once is kept and reused) serving one route
 * table behind one guard, an idle exit, and an ordered graceful shutdown (listeners stop taking
 * clients, hooks run — the pool ends its upstreams — lock released, then the listeners close).
 */
import { chmodSync, rmSync } from 'node:fs'
import type { HomeLayout, McpxConfig } from '../config/index.ts'
import { ensurePrivateDir } from '../config/index.ts'
import { McpxError } from '../errors/index.ts'
import { log } from '../log/index.ts'
import type { Settings } from '../settings/index.ts'
import { HTTP_STATUS, LOOPBACK_ADDRESSES } from '../wire/index.ts'
import { errorResponse, operationRoutes, validateParams } from './api-routes.ts'
import { EventFeed } from './events.ts'
import { HostQuestions } from './host-questions.ts'
import type { ConfigSource } from './config-source.ts'
import { acquireLock } from './lock.ts'
import { API_VERSION, type DaemonInfo, type OperationContext } from './operation-contract.ts'
import { OPERATIONS, findOperation } from './operations.ts'
import type { CodeModeOps, Pool } from './pool-contract.ts'
import { isApiPath, isDiscoveryPath, noRouteResponse, rejectionResponse } from './refusals.ts'
import { type Route, RequestRoute, matchRoute, targetOf } from './routes.ts'
import { type ListenerKind, checkRequest, listSetting } from './security.ts'
import { keptPort, writePrivate, writeState } from './state-files.ts'
import { ensureToken } from './token.ts'
import { startIdleTrim } from './idle-trim.ts'
import { BODY_LIMIT_ENFORCED_BY_MCPX, type IdleControl, idleTimeoutSeconds, idleTimeouts as idleTimeoutsOf } from '../server/index.ts'
import { BUILD_HEADER, thisBuild } from './build.ts'

export interface DaemonOptions {
  readonly settings: Settings
  readonly config: McpxConfig
  readonly layout: HomeLayout
  readonly version: string
  /** The upstream pool, built by the caller (gateway.ts builds the gateway's; a test builds one over its own servers). */
  readonly pool: Pool
  /** Code mode over that pool (mcpx search|types|exec), when the caller runs it; closed at shutdown after the pool. */
  readonly codeMode?: CodeModeOps & { close?(): Promise<void> }
  /** Install SIGTERM/SIGINT/SIGHUP handlers that shut the daemon down (the foreground `run`). */
  readonly handleSignals?: boolean
  /** OAuth on /mcp (mcp-auth.ts): paths that authenticate TCP callers themselves. */
  readonly authenticatesItself?: (pathname: string) => boolean
  /** The config as followed on disk; /v1 operations see its latest version (config-source.ts). */
  readonly configSource?: ConfigSource
  /** Where `${VAR}` values come from, for /v1/health (names and sources, never values). */
  readonly environment?: () => NonNullable<DaemonInfo['environment']>
}

export type ShutdownHook = (reason: string) => void | Promise<void>

export interface Daemon {
  info(): DaemonInfo
  readonly pool: Pool
  readonly events: EventFeed
  /** Questions to the CLIs, shared by /v1 and the in-process `mcpx_<op>` tools so /v1/answer reaches either. */
  readonly questions: HostQuestions
  /** Add a route (e.g. the gateway's /mcp handler) behind the same guard as /v1. */
  mount(route: Route): void
  /**
   * Run a /v1 operation in-process, validated like an HTTP call: what the MCP `mcpx_<op>` tools
   * call. Stream operations (events) are HTTP-only.
   */
  invoke(name: string, params?: Record<string, unknown>, signal?: AbortSignal): Promise<unknown>
  /** Count a long-lived connection (a `serve` channel) as activity until the release is called: no idle exit meanwhile. */
  hold(): () => void
  /** Note traffic on a held connection (channel bytes): the idle trim (idle-trim.ts) waits for a quiet period. */
  noteActivity(): void
  /** Run during shutdown, after listeners stop taking clients and before the lock is released. */
  onShutdown(hook: ShutdownHook): void
  shutdown(reason: string): Promise<void>
  /** Settles with the shutdown reason once both listeners are closed. */
  readonly closed: Promise<string>
}

/** Linux sun_path is 108 bytes including the terminating NUL (unix(7)); macOS allows 104. */
const MAX_SOCKET_PATH_BYTES = 103
/** A daemon is never a development server: no error pages, no development-mode checks per request. */
const PRODUCTION = { development: false } as const

export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const { layout } = options
  checkTokenSetting(options.settings)
  if (Buffer.byteLength(layout.socket) > MAX_SOCKET_PATH_BYTES) {
    throw new McpxError(
      'CONFIG',
      `socket path ${layout.socket} is longer than ${MAX_SOCKET_PATH_BYTES} bytes; set MCPX_HOME to a shorter directory`,
      { socket: layout.socket },
    )
  }
  // The home and everything mcpx creates in it are 0700 whatever the umask; the run directory's
  // mode is the Unix socket's access control.
  ensurePrivateDir(layout.home)
  ensurePrivateDir(layout.runDir)
  ensurePrivateDir(layout.logDir)
  const lock = acquireLock(layout.lock)
  try {
    return await listen(options, lock.release)
  } catch (error) {
    lock.release()
    throw error
  }
}

/** daemonRequireToken=false opens TCP to every local process; never to the network. */
function checkTokenSetting(settings: Settings): void {
  if (settings.daemonRequireToken || LOOPBACK_ADDRESSES.has(settings.daemonAddress)) return
  throw new McpxError('CONFIG', `daemonRequireToken=false is allowed only on a loopback daemonAddress, not ${settings.daemonAddress}`, {
    setting: 'daemonRequireToken',
    address: settings.daemonAddress,
  })
}

async function listen(options: DaemonOptions, releaseLock: () => void): Promise<Daemon> {
  const { settings, layout, config } = options
  // We hold the lock, so any socket file left here belongs to a dead daemon.
  rmSync(layout.socket, { force: true })
  const token = ensureToken(layout.token)
  const events = new EventFeed(settings.daemonEventBufferLength)
  const questions = new HostQuestions(events)
  const pool = options.pool
  pool.on?.((type, data) => events.publish(type, data))
  const codeMode = options.codeMode
  const hooks: ShutdownHook[] = [() => Promise.all([codeMode?.close?.(), pool.close()]).then(() => {})]
  const stopping = new AbortController()
  const startedAt = new Date()
  // Taken now: a binary replaced on disk later is another build than the one running here.
  const build = thisBuild()
  let tcpPort = 0
  let busy = 0
  let lastActive = performance.now()
  let idleTimer: ReturnType<typeof setTimeout> | undefined
  let shutdownPromise: Promise<void> | undefined
  let resolveClosed: (reason: string) => void = () => {}
  const closed = new Promise<string>((resolve) => {
    resolveClosed = resolve
  })

  const address = settings.daemonAddress
  if (!LOOPBACK_ADDRESSES.has(address)) {
    log.warn(
      `daemon TCP listener bound to ${address} (not loopback): ${options.authenticatesItself ? 'it serves /mcp to OAuth access tokens only' : 'every request needs the bearer token'}`,
    )
  }
  const oauth = options.authenticatesItself !== undefined
  // The host hosts reach /mcp by (mcpAuthResource) is a name this daemon answers to.
  const resourceHost =
    settings.mcpAuthResource.trim() === '' ? [] : [new URL(settings.mcpAuthResource).host.replace(/:\d+$/, '').toLowerCase()]
  const policy = {
    token,
    requireToken: settings.daemonRequireToken,
    allowedHosts: new Set([
      ...listSetting(settings.daemonAllowedHosts),
      ...resourceHost,
      ...(LOOPBACK_ADDRESSES.has(address) ? [] : [address.includes(':') ? `[${address}]` : address]),
    ]),
    allowedOrigins: listSetting(settings.daemonAllowedOrigins, false),
    port: () => tcpPort,
    passed: {},
    // A listener reachable from the network takes OAuth tokens only (lib/access); the local token
    // is for the machine's owner, on the socket and loopback.
    ...(oauth && { authenticatesItself: options.authenticatesItself, localTokenOnTcp: LOOPBACK_ADDRESSES.has(address) }),
  }

  // One timer for the idle exit, re-armed only when it fires: requests just count themselves and
  // note when they ended (no timer work on the request path).
  const armIdle = (delayMs: number) => {
    if (settings.daemonIdleMs <= 0 || shutdownPromise !== undefined) return
    idleTimer = setTimeout(() => {
      idleTimer = undefined
      const quietMs = performance.now() - lastActive
      if (busy > 0) armIdle(settings.daemonIdleMs)
      else if (quietMs >= settings.daemonIdleMs) void daemon.shutdown('idle')
      else armIdle(settings.daemonIdleMs - quietMs)
    }, delayMs)
  }
  const noteActivity = () => {
    lastActive = performance.now()
  }
  const trim = startIdleTrim({
    gcAfterMs: settings.daemonIdleGcMs,
    shrinkAfterMs: settings.daemonIdleShrinkMs,
    lastActive: () => lastActive,
    releaseIdle: () =>
      codeMode?.releaseIdleSandboxes?.().catch((e: unknown) => log.warn(`idle sandboxes: ${String(e)}`)) ?? Promise.resolve(),
    pageOutSliceMb: settings.daemonIdlePageOutSliceMb,
    onPageOut: (report) => log.debug(`idle page-out: ${report}`),
    onTrim: (stage, ms) => log.debug(`idle trim: ${stage} in ${ms.toFixed(1)} ms`),
  })
  const hold = (): (() => void) => {
    busy++
    let released = false
    return () => {
      if (released) return
      released = true
      busy--
      lastActive = performance.now()
    }
  }

  const info = (): DaemonInfo => ({
    ok: true,
    api: API_VERSION,
    version: options.version,
    pid: process.pid,
    startedAt: startedAt.toISOString(),
    uptimeMs: Date.now() - startedAt.getTime(),
    home: layout.home,
    socket: layout.socket,
    tcp: { address, port: tcpPort, url: `http://${address.includes(':') ? `[${address}]` : address}:${tcpPort}` },
    config: options.configSource?.config.source ?? config.source,
    location: layout.config,
    id: layout.id,
    ...(options.configSource?.problem && { configProblem: options.configSource.problem }),
    ...(options.environment && { environment: options.environment() }),
    idleMs: settings.daemonIdleMs,
    servers: pool.servers().length,
    build,
  })

  const contextWith = (signal: AbortSignal, lastEventId: string | null): OperationContext => ({
    pool,
    ...(codeMode && { codeMode }),
    events,
    questions,
    settings,
    info,
    shutdown: (reason) => daemon.shutdown(reason),
    signal: AbortSignal.any([signal, stopping.signal]),
    ...(lastEventId !== null && { lastEventId }),
    holdOpen: hold,
  })
  const contextFor = (request: Request): OperationContext => contextWith(request.signal, request.headers.get('last-event-id'))
  const routes: Route[] = operationRoutes(OPERATIONS, contextFor)

  // Every /v1 answer a caller got past the guard with names this daemon's build, so a CLI from
  // another binary notices on the answer it already gets (build.ts).
  const stamped = (response: Response): Response => {
    try {
      response.headers.set(BUILD_HEADER, build.id)
    } catch {
      // A relayed answer's headers are immutable; it names no build and the CLI does not read it.
    }
    return response
  }
  // The route's answer, or a refusal, without an async frame of its own: serve() below is the one
  // each request runs in.
  const respond = (request: Request, listener: ListenerKind): Response | Promise<Response> => {
    const { pathname, search } = targetOf(request.url)
    const rejection = checkRequest(request, listener, policy, pathname)
    // Discovery paths answer without a token: 404 unless a route (OAuth on /mcp) serves them.
    if (rejection && !(rejection.status === HTTP_STATUS.UNAUTHORIZED && isDiscoveryPath(pathname)))
      return rejectionResponse(rejection, pathname, layout.token)
    if (shutdownPromise !== undefined)
      return rejectionResponse(
        { status: HTTP_STATUS.SERVICE_UNAVAILABLE, code: 'CONNECT', message: 'the mcpx daemon is stopping' },
        pathname,
        layout.token,
      )
    const match = matchRoute(routes, request.method, pathname)
    if ('status' in match) return noRouteResponse(match, request.method, pathname)
    const context = new RequestRoute(listener, match.params, pathname, search, request)
    if (!isApiPath(pathname)) return match.route.handle(request, context)
    // /v1 answers reflect the config on disk as of now (an edit just made is applied first).
    const checked = options.configSource?.check()
    return checked
      ? checked.then(async () => stamped(await match.route.handle(request, context)))
      : Promise.resolve(match.route.handle(request, context)).then(stamped)
  }
  const idleTimeouts = idleTimeoutsOf(settings)
  const serve = async (request: Request, server: IdleControl, listener: ListenerKind): Promise<Response> => {
    const answering = listener === 'tcp' ? idleTimeouts?.begin(request, server) : undefined
    // What hold() does, inline: every request counts itself, without a release closure of its own.
    busy++
    let response: Response
    try {
      response = await respond(request, listener)
    } catch (error) {
      response = stamped(errorResponse(error))
    } finally {
      busy--
      lastActive = performance.now()
    }
    return answering ? idleTimeouts!.end(answering, response) : response
  }

  // TCP: idle sockets and stalled bodies close after httpIdleTimeoutMs; answers being worked on and
  // event streams are exempt (server/http/timeouts.ts). The Unix socket keeps no idle timeout: Bun
  // honours one there but cannot lift it per request (server.timeout is a no-op on a Unix listener),
  // so a call or catalog slower than it would be cut off mid-answer. A body that trickles is still
  // bounded by httpBodyTimeoutMs, and only this user can connect (the socket is 0600).
  // (bun-types declare idleTimeout for TCP only, hence the untyped option objects.)
  const idle: object = { idleTimeout: idleTimeoutSeconds(settings), ...BODY_LIMIT_ENFORCED_BY_MCPX }
  const noIdle: object = { idleTimeout: 0, ...BODY_LIMIT_ENFORCED_BY_MCPX }
  const unixServer = Bun.serve({
    unix: layout.socket,
    fetch: (request, server) => serve(request, server, 'unix'),
    ...noIdle,
    ...PRODUCTION,
  })
  chmodSync(layout.socket, 0o600)
  let tcpServer: ReturnType<typeof Bun.serve>
  const serveTcp = (port: number) =>
    Bun.serve({ hostname: address, port, fetch: (request, server) => serve(request, server, 'tcp'), ...idle, ...PRODUCTION })
  // A set daemonPort wins; else the port kept from the last start, when it is still free; else any.
  const kept = settings.daemonPort === 0 ? keptPort(layout) : null
  try {
    try {
      tcpServer = serveTcp(settings.daemonPort || (kept ?? 0))
    } catch (error) {
      if (kept === null) throw error
      log.warn(`daemon port ${kept} (kept in ${layout.port}) is taken; choosing another`)
      tcpServer = serveTcp(0)
    }
  } catch (error) {
    void unixServer.stop(true)
    rmSync(layout.socket, { force: true })
    throw new McpxError(
      'CONNECT',
      `daemon could not listen on ${address}:${settings.daemonPort}: ${(error as Error).message}`,
      { address, port: settings.daemonPort },
      { cause: error },
    )
  }
  tcpPort = tcpServer.port ?? 0
  if (settings.daemonPort === 0) writePrivate(layout.port, `${tcpPort}\n`)
  writeState(layout, info())

  const onSignal = (signal: NodeJS.Signals) => void daemon.shutdown(signal)
  const signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP']
  if (options.handleSignals) for (const signal of signals) process.on(signal, onSignal)

  const daemon: Daemon = {
    info,
    pool,
    events,
    questions,
    mount(route) {
      routes.push(route)
    },
    hold,
    noteActivity,
    async invoke(name, params = {}, signal = new AbortController().signal) {
      const operation = findOperation(name)
      if (operation.stream)
        throw new McpxError('USAGE', `${name} is a stream; read it over HTTP (${operation.method} ${operation.path})`, { operation: name })
      const release = hold()
      try {
        return await operation.handler(validateParams(operation, params), contextWith(signal, null))
      } finally {
        release()
      }
    },
    onShutdown(hook) {
      hooks.push(hook)
    },
    shutdown(reason) {
      shutdownPromise ??= (async () => {
        if (idleTimer) clearTimeout(idleTimer)
        trim.stop()
        log.info(`mcpx daemon stopping (${reason})`)
        events.publish('daemon.stopping', { reason })
        // New clients can no longer find or reach us; requests in flight are answered below.
        rmSync(layout.socket, { force: true })
        rmSync(layout.channelSocket, { force: true })
        rmSync(layout.state, { force: true })
        const listenersStopped = Promise.all([unixServer.stop(false), tcpServer.stop(false)])
        stopping.abort(new McpxError('CANCELLED', `daemon stopping (${reason})`))
        for (const hook of hooks.reverse()) {
          try {
            await hook(reason)
          } catch (error) {
            log.error(`shutdown hook failed: ${(error as Error).message}`)
          }
        }
        releaseLock()
        if (options.handleSignals) for (const signal of signals) process.off(signal, onSignal)
        // Let the answer to /v1/shutdown go out, then close both listeners.
        // A stream nobody ends (a host's open GET) must not keep the process alive: bounded, then forced.
        setImmediate(() => {
          let timer: ReturnType<typeof setTimeout> | undefined
          void Promise.race([listenersStopped, new Promise((resolve) => (timer = setTimeout(resolve, settings.shutdownGraceMs)))])
            .then(() => (clearTimeout(timer), Promise.all([unixServer.stop(true), tcpServer.stop(true)])))
            .then(() => resolveClosed(reason))
        })
      })()
      return shutdownPromise
    },
    closed,
  }

  events.publish('daemon.started', { pid: process.pid, socket: layout.socket, port: tcpPort })
  log.info(`mcpx daemon listening on ${layout.socket} and ${info().tcp.url} (pid ${process.pid})`)
  armIdle(settings.daemonIdleMs)
  return daemon
}
