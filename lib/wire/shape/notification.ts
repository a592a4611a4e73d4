/**
 * Notifications spelled down to the peer's revision. A notification type the revision does not
 * define (e.g. `notifications/subscriptions/acknowledged` for a legacy peer, or
 * `notifications/elicitation/complete` for anyone but 2025-11-25) yields null: the caller drops it.
 * Vendor notifications pass through with their `_meta` shaped.
 */
import type { Revision } from '../constants.ts'
import { projectFields } from '../matrix/fields.ts'
import { isSpecMethod, methodExists } from '../matrix/methods.ts'
import { shapeMeta } from './meta.ts'
import { isRecord, type JsonObject } from '../jsonrpc.ts'
import { legacyTask } from './tasks.ts'

/** `T` with its params loosened to a plain record (shaping may drop fields). */
export type Shaped<T> = Omit<T, 'params'> & { params?: Record<string, unknown> }
export interface OutgoingNotification {
  method: string
  params?: JsonObject
  [key: string]: unknown
}

/** The notification as `revision` spells it, or null when that revision has no such notification. */
export function shapeNotification<T extends OutgoingNotification>(revision: Revision, notification: T): Shaped<T> | null {
  // Spec notifications the revision lacks are dropped; vendor notifications pass (meta shaped).
  if (isSpecMethod(notification.method) && !methodExists(revision, notification.method, undefined, { extensions: true })) return null
  if (notification.params === undefined) return { ...notification }
  let params: JsonObject = { ...notification.params }
  const meta = shapeMeta(revision, params._meta)
  if (meta === undefined) delete params._meta
  else params._meta = meta
  switch (notification.method) {
    case 'notifications/progress':
      params = projectFields(revision, 'ProgressNotificationParams', params)
      break
    case 'notifications/tasks/status':
      // 2025-11-25 TaskStatusNotificationParams = NotificationParams & Task (flat, `ttl`).
      params = { ...(isRecord(params._meta) ? { _meta: params._meta } : {}), ...legacyTask(params) }
      break
  }
  return { ...notification, params }
}
