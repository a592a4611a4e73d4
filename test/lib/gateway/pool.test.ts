/** lib/gateway/upstream-pool.ts: UpstreamPool over a spawned upstream fixture. */
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { parseConfig } from '../../../lib/config/index.ts'
import { McpxError } from '../../../lib/errors/index.ts'
import { CodeMode, UpstreamPool } from '../../../lib/gateway/index.ts'
import { REPO_ROOT, testSettings } from '../../harness.ts'

const FIXTURE = join(REPO_ROOT, 'test/fixtures/peers/gateway-upstream-fixture.ts')

function createPool(extra: Record<string, unknown> = {}, events: { type: string; data: unknown }[] = []) {
  const config = parseConfig(
    JSON.stringify({
      mcpServers: { up: { command: process.execPath, args: [FIXTURE], ...extra }, second: { command: process.execPath, args: [FIXTURE] } },
    }),
    'test-config.json',
    {},
  )
  const pool = new UpstreamPool({
    config,
    settings: testSettings({ restartBackoffMs: 10 }),
    emit: (type, data) => events.push({ type, data }),
  })
  return Object.assign(pool, { [Symbol.asyncDispose]: () => pool.close() })
}

const textOf = (result: Record<string, unknown>) => (result.content as { text: string }[])[0]!.text

describe('UpstreamPool', () => {
  test('connects lazily on first use and reports state', async () => {
    await using pool = createPool()
    expect(pool.servers().map((s) => [s.name, s.state])).toEqual([
      ['up', 'configured'],
      ['second', 'configured'],
    ])
    expect(textOf(await pool.call('up', 'echo', { text: 'hi' }))).toBe('hi')
    expect(pool.status('up')).toMatchObject({ state: 'ready', era: 'legacy', revision: '2025-11-25', transport: 'stdio' })
    expect(pool.status('second').state).toBe('configured')
  })

  test('multiplexes concurrent calls on one connection, each answer matched to its request', async () => {
    await using pool = createPool()
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => pool.call('up', 'add', { a: i, b: 1000 })))
    expect(results.map(textOf)).toEqual(Array.from({ length: 50 }, (_, i) => String(i + 1000)))
    const pids = new Set((await Promise.all([pool.call('up', 'pid', {}), pool.call('up', 'pid', {})])).map(textOf))
    expect(pids.size).toBe(1)
  })

  test('an upstream killed mid-call fails that call clearly, and the next call succeeds after restart', async () => {
    const events: { type: string; data: unknown }[] = []
    await using pool = createPool({}, events)
    const before = textOf(await pool.call('up', 'pid', {}))
    const crashed = await pool.call('up', 'crash', {}).catch((e) => e)
    expect(crashed).toBeInstanceOf(McpxError)
    expect((crashed as McpxError).code).toBe('CONNECT')
    expect((crashed as McpxError).message).toMatch(/exit/i)
    const after = textOf(await pool.call('up', 'pid', {}))
    expect(after).not.toBe(before)
    expect(events.map((e) => e.type)).toContain('server.crashed')
  })

  test('catalog is cached and invalidated by list_changed', async () => {
    const events: { type: string; data: unknown }[] = []
    await using pool = createPool({}, events)
    const first = await pool.catalog('up')
    expect(first.tools.map((t) => t.name)).toContain('echo')
    expect(await pool.catalog('up')).toBe(first)
    await pool.call('up', 'touch', {})
    while (!events.some((e) => e.type === 'catalog.changed')) await Bun.sleep(5)
    const second = await pool.catalog('up')
    expect(second.tools.map((t) => t.name)).toContain('added_1')
  })

  test("code mode's search index is built by its first search, then kept in step with list_changed", async () => {
    const events: { type: string; data: unknown }[] = []
    await using pool = createPool({}, events)
    const codeMode = new CodeMode(pool, testSettings())
    const listed: string[] = []
    const catalog = pool.catalog.bind(pool)
    pool.catalog = (server) => {
      listed.push(server)
      return catalog(server)
    }
    // A connect (server.ready) before any search indexes nothing: no catalog is read for it.
    await pool.call('up', 'echo', { text: 'hi' })
    while (!events.some((e) => e.type === 'server.ready')) await Bun.sleep(5)
    await Bun.sleep(50)
    expect(listed).toEqual([])
    expect((await codeMode.search('echo')).map((hit) => hit.qualifiedName)).toContain('up.echo')
    await pool.call('up', 'touch', {})
    const names = async () => (await codeMode.search('added')).map((hit) => hit.qualifiedName)
    while (!(await names()).includes('up.added_1')) await Bun.sleep(5)
    expect(listed).toContain('up')
    await codeMode.close()
  })

  test("a script's call on a server that cannot be reached fails as a ToolError saying why, not as an undefined name", async () => {
    const config = parseConfig(
      JSON.stringify({
        mcpServers: {
          up: { command: process.execPath, args: [FIXTURE] },
          needs_token: { command: process.execPath, args: [FIXTURE], env: { TOKEN: '${MCPX_TEST_UNSET_TOKEN}' } },
        },
      }),
      'test-config.json',
      {},
    )
    await using pool = Object.assign(new UpstreamPool({ config, settings: testSettings(), emit: () => {} }), {
      [Symbol.asyncDispose]: () => pool.close(),
    })
    const codeMode = new CodeMode(pool, testSettings())
    try {
      const script = 'try { await needs_token.echo({ text: "x" }) } catch (e) { return [e.name, e.message, up.echo !== undefined] }'
      const { value } = await codeMode.exec(script)
      expect(value).toEqual([
        'ToolError',
        'server "needs_token" is unavailable: environment variable MCPX_TEST_UNSET_TOKEN is not set (mcpServers.needs_token.env.TOKEN)',
        true,
      ])
      // Its object lists no tools, and the declarations (what a script can call) leave it out.
      expect((await codeMode.exec('return mcpx.namespaces.needs_token')).value).toEqual([])
      expect(await codeMode.types({})).not.toContain('needs_token')
    } finally {
      await codeMode.close()
    }
  })

  test('allowed/blocked tools filter the catalog and refuse calls', async () => {
    await using pool = createPool({ blockedTools: ['crash'] })
    const catalog = await pool.catalog('up')
    expect(catalog.tools.map((t) => t.name)).not.toContain('crash')
    const refused = await pool.call('up', 'crash', {}).catch((e) => e)
    expect(refused).toMatchObject({ code: 'NOT_FOUND' })
  })

  test('unknown server and tool names get suggestions', async () => {
    await using pool = createPool()
    expect(() => pool.status('uo')).toThrow(/did you mean up/)
    const unknown = await pool.call('up', 'ecoh', { text: 'x' }).catch((e) => e)
    expect(unknown).toMatchObject({ code: 'NOT_FOUND' })
    expect((unknown as McpxError).message).toMatch(/did you mean up\.echo\?/)
  })

  test('an elicitation raised mid-call goes to the caller that made the call', async () => {
    await using pool = createPool()
    const asked: unknown[] = []
    const result = await pool.call(
      'up',
      'ask',
      { question: 'name?' },
      {
        asker: {
          elicit: async (params) => {
            asked.push(params.message)
            return { action: 'accept', content: { answer: 'Ada' } }
          },
        },
      },
    )
    expect(textOf(result)).toBe('action=accept answer=Ada')
    expect(asked).toEqual(['name?'])
    // No asker: the broker declines and the upstream reports it as a tool error naming why.
    const declined = await pool.call('up', 'ask', { question: 'again?' })
    expect(declined.isError).toBe(true)
    expect(textOf(declined)).toMatch(/did not declare that it can answer/)
  })
})
