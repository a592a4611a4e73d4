/**
 * Methods per revision and direction, as data. Core lists are exactly the `ClientRequest`,
 * `ServerRequest`, `ClientNotification` and `ServerNotification` unions of each revision's
 * schema.json (test/lib/wire/matrix.test.ts proves it both ways). 2026-07-28 adds the MRTR input
 * requests (objects inside InputRequiredResult, never JSON-RPC requests) and extension methods.
 */
import { methodIndexes } from '../caches.ts'
import { EXTENSION, REVISIONS, type Revision } from '../constants.ts'

export type Direction = 'client-to-server' | 'server-to-client'

export interface RevisionMethods {
  clientRequests: readonly string[]
  serverRequests: readonly string[]
  clientNotifications: readonly string[]
  serverNotifications: readonly string[]
  /** 2026-07-28 basic/patterns/mrtr.mdx: `inputRequests` values (method + params, no id). */
  inputRequests: readonly string[]
}

const BASE_CLIENT_REQUESTS = [
  'initialize',
  'ping',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'tools/list',
  'tools/call',
  'logging/setLevel',
  'completion/complete',
] as const
const BASE_CLIENT_NOTIFICATIONS = [
  'notifications/cancelled',
  'notifications/initialized',
  'notifications/progress',
  'notifications/roots/list_changed',
] as const
const BASE_SERVER_NOTIFICATIONS = [
  'notifications/cancelled',
  'notifications/progress',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
  'notifications/prompts/list_changed',
  'notifications/tools/list_changed',
  'notifications/message',
] as const
const TASK_REQUESTS_2025_11_25 = ['tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/list'] as const

/** Core methods of each revision (schema unions). */
export const METHODS: Readonly<Record<Revision, RevisionMethods>> = {
  '2024-11-05': {
    clientRequests: BASE_CLIENT_REQUESTS,
    serverRequests: ['ping', 'sampling/createMessage', 'roots/list'],
    clientNotifications: BASE_CLIENT_NOTIFICATIONS,
    serverNotifications: BASE_SERVER_NOTIFICATIONS,
    inputRequests: [],
  },
  '2025-03-26': {
    clientRequests: BASE_CLIENT_REQUESTS,
    serverRequests: ['ping', 'sampling/createMessage', 'roots/list'],
    clientNotifications: BASE_CLIENT_NOTIFICATIONS,
    serverNotifications: BASE_SERVER_NOTIFICATIONS,
    inputRequests: [],
  },
  '2025-06-18': {
    clientRequests: BASE_CLIENT_REQUESTS,
    serverRequests: ['ping', 'sampling/createMessage', 'roots/list', 'elicitation/create'],
    clientNotifications: BASE_CLIENT_NOTIFICATIONS,
    serverNotifications: BASE_SERVER_NOTIFICATIONS,
    inputRequests: [],
  },
  '2025-11-25': {
    clientRequests: [...BASE_CLIENT_REQUESTS, ...TASK_REQUESTS_2025_11_25],
    serverRequests: ['ping', ...TASK_REQUESTS_2025_11_25, 'sampling/createMessage', 'roots/list', 'elicitation/create'],
    clientNotifications: [...BASE_CLIENT_NOTIFICATIONS, 'notifications/tasks/status'],
    serverNotifications: [...BASE_SERVER_NOTIFICATIONS, 'notifications/tasks/status', 'notifications/elicitation/complete'],
    inputRequests: [],
  },
  '2026-07-28': {
    clientRequests: [
      'server/discover',
      'resources/list',
      'resources/templates/list',
      'resources/read',
      'subscriptions/listen',
      'prompts/list',
      'prompts/get',
      'tools/list',
      'tools/call',
      'completion/complete',
    ],
    // 2026-07-28 basic/patterns/index.mdx: servers MUST NOT initiate JSON-RPC requests.
    serverRequests: [],
    // 2026-07-28 schema/schema.json ClientNotification is CancelledNotification alone (stdio only; over HTTP closing
    // the stream cancels: basic/transports/streamable-http.mdx "Cancellation").
    clientNotifications: ['notifications/cancelled'],
    serverNotifications: [
      'notifications/cancelled',
      'notifications/progress',
      'notifications/resources/list_changed',
      'notifications/subscriptions/acknowledged',
      'notifications/resources/updated',
      'notifications/prompts/list_changed',
      'notifications/tools/list_changed',
      'notifications/message',
    ],
    inputRequests: ['sampling/createMessage', 'roots/list', 'elicitation/create'],
  },
}

/** Methods an extension adds, with the revisions it applies to (SEP-2663 tasks extension). */
export interface ExtensionMethods extends Omit<RevisionMethods, 'inputRequests'> {
  revisions: readonly Revision[]
}
export const EXTENSION_METHODS: Readonly<Record<string, ExtensionMethods>> = {
  [EXTENSION.TASKS]: {
    // SEP-2663: tasks/get, tasks/update, tasks/cancel; statuses pushed as notifications/tasks on a listen stream.
    revisions: ['2026-07-28'],
    clientRequests: ['tasks/get', 'tasks/update', 'tasks/cancel'],
    serverRequests: [],
    clientNotifications: [],
    serverNotifications: ['notifications/tasks'],
  },
}

export interface MethodQuery {
  /** Count extension methods (e.g. SEP-2663 tasks) as existing. Default false: core only. */
  extensions?: boolean
}

/**
 * Does `method` exist in `revision`, as a request or notification sent in `direction` (any when
 * omitted)? MRTR input requests of 2026 count as server-to-client.
 */
export function methodExists(revision: Revision, method: string, direction?: Direction, query: MethodQuery = {}): boolean {
  const index = methodIndex(revision, query.extensions === true)
  if (direction === 'client-to-server') return index.clientToServer.has(method)
  if (direction === 'server-to-client') return index.serverToClient.has(method)
  return index.clientToServer.has(method) || index.serverToClient.has(method)
}

/** True when `method` is a request (not a notification) sent in `direction` under `revision`. */
export function isRequestMethod(revision: Revision, method: string, direction: Direction, query: MethodQuery = {}): boolean {
  const index = methodIndex(revision, query.extensions === true)
  return (direction === 'client-to-server' ? index.clientRequests : index.serverRequests).has(method)
}

/** The lists above as sets, per revision with and without extensions: every message asks these. */
export interface MethodIndex {
  clientToServer: Set<string>
  serverToClient: Set<string>
  clientRequests: Set<string>
  serverRequests: Set<string>
}
/** Built once per revision and extensions flag; kept in ../caches.ts methodIndexes. */

function methodIndex(revision: Revision, extensions: boolean): MethodIndex {
  let pair = methodIndexes.get(revision)
  if (pair === undefined) methodIndexes.set(revision, (pair = [undefined, undefined]))
  const slot = extensions ? 1 : 0
  let index = pair[slot]
  if (index === undefined) {
    const core = METHODS[revision]
    const exts = extensions ? Object.values(EXTENSION_METHODS).filter((ext) => ext.revisions.includes(revision)) : []
    const clientRequests = [...core.clientRequests, ...exts.flatMap((e) => e.clientRequests)]
    const serverRequests = [...core.serverRequests, ...exts.flatMap((e) => e.serverRequests)]
    index = {
      clientToServer: new Set([...clientRequests, ...core.clientNotifications, ...exts.flatMap((e) => e.clientNotifications)]),
      serverToClient: new Set([
        ...serverRequests,
        ...core.serverNotifications,
        ...core.inputRequests,
        ...exts.flatMap((e) => e.serverNotifications),
      ]),
      clientRequests: new Set(clientRequests),
      serverRequests: new Set(serverRequests),
    }
    pair[slot] = index
  }
  return index
}

/** True when `method` existed in the core of an earlier revision but not in `revision`'s core. */
export function isRemovedIn(revision: Revision, method: string): boolean {
  if (methodExists(revision, method)) return false
  return REVISIONS.some((earlier) => earlier < revision && methodExists(earlier, method))
}

/** The revision that introduced `method` into the core, or undefined if no revision has it. */
export function introducedIn(method: string): Revision | undefined {
  return REVISIONS.find((revision) => methodExists(revision, method))
}

/** True when some revision (or extension) defines `method`; false for vendor methods. */
export function isSpecMethod(method: string): boolean {
  return SPEC_METHODS.has(method)
}
const SPEC_METHODS = new Set(
  REVISIONS.flatMap((revision) => [...methodIndex(revision, true).clientToServer, ...methodIndex(revision, true).serverToClient]),
)
