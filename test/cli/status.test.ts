/** `mcpx status`: the configured servers, with and without a running daemon. */
import { describe, expect, test } from 'bun:test'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { runMcpx, errorJson } from '../harness.ts'
import { isolatedUser } from './cli-env.ts'

describe('mcpx status', () => {
  test('with no config and no daemon: the built-in demo server, daemon not running, exit 0', async () => {
    using user = isolatedUser('mcpx-cli-status')
    const human = await runMcpx(['status'], { env: user.env })
    expect(human.exitCode).toBe(0)
    expect(human.stdout).toStartWith(`daemon   not running (home ${user.env.MCPX_HOME})\nconfig   built-in default\nservers\n  demo  `)
    const json = JSON.parse((await runMcpx(['status', '--json'], { env: user.env })).stdout)
    expect(json).toMatchObject({ daemon: null, config: null, servers: [{ name: 'demo', state: 'configured', transport: 'stdio' }] })
  })

  test('reports the running daemon with its actual TCP port', async () => {
    using user = isolatedUser('mcpx-cli-status')
    const started = await runMcpx(['daemon', 'start', '--json'], { env: user.env })
    try {
      expect(started.exitCode).toBe(0)
      const info = JSON.parse(started.stdout)
      const status = JSON.parse((await runMcpx(['status', '--json'], { env: user.env })).stdout)
      expect(status.daemon.pid).toBe(info.pid)
      expect(status.daemon.tcp.port).toBe(info.tcp.port)
      expect(status.daemon.tcp.port).toBeGreaterThan(0)
      expect((await runMcpx(['status'], { env: user.env })).stdout).toContain(`tcp      http://127.0.0.1:${info.tcp.port} `)
    } finally {
      await runMcpx(['daemon', 'stop'], { env: user.env })
    }
  })

  test('a config file that does not parse is one line naming the file and the path inside it (exit 2)', async () => {
    using user = isolatedUser('mcpx-cli-status')
    mkdirSync(dirname(user.configFile), { recursive: true })
    writeFileSync(user.configFile, JSON.stringify({ mcpServers: { gh: { command: 42 } } }))
    const result = await runMcpx(['status'], { env: user.env })
    expect(result.exitCode).toBe(2)
    expect(result.stdout).toStartWith('daemon   not running')
    const { error } = errorJson(result.stderr)
    expect(error.code).toBe('CONFIG')
    expect(error.message).toStartWith(`config ${user.configFile}: mcpServers.gh.command: `)
  })

  test('an unset variable is not a config error: that server is unavailable, naming the variable and where', async () => {
    using user = isolatedUser('mcpx-cli-status')
    mkdirSync(dirname(user.configFile), { recursive: true })
    const servers = { gh: { command: 'gh', env: { TOKEN: '${UNSET_TOKEN_FOR_TEST}' } }, other: { command: 'other' } }
    writeFileSync(user.configFile, JSON.stringify({ mcpServers: servers }))
    const result = await runMcpx(['status'], { env: user.env })
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toContain(
      '  gh     unavailable: environment variable UNSET_TOKEN_FOR_TEST is not set (mcpServers.gh.env.TOKEN)  stdio',
    )
    // The table is `mcpx servers`'s (cli/render.ts serverTable): columns line up under the longest state.
    const rows = result.stdout.split('\n').filter((line) => line.startsWith('  gh ') || line.startsWith('  other '))
    expect(rows.map((row) => row.indexOf('  stdio  '))).toEqual([rows[0]!.indexOf('  stdio  '), rows[0]!.indexOf('  stdio  ')])
  })
})
