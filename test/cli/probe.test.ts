/**
 * `mcpx probe` against real servers (SDK fixtures over stdio and HTTP) and against things that are
 * not MCP servers: the right era and transport, or the documented exit code with a diagnosis.
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO_ROOT, runMcpx, errorJson, tempDir } from '../harness.ts'
import { LEGACY, MODERN, serveFixture } from '../lib/client/sdk-peers.ts'
const ENV = { MCPX_PROBE_TIMEOUT_MS: '1000', MCPX_TIMEOUT_MS: '10000' }

async function probe(...target: string[]) {
  const result = await runMcpx(['probe', '--json', ...target], { env: ENV })
  return { ...result, report: JSON.parse(result.stdout) as Record<string, any> }
}

describe('mcpx probe', () => {
  test('legacy stdio server', async () => {
    const { exitCode, report } = await probe('--', process.execPath, LEGACY, 'stdio')
    expect(exitCode).toBe(0)
    // The SDK keeps every legacy revision: each older one offered is answered as offered.
    expect([report.era, report.transport, report.protocolVersions]).toEqual([
      'legacy',
      'stdio',
      ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'],
    ])
    expect(report.server).toEqual({ name: 'sdk-legacy-fixture', version: '1.0.0' })
    expect(Object.keys(report.capabilities)).toContain('tools')
    expect(report.auth).toEqual({ required: false })
    expect(report.problems).toEqual([])
    expect(report.timings.length).toBeGreaterThan(0)
  })

  test("a server whose handshake and lists hosts' parsers would refuse: each problem named, the probe still succeeds", async () => {
    const fixture = join(REPO_ROOT, 'test/fixtures/peers/malformed-results-fixture.ts')
    const { exitCode, report } = await probe('--', process.execPath, fixture, 'sloppy-capabilities')
    expect(exitCode).toBe(0)
    expect(report.era).toBe('legacy')
    expect(report.problems).toEqual(
      expect.arrayContaining([
        'initialize: capability `tools` is a boolean, not an object',
        'initialize: capability `resources.subscribe` is a string, not a boolean',
        'tools/list: "sloppy_no_schema": no `inputSchema` (required), so it is offered as {"type":"object"}',
        'tools/list: "sloppy_fields": `annotations.readOnlyHint` is a string, not a boolean',
        'prompts/list: "sloppy_prompt": `arguments[0].required` is a string, not a boolean',
        'resources/list: "test://typed": `size` is a string, not a number',
        'resources/templates/list: "test://{x}": no string `name` (required), so it is named by its `uriTemplate`',
      ]),
    )
    // An item without its identity is named by its place in the list.
    expect(report.problems).toContainEqual(expect.stringMatching(/^resources\/list: #\d+: no string `uri`, so it is not listed$/))
    const human = await runMcpx(['probe', '--', process.execPath, fixture, 'sloppy-capabilities'], { env: ENV })
    expect(human.stdout).toContain(`  problems     ${report.problems.length} that hosts (their SDKs, or their model APIs) refuse`)
    expect(human.stdout).toContain('\n    tools/list: "sloppy_schema": `inputSchema` is not an object schema')
  })

  test("tools hosts' model APIs refuse: dotted and long names, top-level combinators, arrays without items", async () => {
    const fixture = join(REPO_ROOT, 'test/fixtures/peers/host-rules-fixture.ts')
    const { exitCode, report } = await probe('--', process.execPath, fixture)
    expect(exitCode).toBe(0)
    const about = (name: string) => (report.problems as string[]).filter((line) => line.startsWith(`tools/list: "${name}": `))
    expect(about('calendar.read')).toEqual([
      expect.stringMatching(/its name is not 1–64 characters of A–Z.*Claude Desktop \(it then withholds every tool/),
    ])
    expect(about('repos/list')).toHaveLength(1)
    expect(about('plain_name')).toEqual([])
    expect(about('attach')).toEqual([expect.stringMatching(/`inputSchema` has anyOf at its top level, which the Anthropic API refuses/)])
    expect(about('merge')).toEqual(
      expect.arrayContaining([expect.stringMatching(/`inputSchema` has allOf at its top level/), expect.stringMatching(/no `type`/)]),
    )
    expect(about('tag')).toEqual([expect.stringMatching(/array schema without `items`, which the OpenAI API refuses/)])
  })

  test('--stdio "CMD" names the command as call and tools take it', async () => {
    const { exitCode, report } = await probe('--stdio', `${process.execPath} ${LEGACY} stdio`)
    expect(exitCode).toBe(0)
    expect([report.era, report.transport, report.server]).toEqual(['legacy', 'stdio', { name: 'sdk-legacy-fixture', version: '1.0.0' }])
  })

  test('a server keeping two revisions is reported with those two', async () => {
    const { exitCode, report } = await probe('--', process.execPath, join(REPO_ROOT, 'test/fixtures/peers/two-revision-fixture.ts'))
    expect(exitCode).toBe(0)
    expect(report.protocolVersions).toEqual(['2025-03-26', '2025-06-18'])
    // Offering 2025-11-25 was answered 2025-06-18, so only the older ones were offered after it.
    const offers = (report.timings as { step: string }[]).map((t) => t.step).filter((step) => step.includes('offering'))
    expect(offers).toEqual([
      'legacy/stdio: initialize offering 2024-11-05, answered 2025-06-18',
      'legacy/stdio: initialize offering 2025-03-26, answered 2025-03-26',
    ])
  })

  test('a stdio probe ends with its children, not with the shutdown grace', async () => {
    // The grace is far beyond the test's own timeout: a probe that waited on it (a child that
    // outlives its closed stdin, a grace timer left pending) would fail here instead of returning.
    using dir = tempDir('mcpx-probe-exit')
    const pids = join(dir.path, 'pids')
    const wrapper = `echo $$ >> '${pids}'; exec '${process.execPath}' '${LEGACY}' stdio`
    const result = await runMcpx(['probe', '--json', '--', 'sh', '-c', wrapper], { env: { ...ENV, MCPX_SHUTDOWN_GRACE_MS: '3600000' } })
    expect(result.exitCode).toBe(0)
    expect(JSON.parse(result.stdout).era).toBe('legacy')
    // Every server the probe started (one per era tried) is gone by the time it returns.
    const started = readFileSync(pids, 'utf8').trim().split('\n').map(Number)
    expect(started.length).toBeGreaterThan(0)
    const alive = started.filter((pid) => {
      try {
        process.kill(pid, 0)
        return true
      } catch {
        return false
      }
    })
    expect(alive).toEqual([])
  })

  test('modern stdio server', async () => {
    const { exitCode, report } = await probe('--', process.execPath, MODERN, 'stdio')
    expect(exitCode).toBe(0)
    expect(['modern', 'dual']).toContain(report.era)
    expect(report.transport).toBe('stdio')
    expect(report.protocolVersions).toContain('2026-07-28')
    expect(report.server).toEqual({ name: 'sdk-modern-fixture', version: '2.0.0' })
  })

  test('legacy Streamable HTTP server', async () => {
    await using server = await serveFixture(LEGACY, 'http')
    const { exitCode, report } = await probe(server.url)
    expect(exitCode).toBe(0)
    expect([report.era, report.transport]).toEqual(['legacy', 'streamable-http'])
  })

  test('dual-era HTTP server', async () => {
    await using server = await serveFixture(MODERN, 'http')
    const { exitCode, report } = await probe(server.url)
    expect(exitCode).toBe(0)
    expect([report.era, report.transport]).toEqual(['dual', 'streamable-http'])
    expect(report.protocolVersions).toContain('2026-07-28')
  })

  test('modern-only HTTP server', async () => {
    await using server = await serveFixture(MODERN, 'http-strict')
    const { exitCode, report } = await probe(server.url)
    expect(exitCode).toBe(0)
    expect([report.era, report.transport]).toEqual(['modern', 'streamable-http'])
  })

  test('legacy HTTP+SSE server', async () => {
    await using server = await serveFixture(LEGACY, 'sse')
    const { exitCode, report } = await probe(server.url)
    expect(exitCode).toBe(0)
    expect([report.era, report.transport]).toEqual(['legacy', 'http+sse'])
  })

  test('a URL that is not MCP → exit 3 (CONNECT) with a diagnosis', async () => {
    using web = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: () => new Response('<html>hi</html>', { status: 404, headers: { 'content-type': 'text/html' } }),
    })
    const { exitCode, report, stderr } = await probe(`http://127.0.0.1:${web.port}/mcp`)
    expect(exitCode).toBe(3)
    expect(report.era).toBe('none')
    expect(report.error.code).toBe('CONNECT')
    expect(report.error.message).toContain('not an MCP endpoint')
    expect(errorJson(stderr).error.code).toBe('CONNECT')
  })

  test('a port with nothing listening → exit 3', async () => {
    const { exitCode, report } = await probe('http://127.0.0.1:1/mcp')
    expect(exitCode).toBe(3)
    expect(report.error.message).toContain('nothing answers')
  })

  test('a command that exits at once → exit 3', async () => {
    const { exitCode, report } = await probe('--', process.execPath, '-e', 'process.exit(7)')
    expect(exitCode).toBe(3)
    expect(report.error.code).toBe('CONNECT')
    expect(report.error.message).toContain('did not stay up')
  })

  test('401 → exit 4 (AUTH) naming where the resource metadata lives', async () => {
    using guarded = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: () =>
        new Response('', {
          status: 401,
          headers: { 'WWW-Authenticate': 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp"' },
        }),
    })
    const { exitCode, report } = await probe(`http://127.0.0.1:${guarded.port}/mcp`)
    expect(exitCode).toBe(4)
    expect(report.auth).toEqual({ required: true, resourceMetadata: 'http://127.0.0.1/.well-known/oauth-protected-resource/mcp' })
    expect(report.error.code).toBe('AUTH')
  })

  test('not a URL and no command → exit 2 (USAGE)', async () => {
    const result = await runMcpx(['probe', 'not-a-url'])
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain('mcpx probe -- not-a-url')
  })
})
