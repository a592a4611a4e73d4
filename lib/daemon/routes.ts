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
  /** The request's path and query string (`?…`, or '' without one), as `URL` spells them. */
  readonly pathname: string
  readonly search: string
  /** The parsed URL, built on first use (most /mcp requests need only pathname and search). */
  readonly url: URL
}

/** A RouteContext as one class: every request builds one, and its URL getter lives on the prototype. */
export class RequestRoute implements RouteContext {
  #url: URL | undefined

  constructor(
    readonly listener: ListenerKind,
    readonly params: Readonly<Record<string, string>>,
    readonly pathname: string,
    readonly search: string,
    private readonly request: Request,
  ) {}

  get url(): URL {
    return (this.#url ??= new URL(this.request.url))
  }
}

/**
 * The path and query of a request URL as `new URL(url)` gives them, without building one when the
 * URL is plain (every request pays for the route lookup): an absolute http URL whose path and
 * query hold only characters URL parsing leaves alone. Anything else (percent-escapes, dot
 * segments, backslashes, fragments…) is parsed by URL, so both spell every path the same way.
 */
export function targetOf(url: string): { readonly pathname: string; readonly search: string } {
  const scheme = url.startsWith('http://') ? 7 : url.startsWith('https://') ? 8 : -1
  const slash = scheme < 0 ? -1 : url.indexOf('/', scheme)
  if (slash > 0) {
    const query = url.indexOf('?', slash)
    const pathname = query < 0 ? url.slice(slash) : url.slice(slash, query)
    const search = query < 0 || query === url.length - 1 ? '' : url.slice(query)
    if (PLAIN_PATH.test(pathname) && PLAIN_QUERY.test(search)) return { pathname, search }
  }
  const parsed = new URL(url)
  return { pathname: parsed.pathname, search: parsed.search }
}

/** Path characters URL parsing keeps as they are; a '.' could start a dot segment, so none. */
const PLAIN_PATH = /^\/[A-Za-z0-9_\-/]*$/
/** Query characters URL parsing keeps as they are (no '#', no quotes, no spaces, no escapes). */
const PLAIN_QUERY = /^(\?[A-Za-z0-9_\-.=&]*)?$/

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

/**
 * The routes matched to a path with no `:params`, per table and method: the daemon's table holds
 * every /v1 operation, and /mcp, matched on every request, is mounted last. Kept per table length
 * (routes are only ever appended) and only for a path spelled exactly as its route, so it is bounded
 * by the table itself.
 */
const MATCHED = new WeakMap<readonly Route[], { length: number; byMethod: Map<string, Map<string, RouteMatch>> }>()

export function matchRoute(routes: readonly Route[], method: string, pathname: string): RouteMatch {
  let memo = MATCHED.get(routes)
  if (memo === undefined || memo.length !== routes.length) MATCHED.set(routes, (memo = { length: routes.length, byMethod: new Map() }))
  // Keyed by method, then path: no key string built per request.
  let byPath = memo.byMethod.get(method)
  const known = byPath?.get(pathname)
  if (known !== undefined) return known
  const match = findRoute(routes, method, pathname)
  if ('route' in match && match.route.path === pathname && Object.keys(match.params).length === 0) {
    if (byPath === undefined) memo.byMethod.set(method, (byPath = new Map()))
    byPath.set(pathname, { route: match.route, params: Object.freeze(match.params) })
  }
  return match
}

function findRoute(routes: readonly Route[], method: string, pathname: string): RouteMatch {
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
