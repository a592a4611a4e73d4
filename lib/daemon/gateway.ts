/**
 * The daemon as mcpx runs it: the listeners and /v1 of startDaemon, the gateway's connecting pool in
 * place of the configured-only pool, and /mcp (Streamable HTTP, every era) on the same listeners
 * behind the same guard. /mcp serves the default surface; `?codemode=false` the raw surface and
 * `?passthrough=<server>` one upstream as itself — read per request, so one host can use both.
 */
import { createSchemaValidator } from '../codemode/index.ts'
import { GatewaySurface, type SurfaceMode, UpstreamPool } from '../gateway/index.ts'
import { McpxError } from '../errors/index.ts'
import { log } from '../log.ts'
import { createHttpHandler, type HttpHandler } from '../server/index.ts'
import { type Daemon, type DaemonOptions, startDaemon } from './daemon.ts'
import { operationTools } from './mcp-tools.ts'
import { upstreamConnectOptions } from './upstream-auth.ts'
import type { Pool } from './pool.ts'

export interface GatewayDaemonOptions extends Omit<DaemonOptions, 'createPool'> {
  /** Default /mcp surface (setting `mcpMode`); `passthrough` needs `passthrough`. */
  readonly mode?: SurfaceMode
  readonly passthrough?: string
  /** argv of a sandbox child for mcpx_exec (default: this program's hidden `sandbox-child`). */
  readonly sandboxCommand?: string[]
  /** Environment stdio upstreams inherit (lib/config/environment.ts: the baseline variables); default none. */
  readonly parentEnv?: Readonly<Record<string, string | undefined>> | (() => Readonly<Record<string, string | undefined>>)
}

export const MCP_PATH = '/mcp'

const REQUESTABLE_MODES: readonly SurfaceMode[] = ['code-mode', 'raw', 'reactive']

function parseMode(value: string, source: string): SurfaceMode {
  if ((REQUESTABLE_MODES as readonly string[]).includes(value)) return value as SurfaceMode
  throw new McpxError('USAGE', `${source} must be one of ${REQUESTABLE_MODES.join(', ')}, got "${value}"`, { mode: value })
}

export async function startGatewayDaemon(options: GatewayDaemonOptions): Promise<Daemon> {
  // Setting mcpPassthrough: /mcp itself is the pass-through surface (clients that drop the query string).
  const passthroughSetting = options.settings.mcpPassthrough.trim() || undefined
  if (passthroughSetting && !(passthroughSetting in options.config.servers)) {
    throw new McpxError('CONFIG', `setting mcpPassthrough names "${passthroughSetting}", which is not a configured server`, { setting: 'mcpPassthrough', server: passthroughSetting })
  }
  let upstreams!: UpstreamPool
  const source = options.configSource
  const daemon = await startDaemon({
    ...options,
    ...(source && { config: source.config }),
    createPool: ({ config, settings, emit }): Pool =>
      (upstreams = new UpstreamPool({
        config,
        settings,
        emit,
        cacheDir: options.layout.cacheDir,
        validator: createSchemaValidator(settings),
        ...(options.sandboxCommand && { codeMode: { sandboxCommand: options.sandboxCommand } }),
        connectOptions: upstreamConnectOptions({ settings, home: options.layout.home, ...(options.parentEnv !== undefined && { parentEnv: options.parentEnv }) }),
      })),
  })
  const settings = options.settings
  const opTools = operationTools((signal) => ({
    pool: daemon.pool,
    events: daemon.events,
    settings,
    info: daemon.info,
    shutdown: (reason) => daemon.shutdown(reason),
    signal,
    holdOpen: () => () => {},
  }))
  const codeMode = upstreams.codeMode
  // A warm sandbox makes the first mcpx_exec as fast as the rest.
  codeMode.warm().catch((error) => log.warn(`code mode sandbox did not start: ${(error as Error).message}`))
  const gatewayTools = opTools
  const surfaces = new Map<string, { surface: GatewaySurface; http: HttpHandler }>()
  // Which listener each /mcp request came in on, for the session lines of the log.
  const listenerOf = new WeakMap<Request, string>()
  const allowedOrigins = settings.daemonAllowedOrigins.split(',').map((s) => s.trim()).filter(Boolean)
  const surfaceFor = (mode: SurfaceMode, passthrough?: string) => {
    const key = `${mode}:${passthrough ?? ''}`
    let entry = surfaces.get(key)
    if (!entry) {
      const surface = new GatewaySurface({ pool: upstreams, settings, mode, ...(passthrough && { passthrough }), codeMode, gatewayTools, version: options.version })
      // The daemon's guard already checked Host/Origin/token for this listener (security.ts).
      const surfaceName = passthrough ? `passthrough ${passthrough}` : mode
      const http = createHttpHandler({
        engine: surface.engine,
        settings,
        origin: { checkHost: false, allowedOrigins },
        // One line per host session opened and closed: who, which revision, over what, which surface.
        onSession: (event) => {
          const client = event.client ? `${event.client.name} ${event.client.version}` : 'an unnamed client'
          const via = event.request ? ` over ${listenerOf.get(event.request) ?? 'streamable-http'}` : ''
          const what = event.state === 'discovered' ? 'stateless client discovered the server' : `session ${event.state} ${event.id.slice(0, 8)}`
          log.info(`${what}: ${client}, revision ${event.revision}${via}, surface ${surfaceName}`)
        },
      })
      entry = { surface, http }
      surfaces.set(key, entry)
    }
    return entry
  }
  const defaultPassthrough = options.passthrough ?? passthroughSetting
  const defaultMode = options.mode ?? (passthroughSetting ? 'passthrough' : parseMode(settings.mcpMode, 'setting mcpMode (MCPX_MCP_MODE)'))
  daemon.mount({
    methods: ['GET', 'POST', 'DELETE'],
    path: MCP_PATH,
    handle(request, { url, surface: listener }) {
      listenerOf.set(request, listener === 'unix' ? 'streamable-http on the Unix socket (mcpx serve)' : 'streamable-http on TCP')
      const passthrough = url.searchParams.get('passthrough') ?? (defaultMode === 'passthrough' ? defaultPassthrough : undefined)
      const asked = url.searchParams.get('mode')
      const mode: SurfaceMode = passthrough
        ? 'passthrough'
        : url.searchParams.get('codemode') === 'false'
          ? 'raw'
          : asked !== null
            ? parseMode(asked, 'the mode parameter')
            : defaultMode === 'passthrough'
              ? 'code-mode'
              : defaultMode
      const { surface, http } = surfaceFor(mode, passthrough ?? undefined)
      // Hot path: once the first sync landed, straight to the handler (no extra await per request).
      if (surface.landed) return http.fetch(request)
      return surface.ready().catch(() => {}).then(() => http.fetch(request))
    },
  })
  source?.onChange((config) => upstreams.reconfigure(config))
  const stopWatching = source ? source.watch() : () => {}
  // One line per upstream (re)connect, with what it negotiated.
  upstreams.on((type, data) => {
    const event = data as { server?: string; era?: string; revision?: string }
    if (type === 'server.ready') log.info(`upstream ${event.server} connected (${event.era} era, revision ${event.revision})`)
  })
  daemon.onShutdown(async () => {
    stopWatching()
    for (const { surface, http } of surfaces.values()) {
      http.close()
      surface.close()
    }
  })
  return daemon
}
