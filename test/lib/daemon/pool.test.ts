/** lib/daemon/pool-contract.ts: the Pool the daemon serves, as the gateway's real pool fills it before any connection. */
import { describe, expect, test } from 'bun:test'
import { parseConfig } from '../../../lib/config/index.ts'
import { UpstreamPool } from '../../../lib/gateway/index.ts'
import type { Pool } from '../../../lib/daemon/index.ts'
import { testSettings } from '../../harness.ts'

describe('the daemon Pool before any connection', () => {
  const config = parseConfig(
    JSON.stringify({
      mcpServers: {
        files: { command: 'server-files', env: { SECRET: 's3cret' }, description: 'Files' },
        web: {
          url: 'https://user:pw@example.com/mcp?key=s3cret',
          headers: { Authorization: 'Bearer s3cret' },
          disabled: true,
          protocol: '2025-06-18',
        },
      },
    }),
    'config.json',
    {},
  )
  const pool: Pool = new UpstreamPool({ config, settings: testSettings() })

  test('lists configured servers with their state and no secrets', () => {
    expect(pool.servers()).toEqual([
      { name: 'files', state: 'configured', transport: 'stdio', endpoint: 'server-files', description: 'Files' },
      { name: 'web', state: 'disabled', transport: 'http', endpoint: 'https://example.com/mcp', protocol: '2025-06-18' },
    ])
    expect(JSON.stringify(pool.servers())).not.toContain('s3cret')
  })

  test('unknown names are NOT_FOUND naming what is configured; a disabled server is not connected', async () => {
    expect(() => pool.status('nope')).toThrow(/no server named "nope".*configured: files, web/)
    await expect(pool.call('web', 'read', {})).rejects.toMatchObject({
      code: 'CONNECT',
      message: 'server "web" is disabled in the config',
      data: { server: 'web' },
    })
    await pool.close()
  })
})
