/**
 * `mcpx serve` as MCP hosts spawn it: the official SDK clients over stdio (1.x legacy, 2.x modern)
 * reach upstreams through the daemon serve starts; elicitations come back to them; pass-through
 * offers one upstream as itself; `--transport http` names the daemon's /mcp address.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client as ModernClient } from '@modelcontextprotocol/client'
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio'
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport as LegacyStdio } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { REPO_ROOT, mcpxCommand, runMcpx, tempDir, errorJson } from '../harness.ts'

const dir = tempDir('mcpx-serve')
const config = join(dir.path, 'config.json')
writeFileSync(
  config,
  JSON.stringify({
    mcpServers: { up: { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/peers/gateway-upstream-fixture.ts')] } },
  }),
)
const env = { ...(process.env as Record<string, string>), MCPX_HOME: join(dir.path, 'home') }
const [command, ...prefix] = mcpxCommand()
const serveArgs = (...extra: string[]) => [...prefix, 'serve', '--config', config, ...extra]

afterAll(async () => {
  await runMcpx(['daemon', 'stop', '--config', config], { env })
  dir[Symbol.dispose]()
})

const textOf = (result: unknown) => ((result as { content?: unknown }).content as { text: string }[]).map((c) => c.text).join('\n')

describe('mcpx serve over stdio', () => {
  test('SDK 1.x host: lists the gateway, calls through mcpx_call, answers an upstream elicitation', async () => {
    const client = new LegacyClient({ name: 'legacy-host', version: '1.0.0' }, { capabilities: { elicitation: {} } })
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { answer: 'via serve' } }))
    await client.connect(new LegacyStdio({ command: command!, args: serveArgs(), env, stderr: 'pipe' }))
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('mcpx_call')
      expect(textOf(await client.callTool({ name: 'mcpx_call', arguments: { tool: 'up.echo', arguments: { text: 'hello' } } }))).toBe(
        'hello',
      )
      expect(textOf(await client.callTool({ name: 'mcpx_call', arguments: { tool: 'up.ask', arguments: { question: 'q' } } }))).toBe(
        'action=accept answer=via serve',
      )
    } finally {
      await client.close()
    }
  })

  test('SDK 2.x host pinned to 2026-07-28: calls and answers input_required rounds', async () => {
    const client = new ModernClient(
      { name: 'modern-host', version: '2.0.0' },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    )
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { answer: 'modern via serve' } }))
    await client.connect(new ModernStdio({ command: command!, args: serveArgs(), env, stderr: 'pipe' }))
    try {
      expect(textOf(await client.callTool({ name: 'mcpx_call', arguments: { tool: 'up.add', arguments: { a: 20, b: 22 } } }))).toBe('42')
      expect(textOf(await client.callTool({ name: 'mcpx_call', arguments: { tool: 'up.ask', arguments: { question: 'q' } } }))).toBe(
        'action=accept answer=modern via serve',
      )
    } finally {
      await client.close()
    }
  })

  test('--passthrough offers one upstream as itself', async () => {
    const client = new LegacyClient({ name: 'legacy-host', version: '1.0.0' })
    await client.connect(new LegacyStdio({ command: command!, args: serveArgs('--passthrough', 'up'), env, stderr: 'pipe' }))
    try {
      const names = (await client.listTools()).tools.map((t) => t.name)
      expect(names).toContain('echo')
      expect(names).not.toContain('mcpx_call')
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'as itself' } }))).toBe('as itself')
    } finally {
      await client.close()
    }
  })

  test('--transport http fails and names the daemon /mcp address; an unknown passthrough is named', async () => {
    const http = await runMcpx(['serve', '--transport', 'http', '--config', config], { env })
    expect(http.exitCode).toBe(2)
    expect(errorJson(http.stderr).error.message).toMatch(/daemon at http:\/\/127\.0\.0\.1:\d+\/mcp/)
    const unknown = await runMcpx(['serve', '--passthrough', 'uo', '--config', config], { env })
    expect(unknown.exitCode).toBe(2)
    expect(errorJson(unknown.stderr).error.message).toBe('no server named "uo" (did you mean up?)')
  })
})
