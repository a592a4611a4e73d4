/** `mcpx install`: the mcpx entry written into an MCP host's config. */
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { runMcpx } from '../harness.ts'
import { isolatedUser } from './cli-env.ts'

describe('mcpx install', () => {
  test('writes the one mcpx entry into the host config, then reports it unchanged', async () => {
    using user = isolatedUser('mcpx-cli-install')
    const file = join(user.home, '.cursor', 'mcp.json')
    const first = await runMcpx(['install', 'cursor'], { env: user.env })
    expect(first).toEqual({ exitCode: 0, stdout: `created ${file}\n`, stderr: '' })
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ mcpServers: { mcpx: { command: 'mcpx', args: ['serve'] } } })
    const second = await runMcpx(['install', 'cursor', '--json'], { env: user.env })
    expect(JSON.parse(second.stdout)).toMatchObject({ host: 'cursor', file, action: 'unchanged', backup: null })
  })

  test('backs up an existing file before changing it', async () => {
    using user = isolatedUser('mcpx-cli-install')
    const seeded = await runMcpx(['install', 'windsurf'], { env: user.env })
    expect(seeded.exitCode).toBe(0)
    const file = join(user.home, '.codeium', 'windsurf', 'mcp_config.json')
    const { writeFileSync } = await import('node:fs')
    writeFileSync(file, JSON.stringify({ mcpServers: { mcpx: { command: '/old/mcpx' }, other: { serverUrl: 'https://x' } } }))
    const result = await runMcpx(['install', 'windsurf', '--json'], { env: user.env })
    const report = JSON.parse(result.stdout)
    expect(report.action).toBe('updated')
    expect(JSON.parse(readFileSync(report.backup, 'utf8')).mcpServers.mcpx).toEqual({ command: '/old/mcpx' })
    expect(JSON.parse(readFileSync(file, 'utf8')).mcpServers).toEqual({ mcpx: { command: 'mcpx', args: ['serve'] }, other: { serverUrl: 'https://x' } })
  })

  test('a missing or unknown host is a usage error', async () => {
    using user = isolatedUser('mcpx-cli-install')
    expect((await runMcpx(['install', 'emacs'], { env: user.env })).exitCode).toBe(2)
  })
})
