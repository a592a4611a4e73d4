/** lib/config: the oauth block of a remote server entry. */
import { describe, expect, test } from 'bun:test'
import { parseConfig } from '../../../lib/config/index.ts'
import { McpxError } from '../../../lib/errors/index.ts'

const parse = (entry: unknown, env: Record<string, string> = {}) =>
  parseConfig(JSON.stringify({ mcpServers: { web: entry } }), '/etc/mcpx.json', env)

describe('remote entry oauth block', () => {
  test('is carried on the http target, interpolated like the rest of the entry', () => {
    const config = parse(
      {
        url: 'https://example.com/mcp',
        oauth: { clientId: 'cli', clientSecret: '${SECRET}', grant: 'client_credentials', scope: 'read write', offlineAccess: false },
      },
      { SECRET: 's3' },
    )
    expect(config.servers.web!.target).toEqual({
      kind: 'http',
      url: 'https://example.com/mcp',
      headers: {},
      transport: 'auto',
      oauth: { clientId: 'cli', clientSecret: 's3', grant: 'client_credentials', scope: 'read write', offlineAccess: false },
    })
  })

  test('absent oauth leaves the target without the key', () => {
    expect(parse({ url: 'https://example.com/mcp' }).servers.web!.target).not.toHaveProperty('oauth')
  })

  test('a typo or a bad value in the block is a CONFIG error naming the path', () => {
    for (const oauth of [{ clientID: 'x' }, { grant: 'password' }, { issuer: 'not a url' }]) {
      let error: unknown
      try {
        parse({ url: 'https://example.com/mcp', oauth })
      } catch (caught) {
        error = caught
      }
      expect(error).toBeInstanceOf(McpxError)
      expect((error as McpxError).code).toBe('CONFIG')
      expect((error as McpxError).message).toContain('oauth')
    }
  })
})
