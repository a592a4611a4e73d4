/** lib/daemon/routes.ts: matching /v1 routes (404 vs 405 with Allow). */
import { describe, expect, test } from 'bun:test'
import { type Route, matchRoute } from '../../../lib/daemon/index.ts'

const route = (methods: string[], path: string, prefix = false): Route => ({ methods, path, prefix, handle: () => new Response(path) })
const routes = [
  route(['GET'], '/v1/servers'),
  route(['GET'], '/v1/servers/:name'),
  route(['GET'], '/v1/servers/:name/catalog'),
  route(['GET', 'POST', 'DELETE'], '/mcp', true),
]

describe('matchRoute', () => {
  test('exact paths, :params (decoded), prefixes for mounted handlers, 404 and 405 with Allow', () => {
    expect(matchRoute(routes, 'GET', '/v1/servers')).toMatchObject({ route: { path: '/v1/servers' }, params: {} })
    expect(matchRoute(routes, 'GET', '/v1/servers/my%20srv/catalog')).toMatchObject({
      route: { path: '/v1/servers/:name/catalog' },
      params: { name: 'my srv' },
    })
    expect(matchRoute(routes, 'GET', '/v1/servers/')).toMatchObject({ route: { path: '/v1/servers' } })
    expect(matchRoute(routes, 'DELETE', '/mcp')).toMatchObject({ route: { path: '/mcp' } })
    expect(matchRoute(routes, 'POST', '/mcp/demo')).toMatchObject({ route: { path: '/mcp' } })
    expect(matchRoute(routes, 'GET', '/v1/nothing')).toEqual({ status: 404 })
    expect(matchRoute(routes, 'POST', '/v1/servers/x')).toEqual({ status: 405, allow: 'GET' })
  })
})
