/**
 * URL-mode elicitation through the gateway (2025-11-25 client/elicitation.mdx "URL Mode"): mcpx
 * declares both modes to upstreams, so a server may ask for a URL; the question reaches a host
 * that declared `elicitation.url`, and one that declared form mode only is refused (-32021), the
 * upstream seeing an error rather than a host asked what it cannot answer. The upstream is an SDK
 * 1.x server (test/fixtures/peers/url-elicit-fixture.ts), which itself refuses to ask a client
 * that did not declare URL mode; the hosts are SDK 1.x clients speaking 2025-11-25.
 */
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { SIGN_IN_URL } from '../fixtures/peers/url-elicit-fixture-url.ts'
import { REPO_ROOT } from '../harness.ts'
import { testGateway } from '../support/gateway-daemon.ts'

const gateway = testGateway('url-elicitation', {
  u: { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/peers/url-elicit-fixture.ts')] },
})

async function host(elicitation: Record<string, unknown>, asked: unknown[]): Promise<Client> {
  const client = new Client({ name: 'url-host', version: '1.0.0' }, { capabilities: { elicitation } })
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params)
    return { action: 'accept' }
  })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gateway.mcpUrl}?passthrough=u`), { requestInit: { headers: gateway.headers } }),
  )
  return client
}

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content.map((c) => c.text).join('\n')

describe('URL-mode elicitation through the gateway', () => {
  test('a host that declared elicitation.url is asked, with the full URL, and its answer goes upstream', async () => {
    const asked: unknown[] = []
    const client = await host({ form: {}, url: {} }, asked)
    try {
      const result = await client.callTool({ name: 'sign_in', arguments: {} })
      expect(textOf(result)).toBe('action: accept')
      expect(asked).toMatchObject([{ mode: 'url', url: SIGN_IN_URL, message: 'Sign in to continue' }])
    } finally {
      await client.close()
    }
  })

  test('a host that declared form mode only is never asked; the upstream gets -32021', async () => {
    const asked: unknown[] = []
    const client = await host({}, asked)
    try {
      const result = await client.callTool({ name: 'sign_in', arguments: {} })
      expect(result.isError).toBe(true)
      expect(textOf(result)).toMatch(/elicitation failed: .*URL-mode elicitation, but the host that made the call declared form mode only/)
      expect(asked).toEqual([])
    } finally {
      await client.close()
    }
  })
})
