/** lib/daemon/routes.ts: matching /v1 routes (404 vs 405 with Allow). */
import { describe, expect, test } from 'bun:test'
import { type Route, matchRoute } from '../../../lib/daemon/index.ts'
import { targetOf } from '../../../lib/daemon/routes.ts'

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

describe('targetOf', () => {
  test('gives the pathname and search that new URL gives, for plain and for unusual request URLs', () => {
    const urls = [
      'http://127.0.0.1:4000/mcp',
      'http://127.0.0.1:4000/mcp?codemode=false',
      'http://127.0.0.1:4000/mcp?',
      'http://localhost/v1/servers/a-b_c/catalog?x=1&y=2.5',
      'http://[::1]:9/v1/health',
      'http://127.0.0.1:4000/v1/../mcp',
      'http://127.0.0.1:4000/./mcp',
      'http://127.0.0.1:4000/mcp/%2e%2e/v1',
      'http://127.0.0.1:4000/v1/servers/my%20srv',
      'http://127.0.0.1:4000/mcp?passthrough=a%20b',
      'http://127.0.0.1:4000/mcp?a=<b>',
      'http://127.0.0.1:4000/mcp#frag',
      'http://127.0.0.1:4000/MCP//x/',
      'http://127.0.0.1:4000/',
      'https://example.com/mcp?mode=raw',
    ]
    for (const url of urls) {
      const parsed = new URL(url)
      expect({ url, ...targetOf(url) }).toEqual({ url, pathname: parsed.pathname, search: parsed.search })
    }
  })
})

describe('matchRoute memo', () => {
  test('a remembered match follows routes appended later and never stands for a path spelled otherwise', () => {
    const table: Route[] = [route(['GET'], '/v1/a')]
    expect(matchRoute(table, 'GET', '/v1/a')).toMatchObject({ route: { path: '/v1/a' } })
    expect(matchRoute(table, 'POST', '/mcp')).toEqual({ status: 404 })
    table.push(route(['POST'], '/mcp'))
    expect(matchRoute(table, 'POST', '/mcp')).toMatchObject({ route: { path: '/mcp' }, params: {} })
    expect(matchRoute(table, 'POST', '/mcp')).toMatchObject({ route: { path: '/mcp' }, params: {} })
    expect(matchRoute(table, 'GET', '/mcp')).toEqual({ status: 405, allow: 'POST' })
    expect(matchRoute(table, 'POST', '/mcp/')).toMatchObject({ route: { path: '/mcp' } })
  })
})
