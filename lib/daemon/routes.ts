/**
 * The daemon's route table: /v1 operations are derived into routes, and later rooms mount theirs
 * (the gateway's /mcp Streamable HTTP handler) with `Daemon.mount`. Every route sits behind the
 * same guard (security.ts), so /mcp and /v1 cannot drift apart.
 */
import type { ListenerKind } from './security.ts'
import { HTTP_STATUS } from '../wire/index.ts'

export interface RouteContext {
  readonly listener: ListenerKind
  /** `:name` segments of the matched path. */
  readonly params: Readonly<Record<string, string>>
  readonly url: URL
}

export interface Route {
  /** Methods answered; others get 405. */
  readonly methods: readonly string[]
  /** `/v1/servers/:name`; with `prefix`, also every path below it. */
  readonly path: string
  readonly prefix?: boolean
  handle(request: Request, context: RouteContext): Response | Promise<Response>
}

export type RouteMatch =
  | { readonly route: Route; readonly params: Record<string, string> }
  | { readonly status: typeof HTTP_STATUS.NOT_FOUND | typeof HTTP_STATUS.METHOD_NOT_ALLOWED; readonly allow?: string }

export function matchRoute(routes: readonly Route[], method: string, pathname: string): RouteMatch {
  const got = pathname.replace(/\/+$/, '').split('/')
  const allowed: string[] = []
  for (const route of routes) {
    const params = matchPath(route, got)
    if (params === null) continue
    if (route.methods.includes(method)) return { route, params }
    allowed.push(...route.methods)
  }
  return allowed.length > 0
    ? { status: HTTP_STATUS.METHOD_NOT_ALLOWED, allow: [...new Set(allowed)].join(', ') }
    : { status: HTTP_STATUS.NOT_FOUND }
}

/** Each route's path split once: every request is matched against the whole table. */
const SEGMENTS = new WeakMap<Route, string[]>()

function matchPath(route: Route, got: readonly string[]): Record<string, string> | null {
  let want = SEGMENTS.get(route)
  if (want === undefined) SEGMENTS.set(route, (want = route.path.split('/')))
  if (route.prefix ? got.length < want.length : got.length !== want.length) return null
  const params: Record<string, string> = {}
  for (const [index, part] of want.entries()) {
    const value = got[index]!
    if (part.startsWith(':')) {
      if (value === '') return null
      params[part.slice(1)] = decodeURIComponent(value)
    } else if (part !== value) {
      return null
    }
  }
  return params
}
