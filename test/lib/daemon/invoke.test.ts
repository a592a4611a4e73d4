/** lib/daemon/daemon.ts: Daemon.invoke runs /v1 operations in process. */
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { homeLayout, parseConfig } from '../../../lib/config/index.ts'
import { startDaemon } from '../../../lib/daemon/index.ts'
import { UpstreamPool } from '../../../lib/gateway/index.ts'
import { tempDir, testSettings } from '../../harness.ts'

describe('Daemon.invoke', () => {
  test('runs /v1 operations in-process with the same validation; streams are HTTP-only', async () => {
    using dir = tempDir('mcpx-invoke')
    const settings = testSettings({ daemonIdleMs: 0 })
    const config = parseConfig('{"mcpServers": {"files": {"command": "server-files"}}}', 'config.json', {})
    const daemon = await startDaemon({
      settings,
      config,
      pool: new UpstreamPool({ config, settings }),
      layout: homeLayout(join(dir.path, 'home'), join(dir.path, 'config.json')),
      version: 'test',
    })
    try {
      expect(await daemon.invoke('servers')).toEqual([{ name: 'files', state: 'configured', transport: 'stdio', endpoint: 'server-files' }])
      expect(await daemon.invoke('health')).toMatchObject({ ok: true, pid: process.pid, version: 'test', servers: 1 })
      await expect(daemon.invoke('server', { name: 'nope' })).rejects.toMatchObject({ code: 'NOT_FOUND' })
      await expect(daemon.invoke('call', { server: 'files' })).rejects.toMatchObject({ code: 'USAGE', data: { param: 'tool' } })
      await expect(daemon.invoke('events')).rejects.toMatchObject({ code: 'USAGE' })
    } finally {
      await daemon.shutdown('test')
      expect(await daemon.closed).toBe('test')
    }
  })
})
