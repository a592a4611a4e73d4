/**
 * A task-required upstream tool (the official server-everything's `simulate-research-query`,
 * execution.taskSupport "required", a 2025-11-25 upstream over stdio) used by callers that speak
 * no tasks: an SDK 1.x host through mcpx_call and through the raw surface (progress reaching the
 * host), the pool directly as mcpx_exec and the CLI use it, and a cancelled call cancelling the
 * upstream task, the task's own elicitation brokered to the calling host; and the pass-through
 * surface in front of it answering as itself.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { join } from 'node:path'
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client'
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { homeLayout, parseConfig } from '../../lib/config/index.ts'
import { type Daemon, readToken, startGatewayDaemon } from '../../lib/daemon/index.ts'
import { UpstreamPool } from '../../lib/gateway/index.ts'
import { REPO_ROOT, tempDir, testSettings } from '../harness.ts'

const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js')
// server-everything's research task runs fixed steps of about 4 s in all; the ambiguous query adds
// an elicitation round and more polls, past bun's 5 s default on a slow machine.
setDefaultTimeout(20_000)
const configText = JSON.stringify({ mcpServers: { everything: { command: 'node', args: [EVERYTHING, 'stdio'] } } })
const dir = tempDir('mcpx-task-required')
let daemon: Daemon
let headers: Record<string, string>
let mcpUrl: string

beforeAll(async () => {
  const layout = homeLayout(join(dir.path, 'home'), join(dir.path, 'config.json'))
  daemon = await startGatewayDaemon({
    settings: testSettings({ daemonIdleMs: 0 }),
    config: parseConfig(configText, 'task-required.json', {}),
    layout,
    version: '0.0.0-test',
  })
  headers = { Authorization: `Bearer ${readToken(layout.token)}` }
  mcpUrl = `${daemon.info().tcp.url}/mcp`
})
afterAll(async () => {
  await daemon?.shutdown('test done')
  dir[Symbol.dispose]()
})

const textOf = (result: unknown) =>
  ((result as { content?: unknown }).content as { type: string; text: string }[]).map((c) => c.text).join('\n')

/** An SDK 1.x host that declares no tasks support (no capabilities at all). */
async function legacyHost<T>(path: string, run: (client: LegacyClient) => Promise<T>): Promise<T> {
  const client = new LegacyClient({ name: 'no-tasks-host', version: '1.0.0' }, { capabilities: {} })
  await client.connect(new LegacyHttp(new URL(mcpUrl + path), { requestInit: { headers } }))
  try {
    return await run(client)
  } finally {
    await client.close()
  }
}

describe('task-required tool, caller without tasks', () => {
  test('through mcpx_call: the report comes back and task status reaches the host as progress', async () => {
    await legacyHost('', async (client) => {
      const progress: string[] = []
      const result = await client.callTool(
        { name: 'mcpx_call', arguments: { tool: 'everything.simulate-research-query', arguments: { topic: 'tides' } } },
        undefined,
        { onprogress: (p) => progress.push(String(p.message)), timeout: 30_000 },
      )
      expect(result.isError).toBeFalsy()
      expect(textOf(result)).toContain('# Research Report: tides')
      expect(progress.some((m) => m.startsWith('working'))).toBe(true)
    })
  })

  test('through the raw surface: listed as optional for hosts without tasks, and callable', async () => {
    await legacyHost('?codemode=false', async (client) => {
      const { tools } = await client.listTools()
      const tool = tools.find((t) => t.name === 'everything_simulate-research-query')
      expect(tool?.execution?.taskSupport).toBe('optional')
      const progress: unknown[] = []
      const result = await client.callTool({ name: 'everything_simulate-research-query', arguments: { topic: 'reefs' } }, undefined, {
        onprogress: (p) => progress.push(p),
        timeout: 30_000,
      })
      expect(textOf(result)).toContain('# Research Report: reefs')
      expect(progress.length).toBeGreaterThan(0)
    })
  })
})

describe('a 2026 host without the tasks extension (SDK 2.x)', () => {
  test('through the raw surface gets the task result', async () => {
    const client = new ModernClient(
      { name: 'modern-no-tasks', version: '2.0.0' },
      { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    )
    await client.connect(new ModernHttp(new URL(`${mcpUrl}?codemode=false`), { requestInit: { headers } }))
    try {
      const result = await client.callTool({ name: 'everything_simulate-research-query', arguments: { topic: 'kelp' } })
      expect(textOf(result)).toContain('# Research Report: kelp')
    } finally {
      await client.close()
    }
  })
})

describe('the upstream task asks a question', () => {
  test("an ambiguous query's elicitation (carried on tasks/result) reaches the host that made the call", async () => {
    const client = new LegacyClient({ name: 'answering-host', version: '1.0.0' }, { capabilities: { elicitation: {} } })
    const asked: string[] = []
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(String(request.params.message))
      return { action: 'accept', content: { interpretation: 'tidal physics' } }
    })
    await client.connect(new LegacyHttp(new URL(mcpUrl), { requestInit: { headers } }))
    try {
      const result = await client.callTool(
        { name: 'mcpx_call', arguments: { tool: 'everything.simulate-research-query', arguments: { topic: 'tides', ambiguous: true } } },
        undefined,
        { timeout: 30_000 },
      )
      expect(asked.length).toBe(1)
      expect(textOf(result)).toContain('tidal physics')
    } finally {
      await client.close()
    }
  })
})

describe('pass-through in front of server-everything', () => {
  test("a name the catalog has not seen is the upstream's to answer: its own isError result comes back", async () => {
    await legacyHost('?passthrough=everything', async (client) => {
      const result = await client.callTool({ name: 'no_such_tool', arguments: {} })
      expect(result.isError).toBe(true)
      expect(textOf(result)).toContain('no_such_tool')
      const init = client.getServerVersion()
      expect(init).toMatchObject({ name: 'mcp-servers/everything', title: 'Everything Reference Server' })
      expect(client.getInstructions()).toBeString()
    })
  })
})

/** The upstream's own task list (the daemon's pool is the gateway's UpstreamPool). */
async function upstreamTasks(pool: { request: UpstreamPool['request'] }): Promise<Record<string, unknown>[]> {
  return (await pool.request('everything', 'tasks/list', {})).tasks as Record<string, unknown>[]
}

describe('pass-through answers bad arguments as the upstream does', () => {
  test('a tool call whose arguments miss its schema, and a prompt missing a required argument', async () => {
    const ask = async (client: LegacyClient) => ({
      call: await client.callTool({ name: 'echo', arguments: { wrong: 1 } }),
      prompt: await client.getPrompt({ name: 'args-prompt', arguments: {} }).then(
        () => 'answered',
        (error: Error & { code?: number }) => ({ code: error.code, message: error.message }),
      ),
    })
    const direct = new LegacyClient({ name: 'no-tasks-host', version: '1.0.0' }, { capabilities: {} })
    await direct.connect(new StdioClientTransport({ command: 'node', args: [EVERYTHING, 'stdio'], stderr: 'ignore' }))
    let expected: Awaited<ReturnType<typeof ask>>
    try {
      expected = await ask(direct)
    } finally {
      await direct.close()
    }
    expect(expected.call.isError).toBe(true)
    expect(expected.prompt).toMatchObject({ code: -32602 })
    // The upstream's own words (its validator), not the gateway's, which names the tool everything.echo.
    expect(await legacyHost('?passthrough=everything', ask)).toEqual(expected)
  })
})

describe('pass-through: a 2025-11-25 host asking for a task', () => {
  test("gets the upstream's own task id, and the task's result under it", async () => {
    await legacyHost('?passthrough=everything', async (client) => {
      expect(client.getServerVersion()?.name).toBe('mcp-servers/everything')
      const created = await client.request(
        { method: 'tools/call', params: { name: 'simulate-research-query', arguments: { topic: 'currents' }, task: { ttl: 60_000 } } },
        CreateTaskResultSchema,
        { timeout: 30_000 },
      )
      const taskId = created.task.taskId
      // The upstream knows the task under the id the host was given (mapped, not renamed).
      const upstreamIds = (await upstreamTasks(daemon.pool as unknown as UpstreamPool)).map((t) => t.taskId)
      expect(upstreamIds).toContain(taskId)
      expect((await client.experimental.tasks.getTask(taskId)).taskId).toBe(taskId)
      const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, { timeout: 30_000 })
      expect(textOf(result)).toContain('# Research Report: currents')
    })
  })
})

describe('cancelling from the host', () => {
  test('the host cancelling its mcpx_call cancels the upstream task', async () => {
    const pool = daemon.pool as unknown as UpstreamPool
    const before = new Set((await upstreamTasks(pool)).map((t) => t.taskId))
    await legacyHost('', async (client) => {
      const abort = new AbortController()
      const call = client.callTool(
        { name: 'mcpx_call', arguments: { tool: 'everything.simulate-research-query', arguments: { topic: 'storms' } } },
        undefined,
        { signal: abort.signal, timeout: 30_000 },
      )
      call.catch(() => {})
      let created: Record<string, unknown> | undefined
      for (let i = 0; i < 100 && created === undefined; i++) {
        await Bun.sleep(50)
        created = (await upstreamTasks(pool)).find((t) => !before.has(t.taskId) && t.status === 'working')
      }
      expect(created).toBeDefined()
      abort.abort('host gave up')
      await expect(call).rejects.toThrow()
      let status: unknown
      for (let i = 0; i < 100 && status !== 'cancelled'; i++) {
        await Bun.sleep(50)
        status = (await upstreamTasks(pool)).find((t) => t.taskId === created!.taskId)?.status
      }
      expect(status).toBe('cancelled')
    })
  })
})

describe('task-required tool through the pool (what mcpx_exec and the /v1 call use)', () => {
  const pool = new UpstreamPool({ config: parseConfig(configText, 'task-required.json', {}), settings: testSettings() })
  afterAll(() => pool.close())

  test('completes with the task result', async () => {
    const result = await pool.call('everything', 'simulate-research-query', { topic: 'dunes' })
    expect(textOf(result)).toContain('# Research Report: dunes')
  })

  test('a cancelled call cancels the upstream task', async () => {
    const abort = new AbortController()
    const call = pool.call('everything', 'simulate-research-query', { topic: 'glaciers' }, { signal: abort.signal })
    call.catch(() => {})
    // Wait until the upstream task exists, then cancel the caller's request.
    let listed: Record<string, unknown>[] = []
    for (let i = 0; i < 100 && listed.length === 0; i++) {
      await Bun.sleep(50)
      listed = ((await pool.request('everything', 'tasks/list', {})).tasks as Record<string, unknown>[]).filter(
        (t) => t.status === 'working',
      )
    }
    expect(listed.length).toBe(1)
    abort.abort()
    await expect(call).rejects.toThrow()
    let status: unknown
    for (let i = 0; i < 100 && status !== 'cancelled'; i++) {
      await Bun.sleep(50)
      status = ((await pool.request('everything', 'tasks/list', {})).tasks as Record<string, unknown>[]).find(
        (t) => t.taskId === listed[0]!.taskId,
      )?.status
    }
    expect(status).toBe('cancelled')
  })
})
