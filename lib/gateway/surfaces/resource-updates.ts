/**
 * Pass-through resource updates: the gateway subscribes upstream to every listed resource (legacy
 * `resources/subscribe` per URI; 2026 one `subscriptions/listen`) and hands each update to the engine,
 * which tells exactly the hosts subscribed to that URI. Template-only URIs are not followed.
 * 2025-11-25 server/resources.mdx "Subscriptions"; 2026-07-28 basic/patterns/subscriptions.mdx.
 */
import type { McpClient } from '../../client/index.ts'
import { log } from '../../log.ts'

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
  const deliver = (params: Record<string, unknown>) => {
    if (typeof params.uri === 'string') onUpdated(params.uri)
  }
  if (client.era === 'legacy') {
    const off = client.on(UPDATED, deliver)
    const subscribed = uris.map((uri) => client.subscribeResource(uri).catch((error) => log.debug(`resources/subscribe ${uri}: ${error}`)))
    return { ready: Promise.all(subscribed).then(() => {}), stop: off }
  }
  const listener = client.listen({ resourceSubscriptions: [...uris] }, (method, params) => {
    if (method === UPDATED) deliver(params)
  })
  const ended = listener.done.then(
    () => {},
    (error) => log.debug(`resource listen stream ended: ${error}`),
  )
  // The acknowledgement opens the stream (subscriptions.mdx); a stream that ends first settles it too.
  return { ready: Promise.race([listener.acknowledged.then(() => {}), ended]), stop: () => listener.close() }
}
