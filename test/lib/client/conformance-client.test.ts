/**
 * The conformance client fixture's own contract with the suite: unknown scenarios and a missing
 * server URL exit non-zero (so a silent pass is impossible), and a known scenario runs through
 * lib/client against a real server.
 */
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { REPO_ROOT } from '../../harness.ts'
import { LEGACY, serveFixture } from './sdk-peers.ts'

const MAIN = join(REPO_ROOT, 'test/fixtures/conformance-client/main.ts')

async function run(scenario: string, url: string, version = '2025-11-25') {
  await using proc = Bun.spawn([process.execPath, MAIN, url], {
    env: { ...process.env, MCP_CONFORMANCE_SCENARIO: scenario, MCP_CONFORMANCE_PROTOCOL_VERSION: version },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stderr, exitCode] = await Promise.all([new Response(proc.stderr).text(), proc.exited])
  return { stderr, exitCode }
}

describe('conformance client fixture', () => {
  test('an unknown scenario exits 2 naming it', async () => {
    const { exitCode, stderr } = await run('no-such-scenario', 'http://127.0.0.1:1/mcp')
    expect(exitCode).toBe(2)
    expect(stderr).toContain('unknown scenario "no-such-scenario"')
  })

  test('a missing server URL exits 2', async () => {
    const { exitCode } = await run('initialize', 'not-a-url')
    expect(exitCode).toBe(2)
  })

  test('a failing scenario exits 1 with the reason', async () => {
    const { exitCode, stderr } = await run('initialize', 'http://127.0.0.1:1/mcp')
    expect(exitCode).toBe(1)
    expect(stderr).toContain('cannot reach')
  })

  test('the initialize scenario runs against a real legacy server', async () => {
    await using server = await serveFixture(LEGACY, 'http')
    const { exitCode, stderr } = await run('initialize', server.url)
    expect(stderr).toBe('')
    expect(exitCode).toBe(0)
  })
})
