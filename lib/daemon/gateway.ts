/**
 * The daemon as mcpx runs it: the listeners and /v1 of startDaemon, the gateway's connecting pool (the
 * one the daemon serves), and /mcp (Streamable HTTP, every era) on the same listeners
 * behind the same guard. /mcp serves the default surface; `?codemode=false` the raw surface and
 * `?passthrough=<server>` one upstream as itself — read per request, so one host can use both.
 */
import { join } from 'node:path'
import { type AccessPolicy, type AuditLog, OPEN_POLICY, type Principal, createAccessView, createAuditLog } from '../access/index.ts'
import { createSchemaValidator } from '../schema/index.ts'
import { CodeMode, GatewaySurface, type SurfaceMode, UpstreamPool } from '../gateway/index.ts'
import { McpxError, RPC, asMcpxError } from '../errors/index.ts'
import { log } from '../log/index.ts'
import { SETTINGS } from '../settings/index.ts'
import { createHttpHandler, type HttpHandler } from '../server/index.ts'
import { listenChannel } from './channel.ts'
import { httpStatusOf, jsonResponse } from './api-routes.ts'
import { type Daemon, type DaemonOptions, startDaemon } from './daemon.ts'
import { HEADER, HTTP_STATUS, LOOPBACK_ADDRESSES } from '../wire/index.ts'
import type { McpAuth } from './mcp-auth.ts'
import { followConfigNotices } from './config-notices.ts'
import { pageOutLater } from './idle-trim.ts'
import { readToken } from './token.ts'
import { operationTools } from './mcp-tools.ts'
import { upstreamConnectOptions } from './upstream-auth.ts'
import type { RouteContext } from './routes.ts'

export interface GatewayDaemonOptions extends Omit<DaemonOptions, 'pool' | 'codeMode'> {
  /** Default /mcp surface (setting `mcpMode`); `passthrough` needs `passthrough`. */
  readonly mode?: SurfaceMode
  readonly passthrough?: string
  /** argv of a sandbox child for mcpx_exec (default: this program's hidden `sandbox-child`). */
  readonly sandboxCommand?: string[]
  /** Environment stdio upstreams inherit (lib/config/environment.ts: the baseline variables); default none. */
  readonly parentEnv?: Readonly<Record<string, string | undefined>> | (() => Readonly<Record<string, string | undefined>>)
}

export const MCP_PATH = '/mcp'

/** The surfaces a request or `--mode` may name: the values setting mcpMode takes (one list, the registry's). */
const REQUESTABLE_MODES = SETTINGS.mcpMode.oneOf as readonly SurfaceMode[]

export function parseMode(value: string, source: string): SurfaceMode {
  if ((REQUESTABLE_MODES as readonly string[]).includes(value)) return value as SurfaceMode
  throw new McpxError('USAGE', `${source} must be one of ${REQUESTABLE_MODES.join(', ')}, got "${value}"`, { mode: value })
}

/**
 * /mcp's query names no surface it can serve (an unknown pass-through server, a bad mode): a
 * JSON-RPC error with no id, as the endpoint's other transport-level refusals are (2025-11-25
 * basic/transports.mdx), not the /v1 API's error shape an MCP client cannot read.
 */
function surfaceRefused(error: unknown): Response {
  const refusal = asMcpxError(error)
  const data = { ...refusal.data, mcpxCode: refusal.code }
  return jsonResponse({ jsonrpc: '2.0', error: { code: RPC.INVALID_REQUEST, message: refusal.message, data } }, httpStatusOf(refusal.code))
}

export async function startGatewayDaemon(options: GatewayDaemonOptions): Promise<Daemon> {
  // Setting mcpPassthrough: /mcp itself is the pass-through surface (clients that drop the query string).
  const passthroughSetting = options.settings.mcpPassthrough.trim() || undefined
  if (passthroughSetting && !(passthroughSetting in options.config.servers)) {
    throw new McpxError('CONFIG', `setting mcpPassthrough names "${passthroughSetting}", which is not a configured server`, {
      setting: 'mcpPassthrough',
      server: passthroughSetting,
    })
  }
  const source = options.configSource
  // The pool and code mode over it are built here, side by side; the daemon serves them.
  const upstreams = new UpstreamPool({
    config: source?.config ?? options.config,
    settings: options.settings,
    cacheDir: options.layout.cacheDir,
    validator: createSchemaValidator(options.settings),
    connectOptions: upstreamConnectOptions({
      settings: options.settings,
      home: options.layout.home,
      ...(options.parentEnv !== undefined && { parentEnv: options.parentEnv }),
    }),
  })
  const codeMode = new CodeMode(upstreams, options.settings, options.sandboxCommand ? { sandboxCommand: options.sandboxCommand } : {})
  let daemon!: Daemon
  let localToken: string | undefined
  // OAuth on /mcp (lib/access): null unless setting mcpAuthIssuer is set; only then does mcp-auth.ts load,
  // and with it the resource server and jose.
  const mcpAuth: McpAuth | null =
    options.settings.mcpAuthIssuer.trim() === ''
      ? null
      : (await import('./mcp-auth.ts')).createMcpAuth({
          settings: options.settings,
          defaultResource: () => `${daemon.info().tcp.url}${MCP_PATH}`,
          mcpPath: MCP_PATH,
          localToken: () => (localToken ??= readToken(options.layout.token) ?? ''),
          loopback: LOOPBACK_ADDRESSES.has(options.settings.daemonAddress),
        })
  const auditPath = options.settings.auditLog.trim() || (mcpAuth ? join(options.layout.logDir, 'audit.jsonl') : '')
  const audit: AuditLog | undefined = auditPath === '' ? undefined : createAuditLog(auditPath, options.settings.auditArguments)
  let accessPolicy: AccessPolicy = options.config.access ?? OPEN_POLICY
  daemon = await startDaemon({
    ...options,
    ...(source && { config: source.config }),
    ...(mcpAuth && { authenticatesItself: mcpAuth.authenticatesItself }),
    pool: upstreams,
    codeMode,
  })
  const settings = options.settings
  const opTools = operationTools((signal) => ({
    pool: daemon.pool,
    codeMode,
    events: daemon.events,
    questions: daemon.questions,
    settings,
    info: daemon.info,
    shutdown: (reason) => daemon.shutdown(reason),
    signal,
    holdOpen: () => () => {},
  }))
  // A warm sandbox makes the first mcpx_exec as fast as the rest. The sandboxes start with the first
  // surface that offers mcpx_exec (a host's first request), not with the daemon: a daemon that serves
  // only raw or passthrough hosts and the CLI's calls never starts them (about 50 MB each). Just before,
  // the daemon hands back its file pages (page-out.ts): the sandboxes run the same executable, and a page
  // they map too, such as what only the daemon's start-up touched, the kernel keeps for both.
  let sandboxesStarted = false
  // A sandbox still starting when the daemon stops is ended with it: that is no failure to warn of.
  let stopping = false
  const warmSandboxes = (mode: SurfaceMode) => {
    if ((mode !== 'code-mode' && mode !== 'reactive') || sandboxesStarted) return
    sandboxesStarted = true
    pageOutLater(settings.daemonIdlePageOutSliceMb, () => false)
      .then((report) => log.debug(`page-out before the sandboxes start: ${report}`))
      .then(() => codeMode.warm())
      .catch((error) => (stopping ? log.debug : log.warn)(`code mode sandbox did not start: ${(error as Error).message}`))
  }
  const gatewayTools = opTools
  const surfaces = new Map<string, { surface: GatewaySurface; http: HttpHandler }>()
  // Which listener each /mcp request came in on, for the session lines of the log.
  const listenerOf = new WeakMap<Request, string>()
  // Replicas behind a load balancer: a 2026 retry or a legacy session another replica owns goes back to it.
  // Optional Redis (settings.redisUrl): the ended sessions every replica must answer 404 for.
  // Each module loads only when its setting is set (each checks it again): a single daemon never loads them.
  const shared = settings.redisUrl.trim() === '' ? undefined : (await import('./shared-state.ts')).createSharedState(settings)
  const forwarder =
    settings.replicaId.trim() === '' ? undefined : (await import('./replica-forward.ts')).createReplicaForwarder(settings, shared)
  /** OAuth principals get a surface each (their policy's view, their sessions); the oldest beyond the cap close. */
  const principalKeys: string[] = []
  const surfaceFor = (mode: SurfaceMode, passthrough?: string, principal?: Principal) => {
    const key = `${mode}:${passthrough ?? ''}${principal ? `:${principal.id}:${principal.scopes.join(' ')}:${principal.groups.join(' ')}` : ''}`
    let entry = surfaces.get(key)
    if (!entry) {
      warmSandboxes(mode)
      const view = principal && createAccessView(principal, accessPolicy, audit)
      const surface = new GatewaySurface({
        pool: upstreams,
        settings,
        mode,
        ...(passthrough && { passthrough }),
        codeMode,
        gatewayTools,
        version: options.version,
        ...(view && { view }),
      })
      const surfaceName = passthrough ? `passthrough ${passthrough}` : mode
      const http = createHttpHandler({
        engine: surface.engine,
        settings,
        // The daemon's guard (security.ts) owns Host, Origin, token and media type for both listeners.
        guarded: true,
        // Binds MRTR requestState to the caller and marks cacheable results private (caching.mdx).
        ...(principal && { principalOf: () => principal.id }),
        // One line per host session opened and closed: who, which revision, over what, which surface (the
        // id's last characters: a sealed id starts with its key id, the same for every session).
        onSession: (event) => {
          const client = event.client ? `${event.client.name} ${event.client.version}` : 'an unnamed client'
          const via = event.request ? ` over ${listenerOf.get(event.request) ?? 'streamable-http'}` : ''
          const what =
            event.state === 'discovered' ? 'stateless client discovered the server' : `session ${event.state} ${event.id.slice(-8)}`
          log.info(`${what}: ${client}, revision ${event.revision}${via}, surface ${surfaceName}`)
          if (event.state === 'closed' && event.reason !== 'closed') forwarder?.sessionEnded(event.id)
        },
        ...(forwarder && {
          newSessionId: forwarder.newSessionId,
          adoptSession: forwarder.adoptSession,
          forwardModern: forwarder.forwardModern,
        }),
        ...(forwarder?.sessionRevoked && { sessionRevoked: forwarder.sessionRevoked }),
        // With Redis, each legacy session's SSE events too: the replica rebuilding a session replays what its host missed.
        ...(forwarder && shared && { sharedEvents: shared }),
      })
      // With Redis, every task record is kept there too: readable through any replica if this one stops.
      if (shared)
        surface.engine.tasks.mirror = (detailed) =>
          shared.saveTask(detailed as { taskId: string }, typeof detailed.ttlMs === 'number' ? detailed.ttlMs : settings.taskTtlMs)
      entry = { surface, http }
      surfaces.set(key, entry)
      if (principal) {
        principalKeys.push(key)
        while (principalKeys.length > settings.mcpPrincipalSurfaces) dropSurface(principalKeys.shift()!)
      }
    }
    return entry
  }
  const dropSurface = (key: string) => {
    const entry = surfaces.get(key)
    surfaces.delete(key)
    entry?.http.close()
    entry?.surface.close()
  }
  const defaultPassthrough = options.passthrough ?? passthroughSetting
  const defaultMode = options.mode ?? (passthroughSetting ? 'passthrough' : parseMode(settings.mcpMode, 'setting mcpMode (MCPX_MCP_MODE)'))
  /** One resolution of "which surface" for /mcp's query and the serve channel's opening line. */
  const chooseSurface = (asked: { passthrough?: string | null; codemode?: string | null; mode?: string | null }, principal?: Principal) => {
    if (asked.codemode != null && asked.codemode !== 'true' && asked.codemode !== 'false')
      throw new McpxError('USAGE', `the codemode parameter must be true or false, got "${asked.codemode}"`, { codemode: asked.codemode })
    const passthrough = asked.passthrough ?? (defaultMode === 'passthrough' ? defaultPassthrough : undefined)
    const mode: SurfaceMode = passthrough
      ? 'passthrough'
      : asked.codemode === 'false'
        ? 'raw'
        : asked.mode !== null && asked.mode !== undefined
          ? parseMode(asked.mode, 'the mode parameter')
          : defaultMode === 'passthrough'
            ? 'code-mode'
            : defaultMode
    return surfaceFor(mode, passthrough ?? undefined, principal)
  }
  daemon.mount({
    methods: ['GET', 'POST', 'DELETE'],
    path: MCP_PATH,
    handle(request, context) {
      // Read only by the lines of a session opened (no session id yet) or adopted (replicas): a
      // request of a known session needs no entry.
      if (forwarder !== undefined || !request.headers.has(HEADER.SESSION_ID))
        listenerOf.set(request, context.listener === 'unix' ? 'streamable-http on the Unix socket' : 'streamable-http on TCP')
      // Only a legacy session another replica owns is handed on here (header only, no body read);
      // 2026 retries and tasks/* are handed on by the handler once it parsed the body (forwardModern).
      const forwarded = forwarder?.forward(request, context.url)
      if (forwarded === undefined) return route(request, context)
      return forwarded.then((answer) => answer ?? route(request, context))
    },
  })
  function route(request: Request, context: RouteContext): Response | Promise<Response> {
    if (!mcpAuth) return serveMcp(request, context)
    return mcpAuth
      .principalFor(request, context.listener)
      .then((principal) =>
        principal instanceof Response ? principal : serveMcp(request, context, principal.kind === 'owner' ? undefined : principal),
      )
  }
  if (mcpAuth) for (const route of mcpAuth.routes) daemon.mount(route)
  const askedOf = (url: URL) => ({
    passthrough: url.searchParams.get('passthrough'),
    codemode: url.searchParams.get('codemode'),
    mode: url.searchParams.get('mode'),
  })
  // The owner's hosts send the same query on every request: its surface is chosen once per query
  // string (the owner's surfaces are never dropped), not parsed again for each call.
  let ownerQuery: { readonly search: string; readonly entry: ReturnType<typeof surfaceFor> } | undefined
  function serveMcp(request: Request, context: RouteContext, principal?: Principal): Response | Promise<Response> {
    let entry: ReturnType<typeof surfaceFor>
    try {
      if (principal === undefined) {
        const search = context.search
        if (ownerQuery?.search !== search) ownerQuery = { search, entry: chooseSurface(askedOf(context.url)) }
        entry = ownerQuery.entry
      } else {
        const asked = askedOf(context.url)
        const passthrough = asked.passthrough ?? (defaultMode === 'passthrough' ? defaultPassthrough : undefined)
        // A principal's pass-through is to a server its policy reaches at all; another would only show it empty.
        if (passthrough && !createAccessView(principal, accessPolicy).server(passthrough)) {
          return jsonResponse(
            {
              jsonrpc: '2.0',
              error: { code: RPC.INVALID_REQUEST, message: `access denied: ${principal.subject} may not use server ${passthrough}` },
            },
            HTTP_STATUS.FORBIDDEN,
          )
        }
        entry = chooseSurface(asked, principal)
      }
    } catch (error) {
      return surfaceRefused(error)
    }
    const { surface, http } = entry
    // Hot path: once the first sync landed, straight to the handler (no extra await per request).
    if (surface.catalogWaitOver) return http.fetch(request)
    return surface
      .ready()
      .catch(() => {})
      .then(() => http.fetch(request))
  }
  // `mcpx serve` hosts (the machine's owner): the same surfaces, served by the stdio engine over the stream channel.
  const channel = listenChannel({
    path: options.layout.channelSocket,
    settings,
    hold: daemon.hold,
    noteActivity: daemon.noteActivity,
    answer: () => ({ pid: process.pid, config: options.config.source }),
    async open(opening) {
      const { surface } = chooseSurface({
        ...(opening.passthrough !== undefined && { passthrough: opening.passthrough }),
        ...(opening.mode !== undefined && { mode: opening.mode }),
      })
      await surface.ready().catch(() => {})
      return surface.engine
    },
    onSession(opening, event) {
      const client = event.client ? `${event.client.name} ${event.client.version}` : 'an unnamed client'
      const what = event.state === 'discovered' ? 'stateless client discovered the server' : `session ${event.state}`
      const surfaceName =
        opening.passthrough !== undefined
          ? `passthrough ${opening.passthrough}`
          : (opening.mode ?? (defaultMode === 'passthrough' ? `passthrough ${defaultPassthrough}` : defaultMode))
      log.info(`${what}: ${client}, revision ${event.revision} over the stdio channel (mcpx serve), surface ${surfaceName}`)
    },
  })
  source?.onChange((config) => {
    const next = config.access ?? OPEN_POLICY
    if (JSON.stringify(next) !== JSON.stringify(accessPolicy)) {
      // Views were built from the old rules: principals get fresh surfaces on their next request.
      accessPolicy = next
      for (const key of principalKeys.splice(0)) dropSurface(key)
    }
    return upstreams.reconfigure(config)
  })
  const stopWatching = source ? source.watch() : () => {}
  // Optional Redis: a changed config announced to the other replicas, theirs re-read on their notices.
  const stopNotices = source && followConfigNotices(settings, source)
  // One line per upstream (re)connect, with what it negotiated.
  upstreams.on((type, data) => {
    const event = data as { server?: string; era?: string; revision?: string; renewed?: boolean }
    const how = event.renewed ? 'started a new session, its last one having expired' : 'connected'
    if (type === 'server.ready') log.info(`upstream ${event.server} ${how} (${event.era} era, revision ${event.revision})`)
  })
  daemon.onShutdown(async () => {
    stopping = true
    channel.close()
    shared?.close()
    stopWatching()
    stopNotices?.()
    // Every request in flight on /mcp (both eras, every surface) gets its answer or an error.
    await Promise.all(
      [...surfaces.values()].map(({ surface }) => surface.engine.drain(settings.shutdownGraceMs, 'the mcpx daemon is stopping')),
    )
    for (const { surface, http } of surfaces.values()) {
      http.close()
      surface.close()
    }
  })
  return daemon
}
