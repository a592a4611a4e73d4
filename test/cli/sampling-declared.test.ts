/**
 * Sampling is declared only where it can be answered (README "Brokering"). The CLI's own
 * connections — ad-hoc targets over stdio and over HTTP, `call --record` — declare `sampling` only when setting
 * samplingCommand names a program. The daemon declares the union of what it can broker (any host
 * that declares sampling may call through it), so its upstreams are told sampling either way; a
 * CLI call through the daemon without samplingCommand refuses the question with -32021 naming the
 * setting. The upstream is a real SDK 1.x server that reports the client capabilities it was given.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO_ROOT, runMcpx } from '../harness.ts'
import { isolatedUser } from './cli-env.ts'

const user = isolatedUser('mcpx-sampling')
const FIXTURE = join(REPO_ROOT, 'test/fixtures/peers/sdk-legacy-fixture.ts')
const STDIO = `${process.execPath} ${FIXTURE} stdio`
const program = join(user.project, 'sample.sh')
const WITH = { MCPX_SAMPLING_COMMAND: program }
const WITHOUT = { MCPX_SAMPLING_COMMAND: '' }
const run = (argv: string[], env: Record<string, string>) => runMcpx(argv, { env: { ...user.env, ...env }, cwd: user.project })
const declared = (stdout: string) => Object.keys(JSON.parse(stdout) as Record<string, unknown>).sort()

let http: Bun.Subprocess<'ignore', 'pipe', 'inherit'>
let url: string

beforeAll(async () => {
  mkdirSync(join(user.home, '.config', 'mcpx'), { recursive: true })
  writeFileSync(user.configFile, JSON.stringify({ mcpServers: { legacy: { command: process.execPath, args: [FIXTURE, 'stdio'] } } }))
  writeFileSync(
    program,
    `#!/bin/sh\ncat > /dev/null\necho '{"role":"assistant","content":{"type":"text","text":"sampled!"},"model":"test-model","stopReason":"endTurn"}'\n`,
    { mode: 0o755 },
  )
  http = Bun.spawn([process.execPath, FIXTURE, 'http'], { stdin: 'ignore', stdout: 'pipe', stderr: 'inherit' })
  const reader = http.stdout.getReader()
  let text = ''
  while (!text.includes('\n')) text += new TextDecoder().decode((await reader.read()).value)
  reader.releaseLock()
  url = (JSON.parse(text.split('\n')[0]!) as { url: string }).url
})
afterAll(async () => {
  http?.kill()
  await run(['daemon', 'stop'], {})
  user[Symbol.dispose]()
})

describe('the CLI as the client (ad-hoc targets)', () => {
  for (const target of ['stdio', 'http'] as const) {
    const argv = (tool: string) => (target === 'stdio' ? ['call', '--stdio', STDIO, tool] : ['call', url, tool])
    test(`${target}: sampling declared only with samplingCommand set (roots and elicitation always)`, async () => {
      const without = await run(argv('capabilities'), WITHOUT)
      expect(without.exitCode).toBe(0)
      expect(declared(without.stdout)).toEqual(['elicitation', 'roots'])
      const withCommand = await run(argv('capabilities'), WITH)
      expect(withCommand.exitCode).toBe(0)
      expect(declared(withCommand.stdout)).toEqual(['elicitation', 'roots', 'sampling'])
      const sampled = await run([...argv('sample'), 'prompt=hi'], WITH)
      expect(sampled.exitCode).toBe(0)
      expect(sampled.stdout).toContain('sampled!')
    })
  }
})

describe('the CLI as the client (call --record: one fresh connection of its own)', () => {
  test('sampling declared only with samplingCommand set; a sampling question answered through it', async () => {
    const file = join(user.project, 'call.jsonl')
    const without = await run(['call', 'legacy.capabilities', '--record', file], WITHOUT)
    expect(without.exitCode).toBe(0)
    expect(declared(without.stdout)).toEqual(['elicitation', 'roots'])
    const withCommand = await run(['call', 'legacy.capabilities', '--record', file], WITH)
    expect(declared(withCommand.stdout)).toEqual(['elicitation', 'roots', 'sampling'])
    const sampled = await run(['call', 'legacy.sample', 'prompt=hi', '--record', file], WITH)
    expect(sampled.exitCode).toBe(0)
    expect(sampled.stdout).toContain('sampled!')
  })
})

describe('through the daemon', () => {
  test('the daemon declares sampling upstream (the union it can broker); the CLI without samplingCommand refuses it with -32021 naming the setting', async () => {
    const caps = await run(['call', 'legacy.capabilities'], WITHOUT)
    expect(caps.exitCode).toBe(0)
    expect(declared(caps.stdout)).toContain('sampling')
    const refused = await run(['call', 'legacy.sample', 'prompt=hi'], WITHOUT)
    expect(refused.exitCode).toBe(1)
    expect(refused.stdout).toContain('refused -32021')
    expect(refused.stdout).toContain('samplingCommand')
    const answered = await run(['call', 'legacy.sample', 'prompt=hi'], WITH)
    expect(answered.exitCode).toBe(0)
    expect(answered.stdout).toContain('sampled!')
  })
})
