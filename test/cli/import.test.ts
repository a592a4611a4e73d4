/** `mcpx import`: MCP hosts' server entries planned and written into the mcpx config. */
import { describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { runMcpx, errorJson } from '../harness.ts'
import { isolatedUser } from './cli-env.ts'

function put(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
}

describe('mcpx import', () => {
  test('--dry-run lists imports and skips with reasons and writes nothing; then import writes the XDG config', async () => {
    using user = isolatedUser('mcpx-cli-import')
    put(join(user.home, '.cursor', 'mcp.json'), JSON.stringify({ mcpServers: { fetch: { command: 'uvx', args: ['mcp-server-fetch'] } } }))
    put(
      join(user.project, '.vscode', 'mcp.json'),
      JSON.stringify({ servers: { gh: { type: 'http', url: 'https://api.example/mcp', headers: { Authorization: '${input:pat}' } } } }),
    )
    const dry = await runMcpx(['import', '--dry-run'], { env: user.env, cwd: user.project })
    expect(dry.exitCode).toBe(0)
    expect(dry.stdout).toBe(
      [
        `would import into ${user.configFile}`,
        `  + fetch  (cursor, ${join(user.home, '.cursor', 'mcp.json')}): uvx mcp-server-fetch`,
        `  - gh  (vscode, ${join(user.project, '.vscode', 'mcp.json')}): uses \${input:pat}, which only VS Code can resolve`,
        'dry run: 1 server would be imported, nothing written',
        '',
      ].join('\n'),
    )
    expect(existsSync(user.configFile)).toBe(false)

    const real = await runMcpx(['import', '--json'], { env: user.env, cwd: user.project })
    expect(real.exitCode).toBe(0)
    expect(JSON.parse(real.stdout)).toMatchObject({
      config: user.configFile,
      written: true,
      backup: null,
      imported: [{ name: 'fetch' }],
      skipped: [{ name: 'gh' }],
    })
    expect(JSON.parse(readFileSync(user.configFile, 'utf8'))).toEqual({
      mcpServers: { fetch: { command: 'uvx', args: ['mcp-server-fetch'] } },
    })

    const status = await runMcpx(['status', '--json'], { env: user.env })
    expect(JSON.parse(status.stdout)).toMatchObject({
      daemon: null,
      config: user.configFile,
      servers: [{ name: 'fetch', state: 'configured', transport: 'stdio', endpoint: 'uvx' }],
    })

    const again = await runMcpx(['import', 'cursor'], { env: user.env, cwd: user.project })
    expect(again.stdout).toContain('  - fetch  (cursor')
    expect(again.stdout).toContain('"fetch" is already defined by the mcpx config')
  })

  test('project-scoped entries are listed, not copied into the user config; --config imports them; renames and unset variables are reported', async () => {
    using user = isolatedUser('mcpx-cli-import')
    put(
      join(user.project, '.mcp.json'),
      JSON.stringify({ mcpServers: { 'my tool': { command: 'node', args: ['t.js'], env: { K: '${env:MCPX_TEST_IMPORT_UNSET}' } } } }),
    )
    const user_ = await runMcpx(['import', 'claude-code'], { env: user.env, cwd: user.project })
    expect(user_.stdout).toContain(
      `  · my-tool  (claude-code, ${join(user.project, '.mcp.json')}): project-scoped, not copied into the user config`,
    )
    expect(existsSync(user.configFile)).toBe(false)
    const projectConfig = join(user.project, 'mcpx.json')
    const project = await runMcpx(['import', 'claude-code', '--config', projectConfig], { env: user.env, cwd: user.project })
    expect(project.stdout).toContain(`  + my-tool  (claude-code, ${join(user.project, '.mcp.json')}): node t.js`)
    expect(project.stdout).toContain('      renamed from "my tool"')
    expect(project.stdout).toContain('      warning: ${MCPX_TEST_IMPORT_UNSET} not set now')
    expect(JSON.parse(readFileSync(projectConfig, 'utf8')).mcpServers['my-tool'].env).toEqual({ K: '${MCPX_TEST_IMPORT_UNSET}' })
  })

  test('an unknown host is a usage error (exit 2)', async () => {
    using user = isolatedUser('mcpx-cli-import')
    const result = await runMcpx(['import', 'notepad'], { env: user.env })
    expect(result.exitCode).toBe(2)
    expect(errorJson(result.stderr).error.message).toStartWith('unknown host "notepad"')
  })
})
