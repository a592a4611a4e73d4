/**
 * The renamed surfaces' resource subscriptions: per upstream, the resources hosts subscribed to
 * (its own URIs, mapped back from `mcpx://<ns>/<uri>` by resourceOrigin), followed on its live
 * connection (resource-updates.ts), each update told under the name the hosts know. Followed
 * lazily, as hosts subscribe, and again on a new connection after the upstream reconnects.
 * Pass-through follows every listed resource instead (surface.ts).
 */
import type { McpClient } from '../../client/index.ts'
import type { Catalog } from '../pool-shapes.ts'
import type { UpstreamPool } from '../upstream-pool.ts'
import { followResourceUpdates } from './resource-updates.ts'
import { exposedResourceUri, resourceOrigin } from './upstream-items.ts'

/** One upstream's subscribed resources and the follow of them on its connection. */
interface Followed {
  /** The upstream's own URIs. */
  readonly uris: Set<string>
  client?: McpClient
  /** The session of `client` the follow was made in (a replaced one holds none of it: McpClient.sessionsReplaced). */
  session?: number
  /** How many of `uris` the follow on `client` covers. */
  following: number
  stop: () => void
  ready: Promise<void>
}

export class FollowedResources {
  readonly #followed = new Map<string, Followed>()

  constructor(
    private readonly pool: UpstreamPool,
    /** Tell the hosts subscribed to `uri` (as they know it) that it changed. */
    private readonly updated: (uri: string) => void,
  ) {}

  /** Hosts subscribed to `uris` (as this surface names them): followed upstream once this settles. */
  async subscribe(catalogs: readonly Catalog[], uris: readonly string[]): Promise<void> {
    const wanted = new Map<string, string[]>()
    for (const uri of uris) {
      const origin = resourceOrigin(catalogs, uri)
      if (origin) wanted.set(origin.server, [...(wanted.get(origin.server) ?? []), origin.uri])
    }
    await Promise.all([...wanted].map(([server, more]) => this.#follow(server, more)))
  }

  /** `server` (re)connected: a new connection knows none of the subscriptions made on the last one. */
  async reconnected(server: string): Promise<void> {
    if (this.#followed.has(server)) await this.#follow(server, [])
  }

  close(): void {
    for (const entry of this.#followed.values()) entry.stop()
  }

  /**
   * (Re)follow `server`'s subscribed resources, plus `more`, on its live connection; the same connection
   * following the same set is left as it is. The set grows before the wait for the connection, so
   * subscriptions arriving together are followed together.
   */
  async #follow(server: string, more: readonly string[]): Promise<void> {
    let entry = this.#followed.get(server)
    if (entry === undefined)
      this.#followed.set(server, (entry = { uris: new Set(), following: 0, stop: () => {}, ready: Promise.resolve() }))
    for (const uri of more) entry.uris.add(uri)
    const client = await this.pool.upstream(server).client()
    const session = client.sessionsReplaced
    if (entry.client !== client || entry.session !== session || entry.following !== entry.uris.size) {
      entry.stop()
      const follow = followResourceUpdates(client, [...entry.uris], (uri) => this.updated(exposedResourceUri(server, uri)))
      Object.assign(entry, { client, session, following: entry.uris.size, stop: () => follow.stop(), ready: follow.ready })
    }
    // A host told "subscribed" must not miss an update the upstream sends before it subscribed.
    await entry.ready
  }
}
