import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { homeLayout, parseConfig } from '../../../lib/config/index.ts'
import { operationTools, startDaemon } from '../../../lib/daemon/index.ts'
import { tempDir, testSettings } from '../../harness.ts'

describe('Daemon.invoke and the derived MCP tools', () => {
  test('runs /v1 operations in-process with the same validation; streams are HTTP-only', async () => {
    using dir = tempDir('mcpx-invoke')
    const daemon = await startDaemon({
      settings: testSettings({ daemonIdleMs: 0 }),
      config: parseConfig('{"mcpServers": {"files": {"command": "server-files"}}}', 'config.json', {}),
      layout: homeLayout(join(dir.path, 'home')),
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

  test('mcpx_<op> tools carry the JSON Schema of each operation, without streams or shutdown', () => {
    const tools = operationTools()
    expect(tools.map((tool) => tool.name)).toEqual(['mcpx_operations', 'mcpx_health', 'mcpx_servers', 'mcpx_server', 'mcpx_catalog', 'mcpx_call', 'mcpx_protocol'])
    expect(tools.find((tool) => tool.name === 'mcpx_call')!.inputSchema).toEqual({
      type: 'object',
      properties: {
        server: { type: 'string', description: 'Configured server name' },
        tool: { type: 'string', description: 'Tool name on that server' },
        arguments: { type: 'object', description: 'Tool arguments (a JSON object)' },
        timeoutMs: { type: 'integer', description: 'Deadline for this call in milliseconds' },
      },
      required: ['server', 'tool'],
      additionalProperties: false,
    })
  })
})
