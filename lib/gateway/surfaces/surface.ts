/**
 * A gateway MCP surface: one server engine whose providers are kept in sync with the upstream pool.
 * Modes (README "Surfaces"): `code-mode` (the gateway tools; upstream prompts and resources
 * namespaced), `raw` (every upstream tool flat as `<ns>_<tool>`), `reactive` (the gateway tools plus
 * a bounded working set of upstream tools named by recent calls and searches, LRU-evicted), and
 * `passthrough` (one upstream offered as itself). Hosts hear about changes through list_changed.
 */
import type { AccessView } from '../../access/index.ts'
import type { McpClient } from '../../client/index.ts'
import { McpxError, asMcpxError } from '../../errors/index.ts'
import { log } from '../../log/index.ts'
import { EXTENSION } from '../../wire/index.ts'
import {
  type Engine as EngineType,
  Engine,
  type PromptDef,
  type ServerDefinition,
  type ResourceDef,
  type TemplateDef,
  type ToolDef,
} from '../../server/index.ts'
import type { Settings } from '../../settings/index.ts'
import { splitQualified } from '../naming.ts'
import type { UpstreamPool } from '../upstream-pool.ts'
import type { Catalog } from '../pool-shapes.ts'
import type { CodeMode } from '../code-mode.ts'
import { codeModeTools } from './code-mode-tools.ts'
import { callTool, catalogTool } from './direct-tools.ts'
import { ParkingLot } from './parking.ts'
import { FollowedResources } from './followed-resources.ts'
import { surfaceInstructions } from './instructions.ts'
import { followResourceUpdates } from './resource-updates.ts'
import {
  type ItemOptions,
  completeThrough,
  forwardUnknown,
  readUnlistedApps,
  upstreamPrompts,
  upstreamResources,
  upstreamTemplates,
  upstreamTools,
} from './upstream-items.ts'

type ChangeKind = 'tools' | 'prompts' | 'resources'

export type SurfaceMode = 'code-mode' | 'raw' | 'reactive' | 'passthrough'

export interface SurfaceOptions {
  readonly pool: UpstreamPool
  readonly settings: Settings
  readonly mode: SurfaceMode
  /** The upstream offered by `passthrough`. */
  readonly passthrough?: string
  /** Code mode's engine: adds mcpx_exec, mcpx_search and mcpx_types to the code-mode and reactive surfaces. */
  readonly codeMode?: CodeMode
  /** More gateway tools (the daemon's `mcpx_<op>` tools). */
  readonly gatewayTools?: readonly ToolDef[]
  readonly version: string
  /**
   * The one principal this surface serves (lib/access): every list shows, and every call accepts,
   * only what its policy allows. Absent = the machine's owner, who sees everything.
   */
  readonly view?: AccessView
}

export class GatewaySurface {
  readonly engine: EngineType
  readonly #parking: ParkingLot
  readonly #items: ItemOptions
  /** completion/complete on the renamed surfaces (completeThrough). */
  readonly #completeListed: NonNullable<ServerDefinition['complete']>
  readonly #workingSet = new Map<string, ToolDef>()
  #catalogs: Catalog[] = []
  #synced?: Promise<void>
  #catalogWaitOver = false
  /** When the surface's one wait for its first catalogs ends (performance.now() time). */
  #waitUntil?: number
  #updates?: { client: McpClient; key: string; stop: () => void; ready: Promise<void> }
  /** Pass-through: why its one upstream could not be listed at the last try (hosts' handshakes get it). */
  #unavailable?: McpxError
  /** Renamed surfaces: what hosts subscribed to, followed upstream (followed-resources.ts). */
  readonly #followed: FollowedResources
  #stop: () => void

  constructor(private readonly options: SurfaceOptions) {
    if (options.mode === 'passthrough' && !options.passthrough)
      throw new McpxError('USAGE', 'passthrough mode needs the name of one upstream server')
    if (options.passthrough) options.pool.upstream(options.passthrough)
    this.#parking = new ParkingLot(options.settings.requestStateTtlMs)
    const passthrough = options.mode === 'passthrough'
    this.#items = {
      pool: options.pool,
      parking: this.#parking,
      ownNames: passthrough,
      settings: options.settings,
      ...(passthrough && { tasks: () => this.engine.tasks }),
      ...(options.view && { view: options.view }),
    }
    this.#completeListed = completeThrough(this.#items, () => this.#catalogs)
    this.#followed = new FollowedResources(options.pool, (uri) => this.engine.notify.resourceUpdated(uri))
    const tools = this.#baseTools()
    this.engine = new Engine(
      {
        info: { name: options.passthrough ?? 'mcpx', version: options.version },
        instructions: surfaceInstructions(options.mode, options.codeMode !== undefined),
        tools,
        listChanged: true,
        // Pass-through follows every listed resource upstream (#followUpdates); the renamed surfaces
        // follow the ones hosts subscribe to, as they do (#subscribe), declaring it once a catalog says so (#apply).
        ...(!passthrough && {
          subscribe: false,
          onSubscribe: (uris: readonly string[]) => this.#followed.subscribe(this.#catalogs, uris),
        }),
        appsToDeclaredClientsOnly: true,
        // Pass-through leaves tool arguments to the upstream (upstream-items.ts): its own answer.
        ...(passthrough && { complete: this.#complete, validateArguments: false, unavailable: () => this.#unavailable }),
      },
      options.settings,
    )
    this.engine.registry.unknown = passthrough ? forwardUnknown(options.passthrough!, this.#items) : readUnlistedApps(this.#items)
    this.#stop = options.pool.on((type, data) => {
      if (type === 'servers.changed') void this.sync().catch(() => {})
      else if (type === 'catalog.changed' || type === 'server.ready') {
        const { server, part } = data as { server?: string; part?: ChangeKind }
        if (this.options.passthrough && server !== this.options.passthrough) return
        // Pass-through relays the upstream's list_changed even when the list reads the same.
        const relay = type === 'catalog.changed' && this.options.mode === 'passthrough' ? part : undefined
        void this.sync()
          .then((changed) => {
            if (relay && !changed.has(relay)) this.engine.notify[`${relay}ListChanged`]()
            // A reconnected upstream knows none of the subscriptions made on its last connection.
            if (type === 'server.ready' && server !== undefined) return this.#followed.reconnected(server)
          })
          .catch(() => {})
      }
    })
  }

  /** True once hosts need not wait for catalogs any more (the first sync landed, or its wait ran out). */
  get catalogWaitOver(): boolean {
    return this.#catalogWaitOver
  }

  /**
   * Resolves once the providers reflect the upstream catalogs (first sync), or once the surface's
   * one wait of `surfaceReadyTimeoutMs` (counted from its first use, not per request) has run out:
   * then hosts are served what has loaded, and each late catalog is applied as it arrives and
   * announced with list_changed, so one slow upstream delays only its own tools.
   */
  async ready(): Promise<void> {
    if (this.#catalogWaitOver) return
    const synced = (this.#synced ??= this.sync().then(
      () => {
        this.#catalogWaitOver = true
      },
      (error) => {
        this.#synced = undefined
        throw error
      },
    ))
    this.#waitUntil ??= performance.now() + this.options.settings.surfaceReadyTimeoutMs
    const leftMs = this.#waitUntil - performance.now()
    if (leftMs <= 0) {
      this.#catalogWaitOver = true
      return
    }
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, leftMs)))
    try {
      await Promise.race([synced, timeout])
    } finally {
      clearTimeout(timer)
    }
  }

  /**
   * Reload catalogs and swap the providers; the engine announces list_changed for each part that
   * changed. Each upstream's catalog is applied as soon as it arrives (a never-initializing one
   * holds back nobody else's tools); the promise settles when every upstream has answered or failed.
   */
  async sync(): Promise<Set<ChangeKind>> {
    const { pool, passthrough } = this.options
    if (passthrough) {
      const catalog = await pool.catalog(passthrough).catch((error: unknown) => {
        const why = asMcpxError(error, 'CONNECT')
        // A reason already naming the server (an unset variable) does not name it twice.
        const prefix = why.message.startsWith(`server "${passthrough}" `) ? '' : `server "${passthrough}" is unavailable: `
        this.#unavailable = new McpxError('CONNECT', `${prefix}${why.message}`, { ...why.data, server: passthrough })
        throw error
      })
      this.#unavailable = undefined
      this.#catalogs = [visibleTo(this.options.view, catalog)]
      const client = await pool.upstream(passthrough).client()
      this.#mirrorIdentity(client)
      await this.#followUpdates(
        client,
        catalog.resources.map((r) => String(r.uri)),
      )
      return this.#apply()
    }
    const names = pool.names().filter((name) => !pool.upstream(name).config.disabled)
    const changed = new Set<ChangeKind>()
    const land = (server: string, catalog: Catalog | undefined) => {
      // Servers removed from the config since, and failed ones, drop out; the order stays the config's.
      const byServer = new Map(
        this.#catalogs.filter((c) => c.server !== server && pool.names().includes(c.server)).map((c) => [c.server, c]),
      )
      if (catalog) byServer.set(server, visibleTo(this.options.view, catalog))
      this.#catalogs = pool.names().flatMap((name) => byServer.get(name) ?? [])
      for (const kind of this.#apply()) changed.add(kind)
    }
    await Promise.all(
      names.map((server) =>
        pool.catalog(server).then(
          (catalog) => land(server, catalog),
          (error: unknown) => {
            log.warn(`[${server}] catalog unavailable: ${(error as Error).message}`)
            land(server, undefined)
          },
        ),
      ),
    )
    if (names.length === 0) for (const kind of this.#apply()) changed.add(kind)
    return changed
  }

  /** Reactive mode: bring upstream tools into the working set (most recent last; LRU evicted). */
  touch(qualifiedNames: readonly string[]): void {
    if (this.options.mode !== 'reactive') return
    let changed = false
    for (const name of qualifiedNames) {
      const { server, tool } = splitQualified(name)
      const catalog = this.#catalogs.find((c) => c.server === server)
      const def = catalog && upstreamTools({ ...catalog, tools: catalog.tools.filter((t) => t.name === tool) }, this.#items)[0]
      if (!def) continue
      this.#workingSet.delete(name)
      this.#workingSet.set(name, def)
      changed = true
    }
    while (this.#workingSet.size > this.options.settings.reactiveWorkingSetSize)
      this.#workingSet.delete(this.#workingSet.keys().next().value!)
    if (changed) this.engine.registry.setTools([...this.#baseTools(), ...this.#workingSet.values()])
  }

  /**
   * Pass-through is the upstream as itself: its serverInfo, instructions and capabilities (spelled
   * down per host revision at the edge: lifecycle.ts mirroredCapabilities). It serves tasks exactly
   * when the upstream does (SEP-2663 extension or 2025-11-25 `tasks`): the upstream decides which
   * calls become tasks, the gateway engine keeps the host's task that follows each (task-relay.ts).
   */
  #mirrorIdentity(client: McpClient): void {
    const { serverInfo, instructions } = client.server
    const capabilities = client.serverCapabilities
    const def = this.engine.def
    // The upstream's serverInfo (name, title, version, icons, websiteUrl) and instructions as given.
    if (serverInfo?.name !== undefined && serverInfo.version !== undefined) def.info = serverInfo
    if (instructions !== undefined) def.instructions = instructions
    else delete def.instructions
    def.capabilities = capabilities
    const extensions = (capabilities.extensions ?? {}) as Record<string, unknown>
    def.tasks = EXTENSION.TASKS in extensions || capabilities.tasks !== undefined
    // completions likewise: declared, and forwarded, only when the upstream offers them.
    if (capabilities.completions !== undefined) this.engine.def.complete = this.#complete
    else delete this.engine.def.complete
  }

  /** (Re)subscribe upstream when the connection or the listed resources changed (resource-updates.ts). */
  async #followUpdates(client: McpClient, uris: string[]): Promise<void> {
    // A new upstream session (its last one expired) holds none of the old one's subscriptions.
    const key = `${client.sessionsReplaced} ${JSON.stringify(uris)}`
    if (this.#updates?.client !== client || this.#updates.key !== key) {
      this.#updates?.stop()
      const follow = followResourceUpdates(client, uris, (uri) => this.engine.notify.resourceUpdated(uri))
      this.#updates = { client, key, stop: () => follow.stop(), ready: follow.ready }
    }
    // A host told "subscribed" must not miss an update the upstream sends before it subscribed.
    await this.#updates.ready
  }

  /** Pass-through completion/complete: the upstream's answer as is. */
  readonly #complete: NonNullable<ServerDefinition['complete']> = async (request, ctx) =>
    this.#items.pool.request(this.options.passthrough!, 'completion/complete', request as unknown as Record<string, unknown>, {
      signal: ctx.signal,
    })

  close(): void {
    this.#stop()
    this.#updates?.stop()
    this.#followed.close()
    this.#parking.close()
    this.engine.close()
  }

  #baseTools(): ToolDef[] {
    const { mode, pool } = this.options
    if (mode === 'raw' || mode === 'passthrough') return []
    const { view } = this.options
    const call = callTool(pool, this.#parking, view)
    const tracked: ToolDef =
      mode === 'reactive' ? { ...call, handler: async (args, ctx) => (this.touch([String(args.tool)]), call.handler(args, ctx)) } : call
    const codeMode = this.options.codeMode
      ? codeModeTools({
          codeMode: this.options.codeMode,
          parking: this.#parking,
          ...(mode === 'reactive' && { onNamed: (names: string[]) => this.touch(names) }),
          ...(view && { view }),
        })
      : []
    // The daemon's mcpx_<op> tools describe the whole daemon: for its owner only.
    return [...codeMode, tracked, catalogTool(pool, view), ...(view ? [] : (this.options.gatewayTools ?? []))]
  }

  #apply(): Set<ChangeKind> {
    const { mode, pool } = this.options
    const servers = (c: Catalog) => pool.upstream(c.server).config
    const tools: ToolDef[] = [...this.#baseTools()]
    if (mode === 'raw' || mode === 'passthrough') tools.push(...this.#catalogs.flatMap((c) => upstreamTools(c, this.#items)))
    // `codemode: false` on a server: its tools are offered directly even on the code-mode surface.
    else tools.push(...this.#catalogs.filter((c) => !servers(c).codemode).flatMap((c) => upstreamTools(c, this.#items)))
    if (mode === 'reactive') {
      for (const name of [...this.#workingSet.keys()]) {
        const { server, tool } = splitQualified(name)
        const catalog = this.#catalogs.find((c) => c.server === server)
        const def = catalog && upstreamTools({ ...catalog, tools: catalog.tools.filter((t) => t.name === tool) }, this.#items)[0]
        if (def) this.#workingSet.set(name, def)
        else this.#workingSet.delete(name)
      }
      tools.push(...this.#workingSet.values())
    }
    const prompts: PromptDef[] = this.#catalogs.flatMap((c) => upstreamPrompts(c, this.#items))
    const resources: ResourceDef[] = this.#catalogs.flatMap((c) => upstreamResources(c, this.#items))
    const templates: TemplateDef[] = this.#catalogs.flatMap((c) => upstreamTemplates(c, this.#items))
    const registry = this.engine.registry
    const nextTools = dedupe(tools)
    const nextPrompts = dedupe(prompts)
    const nextResources = dedupeBy(resources, (r) => r.uri)
    const changed = new Set<ChangeKind>()
    if (fingerprint(registry.listTools()) !== fingerprint(nextTools)) {
      registry.setTools(nextTools)
      changed.add('tools')
    }
    if (fingerprint(registry.listPrompts()) !== fingerprint(nextPrompts)) {
      registry.setPrompts(nextPrompts)
      changed.add('prompts')
    }
    if (fingerprint([...registry.listResources(), ...registry.listTemplates()]) !== fingerprint([...nextResources, ...templates])) {
      registry.setResources(nextResources, templates)
      changed.add('resources')
    }
    // completion/complete: declared, and forwarded (completeThrough), where an upstream whose prompts or
    // templates this surface lists offers it.
    if (mode !== 'passthrough') {
      const completes = this.#catalogs.some((c) => c.completes && (c.prompts.length > 0 || c.resourceTemplates.length > 0))
      if (completes) this.engine.def.complete = this.#completeListed
      else delete this.engine.def.complete
      // Subscriptions likewise: offered where an upstream whose resources this surface lists announces updates.
      this.engine.def.subscribe = this.#catalogs.some((c) => c.subscribes && c.resources.length > 0)
    }
    return changed
  }
}

/** The part of a catalog a principal may use (policy.ts): tools and prompts by name, resources by server. */
function visibleTo(view: AccessView | undefined, catalog: Catalog): Catalog {
  if (!view) return catalog
  const { server } = catalog
  const whole = view.server(server)
  return {
    server,
    tools: catalog.tools.filter((t) => view.item(server, String(t.name)).allowed),
    prompts: catalog.prompts.filter((p) => view.item(server, String(p.name)).allowed),
    resources: whole ? catalog.resources : [],
    resourceTemplates: whole ? catalog.resourceTemplates : [],
    ...(catalog.decidesTasksPerCall !== undefined && { decidesTasksPerCall: catalog.decidesTasksPerCall }),
    ...(catalog.completes !== undefined && { completes: catalog.completes }),
    ...(catalog.subscribes !== undefined && { subscribes: catalog.subscribes }),
  }
}

/** What a host sees of a provider list (handlers aside): equal prints mean no list_changed is due. */
function fingerprint(items: readonly object[]): string {
  return JSON.stringify(items, (_key, value) => (typeof value === 'function' ? undefined : value))
}
/** Two upstream items may map to one namespaced name (sanitising); the first wins, the rest are logged. */
function dedupe<T extends { name: string }>(items: T[]): T[] {
  return dedupeBy(items, (i) => i.name)
}
function dedupeBy<T>(items: T[], key: (item: T) => string): T[] {
  const seen = new Set<string>()
  return items.filter((item) => {
    const k = key(item)
    if (seen.has(k)) {
      log.warn(`gateway: duplicate name ${k} dropped`)
      return false
    }
    seen.add(k)
    return true
  })
}
