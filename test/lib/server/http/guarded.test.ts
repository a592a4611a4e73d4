/**
 * lib/server/http/handler.ts `guarded`: behind an embedder's guard (the daemon's security.ts owns
 * Host, Origin and the POST media type for both listeners) the handler runs no second rule of its
 * own; standalone it checks them itself. The same requests go to both, over a real Bun.serve.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Engine, createHttpHandler, defineServer } from '../../../../lib/server/index.ts'
import { testSettings } from '../../../harness.ts'

const settings = testSettings()
const engine = new Engine(defineServer({ info: { name: 'guarded', version: '1.0.0' } }), settings)
const standalone = createHttpHandler({ engine, settings, origin: {} })
const guarded = createHttpHandler({ engine, settings, guarded: true })
let server: ReturnType<typeof Bun.serve>

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: (request) => (new URL(request.url).pathname === '/guarded' ? guarded : standalone).fetch(request),
  })
})
afterAll(() => {
  server.stop(true)
  standalone.close()
  guarded.close()
})

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }
function discover(path: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`http://127.0.0.1:${server.port}${path}`, {
    method: 'POST',
    headers: {
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'server/discover',
      'content-type': 'application/json',
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: META } }),
  })
}

describe('the HTTP handler behind a guard', () => {
  test('standalone, it refuses a foreign Origin (403) and a non-JSON body (415) itself', async () => {
    expect((await discover('/mcp', { origin: 'https://evil.example.com' })).status).toBe(403)
    expect((await discover('/mcp', { 'content-type': 'text/plain' })).status).toBe(415)
    expect((await discover('/mcp', {})).status).toBe(200)
  })

  test('guarded, the embedder decided: neither rule runs a second time', async () => {
    expect((await discover('/guarded', { origin: 'https://evil.example.com' })).status).toBe(200)
    expect((await discover('/guarded', { 'content-type': 'text/plain' })).status).toBe(200)
  })
})
