/**
 * Pass-through in front of an upstream that cannot start: the host's handshake (legacy initialize,
 * 2026 server/discover) is answered with why, naming the server and what it wrote on stderr, as a
 * host connected to it directly would see it fail, not an empty server; other surfaces keep serving.
 * A query that names no surface at all is refused in JSON-RPC too.
 */
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { REPO_ROOT } from '../harness.ts'
import { testGateway } from '../support/gateway-daemon.ts'

const gateway = testGateway('passthrough-unavailable', {
  broken: { command: 'sh', args: ['-c', 'echo cannot open the database >&2; exit 1'] },
  needs_token: { command: 'sh', args: ['-c', 'exit 1'], env: { TOKEN: '${MCPX_TEST_UNSET_TOKEN}' } },
  up: { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/peers/gateway-upstream-fixture.ts')] },
})

async function post(query: string, body: object, headers: Record<string, string> = {}) {
  const response = await fetch(`${gateway.mcpUrl}${query}`, {
    method: 'POST',
    headers: { ...gateway.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  })
  const answer = (await response.json()) as {
    result?: Record<string, unknown>
    error?: { code: number; message: string; data?: Record<string, unknown> }
  }
  return { ...answer, session: response.headers.get('mcp-session-id') }
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'host', version: '1' } },
}

describe('pass-through of an upstream that cannot start', () => {
  test('a legacy initialize is answered with why, naming the server and its stderr', async () => {
    const answer = await post('?passthrough=broken', initialize)
    expect(answer.error?.code).toBe(-32603)
    expect(answer.error?.message).toStartWith('server "broken" is unavailable: ')
    expect(answer.error?.message).toContain('cannot open the database')
    expect(answer.error?.data).toMatchObject({ server: 'broken', mcpxCode: 'CONNECT' })
    // No session was opened for a handshake that failed.
    expect(answer.session).toBeNull()
  })

  test('a 2026 server/discover likewise', async () => {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'host', version: '1' },
    }
    const answer = await post(
      '?passthrough=broken',
      { jsonrpc: '2.0', id: 2, method: 'server/discover', params: { _meta: meta } },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
    )
    expect(answer.error?.message).toStartWith('server "broken" is unavailable: ')
  })

  test('a server that cannot be started as configured is named once, with the reason', async () => {
    const answer = await post('?passthrough=needs_token', initialize)
    expect(answer.error?.message).toBe(
      'server "needs_token" is unavailable: environment variable MCPX_TEST_UNSET_TOKEN is not set (mcpServers.needs_token.env.TOKEN)',
    )
  })

  test('a query that names no surface is refused with a JSON-RPC error an MCP client can read, and the status saying why', async () => {
    const refused = async (query: string) => {
      const response = await fetch(`${gateway.mcpUrl}${query}`, {
        method: 'POST',
        headers: { ...gateway.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(initialize),
      })
      return { status: response.status, body: (await response.json()) as Record<string, any> }
    }
    const unknown = await refused('?passthrough=nope')
    expect(unknown.status).toBe(404)
    expect(unknown.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32600, data: { mcpxCode: 'NOT_FOUND', server: 'nope' } } })
    expect(unknown.body.error.message).toStartWith('no server named "nope"')
    expect(await refused('?mode=bogus')).toMatchObject({
      status: 400,
      body: { jsonrpc: '2.0', error: { code: -32600, data: { mode: 'bogus' } } },
    })
    expect(await refused('?codemode=maybe')).toMatchObject({
      status: 400,
      body: { jsonrpc: '2.0', error: { code: -32600, message: 'the codemode parameter must be true or false, got "maybe"' } },
    })
  })

  test('the other surfaces keep serving', async () => {
    expect((await post('?passthrough=up', initialize)).result?.serverInfo).toMatchObject({ name: 'gateway-upstream-fixture' })
    expect((await post('?codemode=false', initialize)).result?.serverInfo).toMatchObject({ name: 'mcpx' })
  })
})
