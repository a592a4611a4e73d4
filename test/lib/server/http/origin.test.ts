/** lib/server/http/origin.ts: Host and Origin checks against DNS rebinding (TR-41). */
import { describe, expect, test } from 'bun:test'
import { checkOrigin, isAllowedHost, isAllowedOrigin } from '../../../../lib/server/http/origin.ts'

function req(headers: Record<string, string>, url = 'http://127.0.0.1:4100/mcp'): Request {
  return new Request(url, { method: 'POST', headers })
}

describe('checkOrigin (TR-41 DNS rebinding)', () => {
  const policy = { port: 4100 }

  test('loopback Host with the listener port and no Origin passes', () => {
    for (const host of ['localhost:4100', '127.0.0.1:4100', '[::1]:4100', 'LOCALHOST:4100']) {
      expect(checkOrigin(req({ host }), policy)).toBeUndefined()
    }
  })

  test('a rebinding Host is refused with 403 and an id-less JSON-RPC error', async () => {
    const response = checkOrigin(req({ host: 'evil.example.com:4100' }), policy)
    expect(response?.status).toBe(403)
    const body = await response!.json()
    expect(body.jsonrpc).toBe('2.0')
    expect('id' in body).toBe(false)
    expect(body.error.code).toBe(-32600)
    expect(body.error.message).toContain('evil.example.com')
  })

  test('loopback Host on another port is refused; no port only matches port 80', () => {
    expect(checkOrigin(req({ host: 'localhost:4101' }), policy)?.status).toBe(403)
    expect(checkOrigin(req({ host: 'localhost' }), policy)?.status).toBe(403)
    expect(checkOrigin(req({ host: 'localhost' }), { port: 80 })).toBeUndefined()
    expect(checkOrigin(req({ host: 'localhost:9' }), {})).toBeUndefined()
  })

  test('Origin: own loopback origin passes, foreign and "null" are 403', () => {
    expect(checkOrigin(req({ host: 'localhost:4100', origin: 'http://localhost:4100' }), policy)).toBeUndefined()
    expect(checkOrigin(req({ host: 'localhost:4100', origin: 'http://evil.example.com' }), policy)?.status).toBe(403)
    expect(checkOrigin(req({ host: 'localhost:4100', origin: 'null' }), policy)?.status).toBe(403)
    expect(checkOrigin(req({ host: 'localhost:4100', origin: 'http://localhost:5173' }), policy)?.status).toBe(403)
    expect(checkOrigin(req({ host: 'localhost:4100', origin: 'file://' }), policy)?.status).toBe(403)
  })

  test('allow-lists extend hosts and origins', () => {
    const open = { port: 4100, allowedHosts: ['mcp.internal', 'box.lan:8443'], allowedOrigins: ['https://app.example.com'] }
    expect(isAllowedHost('mcp.internal:1234', open)).toBe(true)
    expect(isAllowedHost('box.lan:8443', open)).toBe(true)
    expect(isAllowedHost('box.lan:8444', open)).toBe(false)
    expect(isAllowedOrigin('https://app.example.com', open)).toBe(true)
    expect(isAllowedOrigin('https://APP.example.com', open)).toBe(true)
    expect(isAllowedOrigin('https://app.example.com.evil.io', open)).toBe(false)
    expect(checkOrigin(req({ host: 'mcp.internal', origin: 'https://app.example.com' }), open)).toBeUndefined()
  })

  test('malformed Host values are refused', () => {
    for (const host of ['localhost:abc', '[::1', 'localhost:4100:1', '']) expect(isAllowedHost(host, policy)).toBe(false)
  })

  test('checkHost: false (Unix socket) still checks Origin', () => {
    expect(checkOrigin(req({ host: 'whatever' }), { checkHost: false })).toBeUndefined()
    expect(checkOrigin(req({ host: 'whatever', origin: 'http://evil.example.com' }), { checkHost: false })?.status).toBe(403)
  })

  test('over a real listener: rebinding refused, localhost served', async () => {
    const policy: { port?: number } = {}
    await using server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: (request: Request): Response => checkOrigin(request, policy) ?? new Response('ok'),
    })
    policy.port = server.port
    const url = `http://127.0.0.1:${server.port}/mcp`
    const evil = await fetch(url, { method: 'POST', headers: { host: 'evil.example.com', origin: 'http://evil.example.com' } })
    expect(evil.status).toBe(403)
    // A rebound page may send no Origin at all (same-origin GET/POST from the attacker's name).
    const reboundHost = await fetch(url, { method: 'POST', headers: { host: `evil.example.com:${server.port}` } })
    expect(reboundHost.status).toBe(403)
    const good = await fetch(url, { method: 'POST', headers: { origin: `http://localhost:${server.port}` } })
    expect(good.status).toBe(200)
    expect(await good.text()).toBe('ok')
  })
})
