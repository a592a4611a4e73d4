/**
 * The upstream pool: every configured server (not only some) as an `Upstream`, connected lazily on
 * first use. Implements the daemon's Pool contract structurally, plus what the MCP surfaces need
 * (requests other than tools/call, brokering, catalogs across servers).
 */
import type { JsonObject } from '../client/index.ts'
import type { McpxConfig } from '../config/index.ts'
import { McpxError } from '../errors/index.ts'
import type { Settings } from '../settings/index.ts'
import type { DownstreamAsker } from './broker.ts'
import { checkRequest, guardedCall } from './guarded-call.ts'
import { suggest, unknownToolError } from './naming.ts'
import type { Catalog, ServerStatus, UpstreamCallOptions } from './pool-shapes.ts'
import type { RelayReceiver, RelayStop } from './upstream-relay.ts'
import { Upstream, type UpstreamContext } from './upstream.ts'

export interface UpstreamPoolOptions {
  readonly config: McpxConfig
  readonly settings: Settings
  readonly emit?: (type: string, data: unknown) => void
  /** Where era verdicts persist (the mcpx home's cache dir). */
  readonly cacheDir?: string
  readonly connectOptions?: UpstreamContext['connectOptions']
  readonly validator?: UpstreamContext['validator']
}

export type PoolListener = (type: string, data: unknown) => void

/** How a call that needs the catalog's say ended: an isError result, or a failure. */
export type CallOutcome = { readonly result: JsonObject } | { readonly error: unknown }

export class UpstreamPool {
  readonly #upstreams = new Map<string, Upstream>()
  readonly #listeners = new Set<PoolListener>()
  readonly #context: UpstreamContext

  constructor(readonly options: UpstreamPoolOptions) {
    const context: UpstreamContext = (this.#context = {
      settings: options.settings,
      emit: (type, data) => {
        options.emit?.(type, data)
        for (const listener of this.#listeners) listener(type, data)
      },
      ...(options.cacheDir !== undefined && { cacheDir: options.cacheDir }),
      ...(options.connectOptions !== undefined && { connectOptions: options.connectOptions }),
      ...(options.validator !== undefined && { validator: options.validator }),
    })
    for (const server of Object.values(options.config.servers)) this.#upstreams.set(server.name, new Upstream(server, context))
  }

  /**
   * Apply a new (already validated) config: new servers join, removed ones are closed, changed ones
   * are replaced (their next use connects with the new definition), unchanged ones keep their
   * connection. Emits `servers.changed` so surfaces re-sync.
   */
  async reconfigure(config: McpxConfig): Promise<{ added: string[]; removed: string[]; changed: string[] }> {
    const next = config.servers
    const added = Object.keys(next).filter((name) => !this.#upstreams.has(name))
    const removed = [...this.#upstreams.keys()].filter((name) => !(name in next))
    const changed = [...this.#upstreams.keys()].filter(
      (name) => name in next && JSON.stringify(this.#upstreams.get(name)!.config) !== JSON.stringify(next[name]),
    )
    const retired = [...removed, ...changed].map((name) => this.#upstreams.get(name)!)
    for (const name of removed) this.#upstreams.delete(name)
    for (const name of [...added, ...changed]) this.#upstreams.set(name, new Upstream(next[name]!, this.#context))
    await Promise.all(retired.map((upstream) => upstream.close()))
    if (added.length + removed.length + changed.length > 0) this.#context.emit('servers.changed', { added, removed, changed })
    return { added, removed, changed }
  }

  /** Follow pool events (server.ready, server.crashed, catalog.changed…); returns the unsubscribe. */
  on(listener: PoolListener): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  names(): string[] {
    return [...this.#upstreams.keys()]
  }

  upstream(name: string): Upstream {
    const upstream = this.#upstreams.get(name)
    if (upstream) return upstream
    const known = this.names()
    const hint = suggest(name, known)
    throw new McpxError(
      'NOT_FOUND',
      `no server named "${name}"${hint.length ? ` (did you mean ${hint.join(', ')}?)` : ''}; configured: ${known.join(', ') || 'none'}`,
      {
        server: name,
        suggestions: hint,
      },
    )
  }

  servers(): ServerStatus[] {
    return [...this.#upstreams.values()].map((u) => u.status())
  }

  status(name: string): ServerStatus {
    return this.upstream(name).status()
  }

  call(name: string, tool: string, args: Record<string, unknown>, options: UpstreamCallOptions = {}): Promise<JsonObject> {
    return options.view
      ? guardedCall(options.view, name, tool, args, () => this.#call(name, tool, args, options))
      : this.#call(name, tool, args, options)
  }

  #call(name: string, tool: string, args: Record<string, unknown>, options: UpstreamCallOptions): Promise<JsonObject> {
    let upstream: Upstream
    try {
      upstream = this.upstream(name)
    } catch (error) {
      return Promise.reject(error)
    }
    return this.#known(upstream, tool, upstream.call(tool, args, options))
  }

  /** A host's plain call relayed to `name` as it is (Upstream.relay), or undefined when it cannot be now. */
  relay(name: string, tool: string, args: JsonObject, receiver: RelayReceiver): RelayStop | undefined {
    return this.#upstreams.get(name)?.relay(tool, args, receiver)
  }

  /**
   * A relayed call's isError result or failure, as call() finishes them: the same unless the
   * catalog of `name` lacks `tool` (unlessUnknown).
   */
  relayedOutcome(name: string, tool: string, outcome: CallOutcome): Promise<JsonObject> {
    const upstream = this.#upstreams.get(name)
    if (upstream !== undefined) return this.#unlessUnknown(upstream, tool, outcome)
    return 'error' in outcome ? Promise.reject(outcome.error) : Promise.resolve(outcome.result)
  }

  /**
   * One reaction on the upstream's promise (no async frame around it): many servers answer an
   * unknown tool with an isError result rather than -32602; either way the catalog says which.
   */
  #known(upstream: Upstream, tool: string, running: Promise<JsonObject>): Promise<JsonObject> {
    return running.then(
      (result) => (result.isError === true ? this.#unlessUnknown(upstream, tool, { result }) : result),
      (error: unknown) => this.#unlessUnknown(upstream, tool, { error }),
    )
  }

  /** An isError result or a failure as it is, or NOT_FOUND with suggestions when the tool is not in the catalog. */
  async #unlessUnknown(upstream: Upstream, tool: string, outcome: CallOutcome): Promise<JsonObject> {
    const unknown = await this.#unknownTool(upstream, tool)
    if (unknown) throw unknown
    if ('error' in outcome) throw outcome.error
    return outcome.result
  }

  request(name: string, method: string, params: JsonObject, options: UpstreamCallOptions = {}): Promise<JsonObject> {
    if (options.view) checkRequest(options.view, name, method, params)
    return this.upstream(name).request(method, params, options)
  }

  /** With an `asker`, questions the upstream asks while this connects it (its initial roots/list) go to that caller. */
  catalog(name: string, options: { refresh?: boolean; asker?: DownstreamAsker } = {}): Promise<Catalog> {
    const upstream = this.upstream(name)
    if (options.asker === undefined) return upstream.catalog(options)
    return upstream.broker.run(options.asker, () => upstream.catalog(options))
  }

  /** Catalogs of every enabled server; a server that fails is reported, not fatal. */
  async catalogs(options: { refresh?: boolean } = {}): Promise<{ catalogs: Catalog[]; failures: { server: string; error: McpxError }[] }> {
    const enabled = [...this.#upstreams.values()].filter((u) => !u.config.disabled)
    const settled = await Promise.allSettled(enabled.map((u) => u.catalog(options)))
    const catalogs: Catalog[] = []
    const failures: { server: string; error: McpxError }[] = []
    settled.forEach((s, i) => {
      if (s.status === 'fulfilled') catalogs.push(s.value)
      else
        failures.push({
          server: enabled[i]!.name,
          error: s.reason instanceof McpxError ? s.reason : new McpxError('CONNECT', String(s.reason)),
        })
    })
    return { catalogs, failures }
  }

  async close(): Promise<void> {
    await Promise.all([...this.#upstreams.values()].map((u) => u.close()))
  }

  /** After a failed call: NOT_FOUND with suggestions when the upstream's catalog lacks the tool. */
  async #unknownTool(upstream: Upstream, tool: string): Promise<McpxError | undefined> {
    const catalog = await upstream.catalog().catch(() => undefined)
    if (!catalog) return undefined
    const names = catalog.tools.map((t) => String(t.name))
    return names.includes(tool) ? undefined : unknownToolError(upstream.name, tool, names)
  }
}
