/**
 * Pass-through resource updates: the gateway subscribes upstream to every listed resource
 * (McpClient.follow: legacy `resources/subscribe` per URI, 2026 one `subscriptions/listen`) and hands each update to the engine,
 * which tells exactly the hosts subscribed to that URI. Template-only URIs are not followed.
 * 2025-11-25 server/resources.mdx "Subscriptions"; 2026-07-28 basic/patterns/subscriptions.mdx.
 */
import type { McpClient } from '../../client/index.ts'

const UPDATED = 'notifications/resources/updated'

export interface ResourceFollow {
  /** Settles once the upstream has taken the subscriptions (or refused them): updates after it are not lost. */
  readonly ready: Promise<void>
  stop(): void
}

/** Start following (a no-op when the upstream offers no subscriptions). */
export function followResourceUpdates(client: McpClient, uris: readonly string[], onUpdated: (uri: string) => void): ResourceFollow {
  const resources = client.serverCapabilities.resources as { subscribe?: boolean } | undefined
  if (!resources?.subscribe || uris.length === 0) return { ready: Promise.resolve(), stop: () => {} }
  const following = client.follow({ resourceSubscriptions: uris }, (method, params) => {
    if (method === UPDATED && typeof params.uri === 'string') onUpdated(params.uri)
  })
  return { ready: following.ready, stop: () => following.stop() }
}
