/**
 * `--json` prints results as the spec shapes them for the revision the upstream speaks: a
 * 2025-11-25 upstream's results carry no `resultType` (that revision never defined it), through the
 * daemon and through an ad-hoc target, for calls and for other requests (resources/read); a
 * 2026-07-28 upstream's keep it.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO_ROOT, runMcpx } from '../harness.ts'
import { isolatedUser } from './cli-env.ts'

const user = isolatedUser('mcpx-json-shape')
const LEGACY = join(REPO_ROOT, 'test/fixtures/peers/sdk-legacy-fixture.ts')
const MODERN = join(REPO_ROOT, 'test/fixtures/everything/main.ts')
const run = async (argv: string[]) => {
  const result = await runMcpx([...argv, '--json'], { env: user.env, cwd: user.project })
  expect(result.exitCode).toBe(0)
  return JSON.parse(result.stdout) as Record<string, unknown>
}

beforeAll(() => {
  mkdirSync(join(user.home, '.config', 'mcpx'), { recursive: true })
  writeFileSync(user.configFile, JSON.stringify({ mcpServers: { legacy: { command: process.execPath, args: [LEGACY, 'stdio'] } } }))
})
afterAll(async () => {
  await runMcpx(['daemon', 'stop'], { env: user.env })
  user[Symbol.dispose]()
})

test('a 2025-11-25 upstream: no resultType, through the daemon and ad hoc, for tools/call and resources/read', async () => {
  const adHoc = ['--stdio', `${process.execPath} ${LEGACY} stdio`]
  for (const result of [
    await run(['call', 'legacy.echo', 'text=hi']),
    await run(['call', ...adHoc, 'echo', 'text=hi']),
    await run(['resource', 'read', 'legacy', 'test://hello']),
    await run(['resource', 'read', ...adHoc, 'test://hello']),
  ]) {
    expect(result).not.toHaveProperty('resultType')
    expect(JSON.stringify(result)).toMatch(/"hi"|hello from legacy/)
  }
})

test('a 2026-07-28 upstream: resultType "complete" kept', async () => {
  const result = await run(['call', '--stdio', `${process.execPath} ${MODERN} --stdio`, 'greet', 'name=Ada'])
  expect(result.resultType).toBe('complete')
})
