/** `mcpx install`: the mcpx entry written into an MCP host's config. */
import { describe, expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { mcpxCommand, runMcpx } from '../harness.ts'
import { isolatedUser } from './cli-env.ts'

/** What install writes for the binary under test: its absolute path (not on PATH here), `serve`, and MCPX_HOME as set. */
function expectedEntry(env: { MCPX_HOME: string }) {
  const [command, ...prefix] = mcpxCommand()
  return { command, args: [...prefix, 'serve'], env: { MCPX_HOME: env.MCPX_HOME } }
}

describe('mcpx install', () => {
  test('writes the one mcpx entry into the host config, then reports it unchanged', async () => {
    using user = isolatedUser('mcpx-cli-install')
    const file = join(user.home, '.cursor', 'mcp.json')
    const first = await runMcpx(['install', 'cursor'], { env: user.env })
    expect(first).toEqual({
      exitCode: 0,
      stdout: `created ${file}\nentry "mcpx": ${JSON.stringify(expectedEntry(user.env))}\n`,
      stderr: '',
    })
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ mcpServers: { mcpx: expectedEntry(user.env) } })
    const second = await runMcpx(['install', 'cursor', '--json'], { env: user.env })
    expect(JSON.parse(second.stdout)).toMatchObject({ host: 'cursor', file, action: 'unchanged', backup: null })
  })

  test('a config named with --config, before or after the command, goes into the entry as MCPX_CONFIG (absolute)', async () => {
    using user = isolatedUser('mcpx-cli-install')
    const expected = { ...expectedEntry(user.env), env: { MCPX_HOME: user.env.MCPX_HOME, MCPX_CONFIG: join(user.project, 'team.json') } }
    for (const argv of [
      ['install', 'cursor', '--dry-run', '--json', '--config', 'team.json'],
      ['--config', 'team.json', 'install', 'cursor', '--dry-run', '--json'],
    ]) {
      const result = await runMcpx(argv, { env: user.env, cwd: user.project })
      expect(result.exitCode).toBe(0)
      expect(JSON.parse(result.stdout).entry).toEqual(expected)
    }
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
    expect(JSON.parse(readFileSync(file, 'utf8')).mcpServers).toEqual({ mcpx: expectedEntry(user.env), other: { serverUrl: 'https://x' } })
  })

  test('--dry-run prints the exact entry and writes nothing; uninstall removes it with a backup', async () => {
    using user = isolatedUser('mcpx-cli-install')
    const file = join(user.home, '.cursor', 'mcp.json')
    const dry = await runMcpx(['install', 'cursor', '--dry-run'], { env: user.env })
    expect(dry.stdout).toBe(`dry run: would have created ${file}\nentry "mcpx": ${JSON.stringify(expectedEntry(user.env))}\n`)
    expect(existsSync(file)).toBe(false)
    await runMcpx(['install', 'cursor'], { env: user.env })
    const removed = JSON.parse((await runMcpx(['uninstall', 'cursor', '--json'], { env: user.env })).stdout)
    expect(removed).toMatchObject({ action: 'removed', entry: expectedEntry(user.env) })
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ mcpServers: {} })
    expect(JSON.parse(readFileSync(removed.backup, 'utf8')).mcpServers.mcpx).toEqual(expectedEntry(user.env))
    expect((await runMcpx(['uninstall', 'cursor'], { env: user.env })).stdout).toBe(`mcpx is not in ${file}\n`)
  })

  test('`install claude-code` then `import claude-code` imports nothing and says why', async () => {
    using user = isolatedUser('mcpx-cli-install')
    expect((await runMcpx(['install', 'claude-code'], { env: user.env })).exitCode).toBe(0)
    const imported = await runMcpx(['import', 'claude-code'], { env: user.env, cwd: user.project })
    expect(imported.exitCode).toBe(0)
    expect(imported.stdout).toContain(
      `  - mcpx  (claude-code, ${join(user.home, '.claude.json')}): runs mcpx itself (its command ${mcpxCommand()[0]} is an mcpx binary`,
    )
    expect(imported.stdout).toContain('imported 0 servers')
    expect(existsSync(user.configFile)).toBe(false)
  })

  test('a missing or unknown host is a usage error', async () => {
    using user = isolatedUser('mcpx-cli-install')
    expect((await runMcpx(['install', 'emacs'], { env: user.env })).exitCode).toBe(2)
  })
})
