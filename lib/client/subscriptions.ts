/**
 * Following a server's change notifications: 2026 `subscriptions/listen` streams
 * (basic/patterns/subscriptions.mdx) and follow(), which gives both eras one shape. Apart from the
 * request engine (mcp-client.ts) because a listen is a long-lived stream with its own routing of
 * notifications by subscription id, not a call.
 */
import { McpxError, RpcError } from '../errors/index.ts'
import { log } from '../log/index.ts'
import { isLostInFlight } from '../session/index.ts'
import { META, type RequestId } from '../wire/index.ts'
import type { FollowFilter, Following, JsonObject } from './connect-options.ts'
import type { McpClient } from './mcp-client.ts'

export interface Listening {
  readonly acknowledged: Promise<JsonObject>
  readonly done: Promise<JsonObject>
  close(): void
}

/**
 * Open one `subscriptions/listen` on a modern client: notifications tagged with this
 * subscription's id go to `onNotification`; `acknowledged` resolves with the honoured filter.
 */
export function openListen(client: McpClient, filter: JsonObject, onNotification: (method: string, params: JsonObject) => void): Listening {
  const abort = new AbortController()
  // The subscription id is this listen's own JSON-RPC id (subscriptions.mdx), known before it is
  // sent: with several listens open, each ack and notification goes to the listen it names.
  let subscriptionId: RequestId | undefined
  let ack!: (filter: JsonObject) => void
  const acknowledged = new Promise<JsonObject>((resolve) => (ack = resolve))
  const off = client.peer.on('*', (params, notification) => {
    const id = (params._meta as JsonObject | undefined)?.[META.SUBSCRIPTION_ID]
    if (id === undefined || id !== subscriptionId) return
    if (notification.method === 'notifications/subscriptions/acknowledged') ack((params.notifications as JsonObject | undefined) ?? {})
    else onNotification(notification.method, params)
  })
  const done = client
    .request('subscriptions/listen', { notifications: filter }, { signal: abort.signal, timeoutMs: 0, onId: (id) => (subscriptionId = id) })
    .finally(off)
  done.catch(() => {})
  return { acknowledged, done, close: () => abort.abort(new McpxError('CANCELLED', 'subscription closed')) }
}

/**
 * Follow list changes and resource updates the same way in both eras: `onNotification` gets each
 * `notifications/{tools,prompts,resources}/list_changed` and `notifications/resources/updated` the
 * filter asks for. 2026: one `subscriptions/listen` stream (subscriptions.mdx); legacy: the pushed
 * notifications plus one `resources/subscribe` per URI (2025-11-25 server/resources.mdx
 * "Subscriptions"; a refused subscribe is logged at debug and the rest still follow).
 */
export function followChanges(
  client: McpClient,
  filter: FollowFilter,
  onNotification: (method: string, params: JsonObject) => void,
): Following {
  if (client.era === 'modern') return followListening(client, filter, onNotification)
  const methods = [...listMethods(filter), ...(filter.resourceSubscriptions?.length ? ['notifications/resources/updated'] : [])]
  const offs = methods.map((method) => client.on(method, (params) => onNotification(method, params)))
  const subscribed = (filter.resourceSubscriptions ?? []).map((uri) =>
    client.subscribeResource(uri).catch((error) => log.debug(`resources/subscribe ${uri}: ${error}`)),
  )
  return { ready: Promise.all(subscribed).then(() => {}), stop: () => offs.forEach((off) => off()) }
}

/**
 * 2026: one `subscriptions/listen` stream, opened again whenever it ends while still followed
 * (subscriptions.mdx: a transport that closes without the closing response "indicates an
 * unexpected disconnect, which the client MAY treat as a trigger to reconnect"; a server that
 * restarts gracefully closes it cleanly, and is followed again too). A refusal (a JSON-RPC error)
 * is final. What changed while no stream was open was not heard, so once a later stream is
 * acknowledged every followed list counts as changed and every followed resource as updated.
 */
function followListening(client: McpClient, filter: FollowFilter, onNotification: (method: string, params: JsonObject) => void): Following {
  const wire = { ...filter, ...(filter.resourceSubscriptions && { resourceSubscriptions: [...filter.resourceSubscriptions] }) }
  const { listenReopenMs, listenReopenMaxMs } = client.settings
  let stopped = false
  let current: Listening | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  /** Consecutive streams that ended within listenReopenMaxMs of opening: the next wait doubles per one. */
  let shortLived = 0
  let reopened = false

  function open(): Promise<void> {
    const opened = performance.now()
    const listener = (current = client.listen(wire, onNotification))
    const acknowledged = listener.acknowledged.then(() => {
      if (!reopened || stopped) return
      for (const method of listMethods(filter)) onNotification(method, {})
      for (const uri of filter.resourceSubscriptions ?? []) onNotification('notifications/resources/updated', { uri })
    })
    const ended = listener.done.then(
      () => 'ended',
      (error: unknown) => {
        log.debug(`listen stream ended: ${error}`)
        // A cut stream's request fails as lost in flight (a JSON-RPC error the transport made), not as a refusal.
        return error instanceof RpcError && !isLostInFlight(error) ? 'refused' : 'ended'
      },
    )
    void ended.then((how) => {
      if (stopped || how === 'refused' || client.peer.closed) return
      shortLived = performance.now() - opened < listenReopenMaxMs ? shortLived + 1 : 1
      reopened = true
      timer = setTimeout(open, Math.min(listenReopenMaxMs, listenReopenMs * 2 ** (shortLived - 1)))
      timer.unref?.()
    })
    // The acknowledgement opens the stream (subscriptions.mdx); a stream that ends first settles it too.
    return Promise.race([acknowledged, ended.then(() => {})])
  }

  return {
    ready: open(),
    stop() {
      stopped = true
      clearTimeout(timer)
      current?.close()
    },
  }
}

/** The list_changed notifications `filter` follows. */
function listMethods(filter: FollowFilter): string[] {
  return [
    ...(filter.toolsListChanged ? ['notifications/tools/list_changed'] : []),
    ...(filter.promptsListChanged ? ['notifications/prompts/list_changed'] : []),
    ...(filter.resourcesListChanged ? ['notifications/resources/list_changed'] : []),
  ]
}
