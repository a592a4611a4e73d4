/**
 * Claude Code (npm `@anthropic-ai/claude-code`, pinned; its package ships a native binary, so no
 * Node of its own is needed) as a real host of the compiled mcpx: `claude mcp add` over stdio and
 * over HTTP with the token header, then `claude mcp list` reports both connected. Without the
 * header, what mcpx answers is asserted (404 on discovery and /register, the 401 challenge) and
 * what Claude Code prints then is what the README's host table records.
 */
import { describe, expect, test } from 'bun:test'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO_ROOT, mcpxCommand, runMcpx } from '../harness.ts'
import { isolatedUser } from '../cli/cli-env.ts'
import { layoutForEnv } from '../support/layout.ts'

const CLAUDE = join(REPO_ROOT, 'node_modules/.bin/claude')
/** Keep the host offline and quiet: no updater, no telemetry, no first-run prompts. */
const QUIET = { DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_TELEMETRY: '1', CI: 'true' }

async function claude(
  args: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<{ stdout: string; stderr: string; exitCode: number }> {
  await using proc = Bun.spawn([CLAUDE, ...args], {
    cwd,
    env: { ...process.env, ...QUIET, ...env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { stdout, stderr, exitCode }
}

describe('Claude Code as a host', () => {
  test('stdio and HTTP with the token connect; without the token mcpx answers 404 on discovery and a 401 challenge', async () => {
    using user = isolatedUser('mcpx-claude-code')
    const cwd = join(user.home, 'work')
    mkdirSync(cwd, { recursive: true })
    const [command, ...prefix] = mcpxCommand()
    try {
      const info = JSON.parse((await runMcpx(['daemon', 'start', '--json'], { env: user.env })).stdout)
      const token = readFileSync(layoutForEnv(user.env).token, 'utf8').trim()
      const url = `${info.tcp.url}/mcp`
      expect(
        (
          await claude(
            ['mcp', 'add', '--scope', 'user', 'mcpx-stdio', '-e', `MCPX_HOME=${user.env.MCPX_HOME}`, '--', command!, ...prefix, 'serve'],
            user.env,
            cwd,
          )
        ).exitCode,
      ).toBe(0)
      expect(
        (
          await claude(
            ['mcp', 'add', '--scope', 'user', '--transport', 'http', 'mcpx-http', url, '--header', `Authorization: Bearer ${token}`],
            user.env,
            cwd,
          )
        ).exitCode,
      ).toBe(0)
      expect((await claude(['mcp', 'add', '--scope', 'user', '--transport', 'http', 'mcpx-no-token', url], user.env, cwd)).exitCode).toBe(0)
      const list = await claude(['mcp', 'list'], user.env, cwd)
      const line = (name: string) =>
        list.stdout.split('\n').find((l) => l.startsWith(`${name}:`)) ?? `(no line for ${name} in: ${list.stdout}${list.stderr})`
      expect(line('mcpx-stdio')).toContain('✔ Connected')
      expect(line('mcpx-http')).toContain('✔ Connected')
      // Recorded in the README host table: Claude Code tries OAuth, finds no metadata and no /register.
      expect(line('mcpx-no-token')).toContain('✘ Failed to connect')
      expect(line('mcpx-no-token')).toContain('Dynamic Client Registration rejected (HTTP 404)')

      // What mcpx itself sent that host.
      for (const path of [
        '/.well-known/oauth-protected-resource/mcp',
        '/.well-known/oauth-protected-resource',
        '/.well-known/oauth-authorization-server',
        '/.well-known/openid-configuration',
      ]) {
        const response = await fetch(`${info.tcp.url}${path}`)
        expect({ path, status: response.status, challenge: response.headers.get('www-authenticate') }).toEqual({
          path,
          status: 404,
          challenge: null,
        })
      }
      expect(
        (await fetch(`${info.tcp.url}/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })).status,
      ).toBe(404)
      const unauthorized = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      })
      expect(unauthorized.status).toBe(401)
      expect(unauthorized.headers.get('www-authenticate')).toMatch(
        /^Bearer realm="mcpx", error="invalid_token", error_description="[^"]+"$/,
      )

      // The daemon log names the host and what it negotiated.
      const log = readFileSync(layoutForEnv(user.env).daemonLog, 'utf8')
      expect(log).toMatch(/(session opened \S+|stateless client discovered the server): claude-code \S+, revision \d{4}-\d\d-\d\d/)
    } finally {
      await runMcpx(['daemon', 'stop'], { env: user.env })
    }
  })
})
