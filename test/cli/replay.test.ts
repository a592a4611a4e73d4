/**
 * `mcpx record` and `mcpx replay` as a user runs them: record a host session through the CLI
 * proxy (SDK 1.x client ↔ mcpx record ↔ the everything fixture over stdio), print it, serve it
 * back on stdio to a fresh SDK client, replay it against the live fixture (exit 0) and against a
 * changed recording (exit 6), and refuse broken files with exit 2.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport as LegacyStdio } from '@modelcontextprotocol/sdk/client/stdio.js'
import { readRecording } from '../../lib/replay/index.ts'
import { Engine, serveHttp } from '../../lib/server/index.ts'
import { everythingServer } from '../fixtures/everything/server.ts'
import { REPO_ROOT, mcpxCommand, runMcpx, tempDir, testSettings, errorJson } from '../harness.ts'

const FIXTURE = join(REPO_ROOT, 'test/fixtures/everything/main.ts')

async function withSdkClient(argv: string[], run: (client: LegacyClient) => Promise<void>): Promise<void> {
  const [command, ...args] = argv
  const client = new LegacyClient({ name: 'host', version: '1.0.0' })
  await client.connect(new LegacyStdio({ command: command!, args, stderr: 'ignore' }))
  try {
    await run(client)
  } finally {
    await client.close()
  }
}

describe('mcpx record / replay', () => {
  const dir = tempDir('replay-cli')
  const file = join(dir.path, 'session.jsonl')
  const settings = testSettings()
  let server: Awaited<ReturnType<typeof serveHttp>>
  afterAll(async () => {
    await server?.close()
    dir[Symbol.dispose]()
  })

  beforeAll(async () => {
    server = serveHttp(new Engine(everythingServer, settings), settings)
    await withSdkClient([...mcpxCommand(), 'record', file, '--', process.execPath, FIXTURE, '--stdio'], async (client) => {
      expect(client.getServerVersion()?.name).toBe('mcpx-everything')
      expect(await client.callTool({ name: 'test_simple_text' })).toEqual({
        content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
      })
    })
  })

  test('record wrote a recording; replay prints its timeline', async () => {
    expect(readFileSync(file, 'utf8').split('\n')[0]).toContain('"format":"mcpx-recording"')
    const printed = await runMcpx(['replay', file])
    expect(printed.exitCode).toBe(0)
    expect(printed.stdout).toContain('role client over stdio, legacy 2025-11-25 peer mcpx-everything')
    // One numbering: the entry's #seq (as divergences and serve's hints cite it), the JSON-RPC id beside.
    expect(printed.stdout).toMatch(/ #1 → initialize \(id 0\)/)
    expect(printed.stdout).toMatch(/ #\d+ → tools\/call \(id 1\) \{"name":"test_simple_text"\}/)
    const json = await runMcpx(['replay', file, '--json'])
    expect(JSON.parse(json.stdout).header.format).toBe('mcpx-recording')
  })

  test('a host that ends its stdin right after its requests: the answers are relayed and recorded', async () => {
    const piped = join(dir.path, 'piped.jsonl')
    const lines = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'p', version: '1' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'test_simple_text', arguments: {} } },
    ]
    // The command named as `call` and `tools` name one (the session above named it after `--`).
    const relayed = await runMcpx(['record', piped, '--stdio', `${process.execPath} ${FIXTURE} --stdio`], {
      stdin: lines.map((line) => `${JSON.stringify(line)}\n`).join(''),
    })
    expect(relayed.exitCode).toBe(0)
    const answered = relayed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).id)
    expect(answered).toEqual([1, 2])
    const answers = readRecording(piped).messages.filter((entry) => entry.direction === 'to-client' && 'id' in entry.message)
    expect(answers.map((entry) => (entry.message as { id: unknown }).id)).toEqual([1, 2])
    const replayed = await runMcpx(['replay', piped, '--against', '--', process.execPath, FIXTURE, '--stdio'])
    expect(replayed.stdout).toContain('2 requests, 2 matched, 0 diverged')
  })

  test('--serve --stdio answers a fresh SDK client from the recording', async () => {
    await withSdkClient([...mcpxCommand(), 'replay', file, '--serve', '--stdio'], async (client) => {
      expect(client.getServerVersion()?.name).toBe('mcpx-everything')
      expect(await client.callTool({ name: 'test_simple_text' })).toEqual({
        content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
      })
      const miss = await client.callTool({ name: 'test_error_handling' }).catch((error: Error) => error)
      // The hint cites the #seq the printed timeline gives the closest request.
      const printed = (await runMcpx(['replay', file])).stdout
      const seq = /#(\d+) → tools\/call \(id \d+\) \{"name":"test_simple_text"/.exec(printed)?.[1]
      expect((miss as Error).message).toContain(`closest recorded request is #${seq} tools/call`)
    })
  })

  test('--against a live server (HTTP and stdio): no divergence, exit 0', async () => {
    const same = await runMcpx(['replay', file, '--against', server.url])
    expect(same.stdout).toContain('0 diverged')
    expect(same.exitCode).toBe(0)
    const overStdio = await runMcpx(['replay', file, '--against', '--', process.execPath, FIXTURE, '--stdio'])
    expect(overStdio.stdout).toContain('0 diverged')
    expect(overStdio.exitCode).toBe(0)
  })

  test('--against with a changed recording: readable or JSON diff, exit 6', async () => {
    const changed = join(dir.path, 'changed.jsonl')
    writeFileSync(changed, readFileSync(file, 'utf8').replace('This is a simple text response for testing.', 'Something else'))
    const diverged = await runMcpx(['replay', changed, '--against', server.url, '--json'])
    expect(diverged.exitCode).toBe(6)
    expect(JSON.parse(diverged.stdout).divergences[0].differences[0].path).toBe('/result/content/0/text')
    const human = await runMcpx(['replay', changed, '--against', server.url])
    expect(human.exitCode).toBe(6)
    expect(human.stdout).toContain('- /result/content/0/text: "Something else"')
    // One numbering: the divergence cites the #seq the printed timeline gives that request.
    const seq = /#(\d+) → tools\/call \(id \d+\) \{"name":"test_simple_text"/.exec((await runMcpx(['replay', changed])).stdout)?.[1]
    expect(seq).toBeDefined()
    expect(human.stdout).toMatch(new RegExp(`^✗ #${seq} tools/call \\{"name":"test_simple_text"`, 'm'))
  })
})

describe('mcpx replay errors', () => {
  test('broken recordings fail with exit 2 and a message naming the line', async () => {
    using dir = tempDir('replay-cli')
    const file = join(dir.path, 'bad.jsonl')
    writeFileSync(file, '{"type":"header","format":"mcpx-recording","formatVersion":7}\n')
    const future = await runMcpx(['replay', file])
    expect(future.exitCode).toBe(2)
    expect(future.stderr).toContain('bad.jsonl:1: recording format version 7 is newer than this mcpx reads')
    writeFileSync(file, 'hello\n')
    const garbage = await runMcpx(['replay', file])
    expect(garbage.exitCode).toBe(2)
    expect(garbage.stderr).toContain('bad.jsonl:1:')
    writeFileSync(
      file,
      '{"type":"header","format":"mcpx-recording","formatVersion":1,"mcpxVersion":"0.1.0","createdAt":"x","role":"client","transport":"stdio","era":null,"revision":null,"redaction":{"headers":[],"fields":[]}}\n{"type":"message","seq":1,"t":0,"direc',
    )
    for (const mode of [[], ['--serve'], ['--against', 'http://127.0.0.1:1/mcp']]) {
      const truncated = await runMcpx(['replay', file, ...mode])
      expect(truncated.exitCode).toBe(2)
      expect(truncated.stderr).toContain('bad.jsonl:2: truncated')
    }
    const missing = await runMcpx(['replay', join(dir.path, 'nope.jsonl')])
    expect(missing.exitCode).toBe(2)
    expect(missing.stderr).toContain('cannot read recording')
  })
})

describe('recording from the gateway and from mcpx call', () => {
  const called = (recording: ReturnType<typeof readRecording>) =>
    recording.messages
      .filter((m) => m.direction === 'to-server' && typeof m.message.method === 'string')
      .map((m) => (m.message.method === 'tools/call' ? `tools/call ${(m.message.params as { name: string }).name}` : m.message.method))

  test('a daemon config entry with record: "<path>" records that upstream\'s session', async () => {
    using dir = tempDir('replay-gateway')
    const config = join(dir.path, 'config.json')
    const file = join(dir.path, 'up.jsonl')
    const env = { MCPX_HOME: join(dir.path, 'home') }
    writeFileSync(config, JSON.stringify({ mcpServers: { up: { command: process.execPath, args: [FIXTURE, '--stdio'], record: file } } }))
    try {
      const result = await runMcpx(['call', 'up.test_simple_text', '--config', config], { env })
      expect(result).toMatchObject({ stdout: 'This is a simple text response for testing.\n', exitCode: 0 })
    } finally {
      await runMcpx(['daemon', 'stop', '--config', config], { env })
    }
    const recording = readRecording(file)
    // mcpx's client negotiates the newest era the fixture offers (modern, server/discover in-band on stdio).
    expect([recording.header.role, recording.header.transport, recording.era, recording.peer?.name]).toEqual([
      'client',
      'stdio',
      'modern',
      'mcpx-everything',
    ])
    expect(called(recording)).toContain('tools/call test_simple_text')
    expect(recording.entries.at(-1)?.type).toBe('close')
    const replayed = await runMcpx(['replay', file, '--against', '--', process.execPath, FIXTURE, '--stdio'])
    expect(replayed.stdout).toContain('0 diverged')
    expect(replayed.exitCode).toBe(0)
  })

  test('mcpx call --record FILE runs the call directly (no daemon) and records the whole session', async () => {
    using dir = tempDir('replay-call')
    const config = join(dir.path, 'config.json')
    const file = join(dir.path, 'call.jsonl')
    const home = join(dir.path, 'home')
    // Pinned to 2025-11-25 so the SDK 1.x client below can be served the recording.
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { up: { command: process.execPath, args: [FIXTURE, '--stdio'], protocol: '2025-11-25' } } }),
    )
    const result = await runMcpx(['call', 'up.test_prompt_free', '--record', file, '--config', config], { env: { MCPX_HOME: home } })
    expect(result.exitCode).toBe(2)
    expect(errorJson(result.stderr).error).toMatchObject({ code: 'NOT_FOUND', message: 'server "up" has no tool "test_prompt_free"' })
    const ok = await runMcpx(
      ['call', 'up.json_schema_2020_12_tool', 'name=Ada', 'email=ada@example.com', '--record', file, '--config', config, '--json'],
      { env: { MCPX_HOME: home } },
    )
    expect(ok.exitCode).toBe(0)
    expect(JSON.parse(ok.stdout).content[0].text).toBe('Received: {"name":"Ada","email":"ada@example.com"}')
    // Direct: no daemon was started for it.
    const status = await runMcpx(['daemon', 'status', '--config', config, '--json'], { env: { MCPX_HOME: home } })
    expect(errorJson(status.stderr).error.data).toMatchObject({ daemon: 'unreachable' })

    const recording = readRecording(file)
    expect(called(recording)).toEqual(
      expect.arrayContaining(['initialize', 'notifications/initialized', 'tools/list', 'tools/call json_schema_2020_12_tool']),
    )
    expect(recording.entries.at(-1)?.type).toBe('close')
    const replayed = await runMcpx(['replay', file, '--against', '--', process.execPath, FIXTURE, '--stdio'])
    expect(replayed.stdout).toContain('0 diverged')
    await withSdkClient([...mcpxCommand(), 'replay', file, '--serve', '--stdio'], async (client) => {
      expect(await client.callTool({ name: 'json_schema_2020_12_tool', arguments: { name: 'Ada', email: 'ada@example.com' } })).toEqual({
        content: [{ type: 'text', text: 'Received: {"name":"Ada","email":"ada@example.com"}' }],
      })
    })
  })
})
