import { describe, expect, test } from 'bun:test'
import { parseConfig } from '../../../lib/config/index.ts'

describe('record path', () => {
  test('a relative `record` path is resolved against the config file, an absolute one kept', () => {
    const config = parseConfig(
      JSON.stringify({
        mcpServers: { a: { command: 'x', record: 'recordings/a.jsonl' }, b: { url: 'http://127.0.0.1:1/mcp', record: '/var/tmp/b.jsonl' } },
      }),
      '/home/me/.config/mcpx/config.json',
      {},
    )
    expect(config.servers.a!.record).toBe('/home/me/.config/mcpx/recordings/a.jsonl')
    expect(config.servers.b!.record).toBe('/var/tmp/b.jsonl')
  })
})
