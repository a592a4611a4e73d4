/** lib/daemon/pool-contract.ts: the configured (never-connected) pool. */
import { describe, expect, test } from 'bun:test'
import { parseConfig } from '../../../lib/config/index.ts'
import { createConfiguredPool } from '../../../lib/daemon/index.ts'
import { McpxError } from '../../../lib/errors/index.ts'
import { testSettings } from '../../harness.ts'

describe('createConfiguredPool', () => {
  const config = parseConfig(
    JSON.stringify({
      mcpServers: {
        files: { command: 'server-files', env: { SECRET: 's3cret' }, description: 'Files' },
        web: { url: 'https://user:pw@example.com/mcp?key=s3cret', headers: { Authorization: 'Bearer s3cret' }, disabled: true, protocol: '2025-06-18' },
      },
    }),
    'config.json',
    {},
  )
  const pool = createConfiguredPool(config)

  test('lists configured servers with their state and no secrets', () => {
    expect(pool.servers()).toEqual([
      { name: 'files', state: 'configured', transport: 'stdio', endpoint: 'server-files', description: 'Files' },
      { name: 'web', state: 'disabled', transport: 'http', endpoint: 'https://example.com/mcp', protocol: '2025-06-18' },
    ])
    expect(JSON.stringify(pool.servers())).not.toContain('s3cret')
  })

  test('unknown names are NOT_FOUND; calls and catalogs say CONNECT with the state', async () => {
    expect(() => pool.status('nope')).toThrow(new McpxError('NOT_FOUND', 'no server named "nope" (configured: files, web)'))
    await expect(pool.call('files', 'read', {})).rejects.toMatchObject({ code: 'CONNECT', data: { server: 'files', state: 'configured' } })
    await expect(pool.catalog('web')).rejects.toMatchObject({ code: 'CONNECT', message: 'server "web" is not connected: it is disabled in the config' })
  })
})
