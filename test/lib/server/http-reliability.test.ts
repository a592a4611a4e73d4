/**
 * The Streamable HTTP server under a bad request and at its stop (real Bun.serve on port 0): a
 * failed `initialize` sent on an existing session leaves that session serving at its revision; a
 * graceful close answers a 2025-11-25 call still running with a JSON-RPC error (never a 202 with an
 * empty body) and lets a call that finishes within shutdownGraceMs answer normally.
 */
import { describe, expect, test } from 'bun:test'
import { Engine, defineServer, serveHttp } from '../../../lib/server/index.ts'
import { testSettings } from '../../harness.ts'
import { call, init } from './messages.ts'

const settings = testSettings({ shutdownGraceMs: 300 })
const server = defineServer({
  info: { name: 'http-reliability', version: '1.0.0' },
  tools: [
    {
      name: 'echo',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      handler: async (args) => ({ content: [{ type: 'text', text: String(args.text) }] }),
    },
    {
      name: 'quick',
      inputSchema: { type: 'object' },
      handler: async () => (await Bun.sleep(50), { content: [{ type: 'text', text: 'quick done' }] }),
    },
    { name: 'stuck', inputSchema: { type: 'object' }, handler: () => new Promise(() => {}) },
  ],
})

const headers = (session?: string) => ({
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  'MCP-Protocol-Version': '2025-11-25',
  ...(session && { 'Mcp-Session-Id': session }),
})
const post = (url: string, body: unknown, session?: string) =>
  fetch(url, { method: 'POST', headers: headers(session), body: JSON.stringify(body) })

async function session(url: string): Promise<string> {
  const response = await post(url, init(1, '2025-11-25'))
  const id = response.headers.get('mcp-session-id')!
  await response.text()
  await (await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, id)).text()
  return id
}

describe('HTTP server reliability', () => {
  test('a failed initialize on an existing session leaves the session serving as before', async () => {
    await using http = serveHttp(new Engine(server, settings), settings)
    const id = await session(http.url)
    const bad = await post(http.url, init(2, 42), id)
    expect(((await bad.json()) as { error: { code: number } }).error.code).toBe(-32602)
    const after = await post(http.url, call(3, 'echo', { text: 'session intact' }), id)
    expect(after.status).toBe(200)
    expect(await after.json()).toMatchObject({ id: 3, result: { content: [{ text: 'session intact' }] } })
  })

  test('JSON nested beyond maxJsonDepth is refused with 400 and -32700 naming the setting', async () => {
    await using http = serveHttp(new Engine(server, settings), settings)
    const id = await session(http.url)
    const deep = await fetch(http.url, {
      method: 'POST',
      headers: headers(id),
      body: `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"x":${'['.repeat(200_000)}${']'.repeat(200_000)}}}`,
    })
    expect(deep.status).toBe(400)
    expect(((await deep.json()) as { error: { code: number; message: string } }).error).toMatchObject({
      code: -32700,
      message: expect.stringContaining('setting maxJsonDepth'),
    })
    expect((await post(http.url, call(10, 'echo', { text: 'ok' }), id)).status).toBe(200)
  })

  test('an id beyond 2^53 comes back byte for byte', async () => {
    await using http = serveHttp(new Engine(server, settings), settings)
    const id = await session(http.url)
    const answer = await fetch(http.url, {
      method: 'POST',
      headers: headers(id),
      body: '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}',
    })
    expect(await answer.text()).toContain('"id":9007199254740993,')
  })

  test('graceful close: a call that finishes within the grace is answered; one still running gets an error, never 202-empty', async () => {
    const http = serveHttp(new Engine(server, settings), settings)
    const id = await session(http.url)
    const quick = post(http.url, call('quick', 'quick'), id)
    const stuck = post(http.url, call('stuck', 'stuck'), id)
    await Bun.sleep(20)
    await http.close()
    const [q, s] = await Promise.all([quick, stuck])
    expect(q.status).toBe(200)
    expect(await q.json()).toMatchObject({ id: 'quick', result: { content: [{ text: 'quick done' }] } })
    expect(s.status).toBe(200)
    const body = (await s.json()) as { id: string; error: { message: string } }
    expect(body.id).toBe('stuck')
    expect(body.error.message).toContain('may or may not have run')
  })
})
