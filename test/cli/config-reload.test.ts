/**
 * The running daemon follows its config file: a malformed edit is reported and the daemon keeps
 * serving the config it has; a valid edit adds and removes servers without a restart.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { layoutForEnv } from '../support/layout.ts'
import { DaemonClient, type DaemonEvent } from '../../lib/daemon/index.ts'
import { REPO_ROOT, runMcpx, tempDir, errorJson } from '../harness.ts'

const dir = tempDir('mcpx-reload')
const config = join(dir.path, 'config.json')
const env = { MCPX_HOME: join(dir.path, 'home'), MCPX_CONFIG_RELOAD_DEBOUNCE_MS: '20' }
const upstream = { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/peers/gateway-upstream-fixture.ts')] }
const call = (...args: string[]) => runMcpx(['call', ...args, '--config', config], { env })

afterAll(async () => {
  await runMcpx(['daemon', 'stop', '--config', config], { env })
  dir[Symbol.dispose]()
})

/**
 * Write the file, then wait for the daemon's event about it. The feed is replayed from its start
 * (so it is open before the edit); each expected type happens once in this test.
 */
async function edit(text: string, expected: 'config.reloaded' | 'config.invalid'): Promise<DaemonEvent> {
  const client = new DaemonClient({ layout: layoutForEnv(env, config) })
  const abort = new AbortController()
  const events = client.events({ signal: abort.signal, lastEventId: 0 })
  const first = await events.next()
  writeFileSync(config, text)
  try {
    for (let event = first; !event.done; event = await events.next()) if (event.value.type === expected) return event.value
    throw new Error(`event feed ended before ${expected}`)
  } finally {
    abort.abort()
  }
}

describe('config hot reload', () => {
  test('a malformed config leaves the daemon serving the old one; a valid one applies without restart', async () => {
    writeFileSync(config, JSON.stringify({ mcpServers: { one: upstream } }))
    expect((await call('one.echo', 'text=first')).stdout).toBe('first\n')

    const invalid = await edit('{"mcpServers": {"one": {"command": 42}}}', 'config.invalid')
    expect(JSON.stringify(invalid.data)).toMatch(/command/)
    // The daemon still serves `one`, and every command says in one line on stderr that the file was not loaded.
    const served = await call('one.echo', 'text=x')
    expect(served.exitCode).toBe(0)
    expect(served.stdout).toBe('x\n')
    expect(served.stderr).toMatch(
      new RegExp(
        `^config ${config.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} not loaded: mcpServers\\.one\\.command: .*; serving the version of \\d\\d:\\d\\d\\n$`,
      ),
    )
    const status = await runMcpx(['status', '--config', config], { env })
    expect(status.exitCode).toBe(2)
    expect(errorJson(status.stderr).error.message).toContain(`config ${config} not loaded: `)
    const daemon = new DaemonClient({ layout: layoutForEnv(env, config) })
    expect(await daemon.request('call', { server: 'one', tool: 'echo', arguments: { text: 'still' } })).toMatchObject({
      content: [{ type: 'text', text: 'still' }],
    })

    const reloaded = await edit(JSON.stringify({ mcpServers: { two: upstream } }), 'config.reloaded')
    expect(reloaded.data).toMatchObject({ changes: { added: ['two'], removed: ['one'] } })
    expect((await call('two.echo', 'text=second')).stdout).toBe('second\n')
    const gone = await call('one.echo', 'text=x')
    expect(gone.exitCode).toBe(2)
    expect(errorJson(gone.stderr).error.code).toBe('NOT_FOUND')
  })
})
