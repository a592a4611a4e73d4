/**
 * A daemon listening off loopback with OAuth on /mcp: that listener takes OAuth access tokens
 * only — the local token opens neither /v1 nor /mcp there — while the Unix socket stays the
 * owner's, as before.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { homeLayout, parseConfig } from '../../lib/config/index.ts'
import { type Daemon, readToken, startGatewayDaemon } from '../../lib/daemon/index.ts'
import { REPO_ROOT, tempDir, testSettings } from '../harness.ts'
import { type AuthorizationServer, MCP_SCOPE, SERVICE_CLIENT, startAuthorizationServer } from '../support/authorization-server.ts'

const dir = tempDir('mcpx-listener')
const layout = homeLayout(join(dir.path, 'home'), join(dir.path, 'config.json'))
let as: AuthorizationServer
let daemon: Daemon
let port: number

beforeAll(async () => {
  as = await startAuthorizationServer()
  const config = parseConfig(
    JSON.stringify({
      mcpServers: { up: { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/peers/gateway-upstream-fixture.ts')] } },
    }),
    'listener.json',
    {},
  )
  const settings = testSettings({ daemonIdleMs: 0, daemonAddress: '0.0.0.0', mcpAuthIssuer: as.issuer, mcpAuthScopes: MCP_SCOPE })
  daemon = await startGatewayDaemon({ settings, config, layout, version: '0.0.0-test' })
  port = daemon.info().tcp.port
})
afterAll(async () => {
  await daemon?.shutdown('test done')
  await as?.close()
  dir[Symbol.dispose]()
})

const listTools = (token: string) =>
  fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
        },
      },
    }),
  })

test('the local token does not open /v1 on a listener off loopback', async () => {
  const response = await fetch(`http://127.0.0.1:${port}/v1/health`, { headers: { authorization: `Bearer ${readToken(layout.token)}` } })
  expect(response.status).toBe(403)
  expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
    'this listener is not on loopback and serves only /mcp with OAuth access tokens',
  )
})

test('the local token is not an access token on /mcp there', async () => {
  const response = await listTools(readToken(layout.token)!)
  expect(response.status).toBe(401)
  expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"')
})

test('an OAuth access token for the resource is accepted', async () => {
  const token = await as.clientCredentials(SERVICE_CLIENT, `http://0.0.0.0:${port}/mcp`, MCP_SCOPE)
  const response = await listTools(token)
  expect(response.status).toBe(200)
  const tools = ((await response.json()) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name)
  expect(tools).toContain('mcpx_call')
})

test("the Unix socket is still the owner's, without any token", async () => {
  const response = await fetch('http://localhost/v1/health', { unix: layout.socket })
  expect(response.status).toBe(200)
})
