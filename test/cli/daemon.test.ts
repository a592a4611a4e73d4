/** `mcpx daemon`: subcommands derived from the /v1 operation table; start, operations and stop on a spawned daemon. */
import { describe, expect, test } from 'bun:test'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { REPO_ROOT, runMcpx, errorJson } from '../harness.ts'
import { isolatedUser } from './cli-env.ts'

describe('mcpx daemon', () => {
  test('subcommands are derived from the /v1 operation table', async () => {
    using user = isolatedUser('mcpx-cli-daemon')
    const help = await runMcpx(['daemon', '--help'], { env: user.env })
    for (const name of [
      'start',
      'stop',
      'status',
      'run',
      'health',
      'servers',
      'server',
      'catalog',
      'call',
      'protocol',
      'events',
      'operations',
    ]) {
      expect(help.stdout).toContain(name)
    }
  })

  test('start, derived operations and stop, human and --json', async () => {
    using user = isolatedUser('mcpx-cli-daemon')
    mkdirSync(dirname(user.configFile), { recursive: true })
    writeFileSync(
      user.configFile,
      JSON.stringify({
        mcpServers: { up: { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/peers/gateway-upstream-fixture.ts')] } },
      }),
    )
    try {
      const start = await runMcpx(['daemon', 'start'], { env: user.env })
      expect(start.exitCode).toBe(0)
      expect(start.stdout).toMatch(
        /^daemon   running \(pid \d+, mcpx [^,]+, up \d+s\)\nsocket   .*daemon\.sock\ntcp      http:\/\/127\.0\.0\.1:\d+ /,
      )
      const server = await runMcpx(['daemon', 'server', '--name', 'up'], { env: user.env })
      expect(JSON.parse(server.stdout)).toMatchObject({ name: 'up', transport: 'stdio' })
      const call = await runMcpx(['daemon', 'call', '--server', 'up', '--tool', 'add', '--arguments', '{"a":2,"b":40}'], { env: user.env })
      expect(call.exitCode).toBe(0)
      expect(JSON.parse(call.stdout)).toMatchObject({ content: [{ type: 'text', text: '42' }] })
      const badJson = await runMcpx(['daemon', 'call', '--server', 'up', '--tool', 'echo', '--arguments', '{oops'], { env: user.env })
      expect(badJson.exitCode).toBe(2)
      const other = join(user.project, 'other.json')
      writeFileSync(other, '{"mcpServers": {}}')
      // Another config has its own daemon: no warning about the first one, its own (empty) server list.
      const second = await runMcpx(['daemon', 'servers', '--config', other], { env: user.env })
      expect(second).toMatchObject({ exitCode: 0, stderr: '' })
      expect(JSON.parse(second.stdout)).toEqual([])
      expect((await runMcpx(['daemon', 'stop', '--config', other], { env: user.env })).stdout).toBe('stopped\n')
      const missing = await runMcpx(['daemon', 'server', '--name', 'nope'], { env: user.env })
      expect(missing.exitCode).toBe(2)
      expect(errorJson(missing.stderr).error.code).toBe('NOT_FOUND')
    } finally {
      const stop = await runMcpx(['daemon', 'stop', '--json'], { env: user.env })
      expect(JSON.parse(stop.stdout)).toEqual({ stopped: true })
    }
  })

  test('with no config at all, the built-in demo server answers through the daemon', async () => {
    using user = isolatedUser('mcpx-cli-demo')
    try {
      const add = await runMcpx(['daemon', 'call', '--server', 'demo', '--tool', 'add', '--arguments', '{"a":2,"b":40}'], { env: user.env })
      expect(add.exitCode).toBe(0)
      expect(JSON.parse(add.stdout)).toMatchObject({ content: [{ type: 'text', text: '42' }], structuredContent: { sum: 42 } })
      const echo = await runMcpx(['daemon', 'call', '--server', 'demo', '--tool', 'echo', '--arguments', '{"text":"hello"}'], {
        env: user.env,
      })
      expect(JSON.parse(echo.stdout)).toMatchObject({ content: [{ type: 'text', text: 'hello' }] })
      const catalog = JSON.parse((await runMcpx(['daemon', 'catalog', '--name', 'demo'], { env: user.env })).stdout)
      expect(catalog.tools.map((tool: { name: string }) => tool.name)).toEqual(['echo', 'add', 'time'])
      expect(catalog.prompts.map((prompt: { name: string }) => prompt.name)).toEqual(['greet'])
      expect(catalog.resources.map((resource: { uri: string }) => resource.uri)).toEqual(['demo://readme'])
      const bad = await runMcpx(['daemon', 'call', '--server', 'demo', '--tool', 'add', '--arguments', '{"a":"2","b":40}'], {
        env: user.env,
      })
      expect(bad.exitCode).toBe(2)
      expect(errorJson(bad.stderr).error).toMatchObject({ code: 'USAGE', data: { server: 'demo', tool: 'add' } })
    } finally {
      await runMcpx(['daemon', 'stop'], { env: user.env })
    }
  })
})
