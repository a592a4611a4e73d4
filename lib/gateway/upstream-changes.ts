/**
 * What makes an upstream's catalog stale: a list_changed for a list the server says it announces
 * (legacy notifications, or a 2026 subscriptions/listen stream: McpClient.follow), and a new session
 * that replaced an expired one (McpClient's recovery; the server may have restarted with other
 * lists, and it holds nothing the old session set up).
 */
import type { McpClient } from '../client/index.ts'

/** Notifications that invalidate a catalog part (2025-11-25 server/tools.mdx etc.; 2026 listen filter keys). */
const LIST_CHANGED = {
  'notifications/tools/list_changed': 'tools',
  'notifications/prompts/list_changed': 'prompts',
  'notifications/resources/list_changed': 'resources',
} as const

export type CatalogChange = (typeof LIST_CHANGED)[keyof typeof LIST_CHANGED] | 'session'

/** Calls `changed` for each change; returns what stops watching. */
export function watchChanges(client: McpClient, changed: (part: CatalogChange) => void): () => void {
  const renewed = client.onSessionRenewed(() => changed('session'))
  const caps = client.serverCapabilities as Record<string, { listChanged?: boolean } | undefined>
  const filter = {
    ...(caps.tools?.listChanged && { toolsListChanged: true }),
    ...(caps.prompts?.listChanged && { promptsListChanged: true }),
    ...(caps.resources?.listChanged && { resourcesListChanged: true }),
  }
  if (Object.keys(filter).length === 0) return renewed
  const following = client.follow(filter, (method) => {
    const part = LIST_CHANGED[method as keyof typeof LIST_CHANGED]
    if (part) changed(part)
  })
  return () => {
    renewed()
    following.stop()
  }
}
