/**
 * 2026-07-28 `subscriptions/listen` streams (basic/patterns/subscriptions.mdx): the acknowledgement
 * goes first, only requested notification types are delivered, and every message carries
 * `_meta["io.modelcontextprotocol/subscriptionId"]` = the listen request's JSON-RPC id.
 */
import { META, type RequestId } from '../wire/index.ts'
import type { Connection, Outlet } from './connection.ts'
import type { JsonObject } from './server-definition.ts'

export interface ListenFilter {
  toolsListChanged?: boolean
  promptsListChanged?: boolean
  resourcesListChanged?: boolean
  resourceSubscriptions?: string[]
  /** SEP-2663: notifications/tasks for these task ids. */
  taskIds?: string[]
}

/** What the server can deliver; the acknowledged filter is the intersection. */
export interface ListenSupport {
  tools: boolean
  prompts: boolean
  resources: boolean
  subscribe: boolean
  /** The io.modelcontextprotocol/tasks extension is served and negotiated on this request. */
  tasks: boolean
}

export type ChangeKind = 'tools' | 'prompts' | 'resources'

const FLAG_OF: Record<ChangeKind, keyof ListenFilter> = {
  tools: 'toolsListChanged',
  prompts: 'promptsListChanged',
  resources: 'resourcesListChanged',
}

interface Listener {
  id: RequestId
  filter: ListenFilter
  outlet: Outlet
  /** The connection that opened it (a legacy session's own unsolicited events are not repeated). */
  connection?: Connection
  /** Called when the server ends the subscription (shutdown). */
  end(): void
}

export class ListenRegistry {
  private readonly listeners = new Set<Listener>()

  /**
   * Acknowledge and register. `ended` resolves when the server ends the subscription (close());
   * `close` unregisters when the client ended it.
   */
  open(
    id: RequestId,
    requested: unknown,
    support: ListenSupport,
    outlet: Outlet,
    connection?: Connection,
  ): { ended: Promise<void>; close(): void } {
    const filter = honoured(requested, support)
    outlet.send({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: { [META.SUBSCRIPTION_ID]: id }, notifications: filter },
    })
    let end!: () => void
    const ended = new Promise<void>((resolve) => (end = resolve))
    const listener: Listener = { id, filter, outlet, end, ...(connection && { connection }) }
    this.listeners.add(listener)
    return { ended, close: () => this.listeners.delete(listener) }
  }

  /** Server shutdown: every subscription ends gracefully (subscriptions.mdx "Graceful Closure"). */
  closeAll(): void {
    for (const l of this.listeners) l.end()
    this.listeners.clear()
  }

  /**
   * Does a listen of `connection` deliver this event? Then the session's unsolicited copy is not
   * sent too (a legacy client listening gets each event once, tagged).
   */
  delivers(connection: Connection, kind: ChangeKind | { uri: string }): boolean {
    for (const l of this.listeners) {
      if (l.connection !== connection) continue
      if (typeof kind === 'string' ? l.filter[FLAG_OF[kind]] : l.filter.resourceSubscriptions?.includes(kind.uri)) return true
    }
    return false
  }

  listChanged(kind: ChangeKind): void {
    for (const l of this.listeners) if (l.filter[FLAG_OF[kind]]) send(l, `notifications/${kind}/list_changed`, {})
  }

  /** SEP-2663 "Task Status Notifications": the full DetailedTask, to listeners of that task id. */
  taskStatus(taskId: string, detailedTask: JsonObject): void {
    for (const l of this.listeners) if (l.filter.taskIds?.includes(taskId)) send(l, 'notifications/tasks', detailedTask)
  }

  resourceUpdated(uri: string): void {
    for (const l of this.listeners) if (l.filter.resourceSubscriptions?.includes(uri)) send(l, 'notifications/resources/updated', { uri })
  }
}

function send(l: Listener, method: string, params: JsonObject): void {
  l.outlet.send({ jsonrpc: '2.0', method, params: { ...params, _meta: { [META.SUBSCRIPTION_ID]: l.id } } })
}

function honoured(requested: unknown, support: ListenSupport): ListenFilter {
  const r = (typeof requested === 'object' && requested !== null ? requested : {}) as JsonObject
  const out: ListenFilter = {}
  if (r.toolsListChanged === true && support.tools) out.toolsListChanged = true
  if (r.promptsListChanged === true && support.prompts) out.promptsListChanged = true
  if (r.resourcesListChanged === true && support.resources) out.resourcesListChanged = true
  if (Array.isArray(r.resourceSubscriptions) && support.subscribe) {
    out.resourceSubscriptions = r.resourceSubscriptions.filter((u): u is string => typeof u === 'string')
  }
  if (Array.isArray(r.taskIds) && support.tasks) out.taskIds = r.taskIds.filter((id): id is string => typeof id === 'string')
  return out
}
