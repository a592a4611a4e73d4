/**
 * A gateway daemon for one test file: `servers` (an `mcpServers` table) in a home of its own,
 * started before the file's tests and stopped after them. `headers` carries the daemon's token,
 * `mcpUrl` its `/mcp` (both set once it started).
 */
import { afterAll, beforeAll } from 'bun:test'
import { join } from 'node:path'
import { homeLayout, parseConfig } from '../../lib/config/index.ts'
import { type Daemon, readToken, startGatewayDaemon } from '../../lib/daemon/index.ts'
import type { SettingOverrides } from '../../lib/settings/index.ts'
import { tempDir, testSettings } from '../harness.ts'

export interface TestGateway {
  readonly daemon: Daemon
  readonly headers: Record<string, string>
  readonly mcpUrl: string
}

export function testGateway(name: string, servers: Record<string, unknown>, settings: SettingOverrides = {}): TestGateway {
  const dir = tempDir(`mcpx-${name}`)
  const gateway = {} as { daemon: Daemon; headers: Record<string, string>; mcpUrl: string }
  beforeAll(async () => {
    const config = parseConfig(JSON.stringify({ mcpServers: servers }), `${name}.json`, {})
    const layout = homeLayout(join(dir.path, 'home'), join(dir.path, 'config.json'))
    gateway.daemon = await startGatewayDaemon({
      settings: testSettings({ daemonIdleMs: 0, ...settings }),
      config,
      layout,
      version: '0.0.0-test',
    })
    gateway.headers = { Authorization: `Bearer ${readToken(layout.token)}` }
    gateway.mcpUrl = `${gateway.daemon.info().tcp.url}/mcp`
  })
  afterAll(async () => {
    await gateway.daemon?.shutdown('test done')
    dir[Symbol.dispose]()
  })
  return gateway
}
