/**
 * A 2025-11-25 host on the pass-through surface in front of a 2026-07-28 upstream with the tasks
 * extension (mcpx's everything fixture over stdio). 2026 tasks are server-directed and a 2026
 * listing has no `execution` (extensions/tasks, SEP-2663), while a 2025-11-25 host asks per tool
 * (2025-11-25 basic/utilities/tasks.mdx "Tool-Level Negotiation"). So the tools are listed to it
 * as task-optional; its `task` hint becomes the extension declared upstream on that call; an
 * upstream task keeps its id for the host (tasks/get, tasks/result, tasks/cancel map onto it), and
 * a call the upstream answers directly is held by mcpx as a task of its own. The host is an SDK
 * 1.x client speaking 2025-11-25.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { homeLayout, parseConfig } from '../../lib/config/index.ts'
import { type Daemon, readToken, startGatewayDaemon } from '../../lib/daemon/index.ts'
import { ParkingLot, type UpstreamPool } from '../../lib/gateway/index.ts'
import { upstreamTools } from '../../lib/gateway/surfaces/upstream-items.ts'
import { REPO_ROOT, tempDir, testSettings } from '../harness.ts'

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } }
const config = parseConfig(
  JSON.stringify({
    mcpServers: { everything: { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/everything/main.ts'), '--stdio'] } },
  }),
  'legacy-tasks.json',
  {},
)
const dir = tempDir('mcpx-passthrough-legacy-tasks')
const settings = testSettings({ daemonIdleMs: 0 })
let daemon: Daemon
let client: Client
let pool: UpstreamPool
let headers: Record<string, string>

beforeAll(async () => {
  const layout = homeLayout(join(dir.path, 'home'), join(dir.path, 'config.json'))
  daemon = await startGatewayDaemon({ settings, config, layout, version: '0.0.0-test' })
  pool = daemon.pool as unknown as UpstreamPool
  client = new Client({ name: 'legacy-tasks-host', version: '1.0.0' }, { capabilities: {} })
  const url = new URL(`${daemon.info().tcp.url}/mcp?passthrough=everything`)
  headers = { Authorization: `Bearer ${readToken(layout.token)}` }
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }))
})
afterAll(async () => {
  await client?.close()
  await daemon?.shutdown('test done')
  dir[Symbol.dispose]()
})

const textOf = (result: unknown) => ((result as { content?: unknown }).content as { text: string }[]).map((c) => c.text).join('\n')
const asTask = (name: string, args: Record<string, unknown>) =>
  client.request({ method: 'tools/call', params: { name, arguments: args, task: { ttl: 60_000 } } }, CreateTaskResultSchema, {
    timeout: 30_000,
  })
/** The upstream's own view of a task (the gateway's pool, declaring the extension as 2026 requires). */
const upstreamTask = (taskId: string) => pool.request('everything', 'tasks/get', { taskId }, { capabilities: TASKS })

describe('pass-through, 2025-11-25 host, 2026 upstream with the tasks extension', () => {
  test('the session negotiated 2025-11-25 and its tools are listed task-optional', async () => {
    expect(client.getServerCapabilities()?.tasks).toBeDefined()
    const tools = (await client.listTools()).tools
    const byName = new Map(tools.map((t) => [t.name, t]))
    expect(byName.get('slow_compute')?.execution).toEqual({ taskSupport: 'optional' })
    expect(byName.get('greet')?.execution).toEqual({ taskSupport: 'optional' })
  })

  test('a 2026 host (SDK 2.x) is listed the tools as the upstream gave them: no execution', async () => {
    const modern = new ModernClient(
      { name: 'modern-host', version: '2.0.0' },
      { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    )
    await modern.connect(new ModernHttp(new URL(`${daemon.info().tcp.url}/mcp?passthrough=everything`), { requestInit: { headers } }))
    try {
      const tool = (await modern.listTools()).tools.find((t) => t.name === 'slow_compute')
      expect(tool).toBeDefined()
      expect(tool).not.toHaveProperty('execution')
    } finally {
      await modern.close()
    }
  })

  test("a task the upstream creates keeps the upstream's task id; tasks/get and the blocking tasks/result map onto it", async () => {
    const created = await asTask('slow_compute', { seconds: 0.5, label: 'legacy' })
    const taskId = created.task.taskId
    expect(created.task.status).toBe('working')
    // The upstream knows this very id: it is its task, mapped, not renamed.
    expect((await upstreamTask(taskId)).taskId).toBe(taskId)
    expect((await client.experimental.tasks.getTask(taskId)).taskId).toBe(taskId)
    const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, { timeout: 30_000 })
    expect(textOf(result)).toBe('Computed legacy after 0.5s')
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe('completed')
    expect((await upstreamTask(taskId)).status).toBe('completed')
  })

  test('a call the upstream answers directly is held by mcpx as a task of its own', async () => {
    const created = await asTask('greet', { name: 'Ada' })
    const taskId = created.task.taskId
    const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, { timeout: 30_000 })
    expect(textOf(result)).toBe('Hello, Ada!')
    // Not an upstream task: the upstream never made one (unknown taskId is -32602, SEP-2663).
    await expect(upstreamTask(taskId)).rejects.toThrow(/Unknown taskId/)
  })

  test('tasks/cancel from the host cancels the upstream task', async () => {
    const created = await asTask('slow_compute', { seconds: 30 })
    const taskId = created.task.taskId
    expect((await upstreamTask(taskId)).status).toBe('working')
    const cancelled = await client.experimental.tasks.cancelTask(taskId)
    expect(cancelled.status).toBe('cancelled')
    let status: unknown
    for (let i = 0; i < 100 && status !== 'cancelled'; i++) {
      await Bun.sleep(50)
      status = (await upstreamTask(taskId)).status
    }
    expect(status).toBe('cancelled')
  })

  test("the upstream task's input request reaches the host (elicitation/create) and its answer goes back upstream", async () => {
    const asking = new Client({ name: 'answering-host', version: '1.0.0' }, { capabilities: { elicitation: {} } })
    const asked: string[] = []
    asking.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(String(request.params.message))
      return { action: 'accept', content: { confirm: true } }
    })
    await asking.connect(
      new StreamableHTTPClientTransport(new URL(`${daemon.info().tcp.url}/mcp?passthrough=everything`), { requestInit: { headers } }),
    )
    try {
      const created = await asking.request(
        { method: 'tools/call', params: { name: 'confirm_delete', arguments: { filename: 'old.log' }, task: { ttl: 60_000 } } },
        CreateTaskResultSchema,
        { timeout: 30_000 },
      )
      const result = await asking.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema, { timeout: 30_000 })
      expect(asked).toEqual(['Delete old.log?'])
      expect(textOf(result)).toBe('Deleted old.log')
    } finally {
      await asking.close()
    }
  })

  test('without the task hint the call is answered directly, as before', async () => {
    const result = await client.callTool({ name: 'slow_compute', arguments: { seconds: 0.1, label: 'plain' } }, undefined, {
      timeout: 30_000,
    })
    expect(textOf(result)).toBe('Computed plain after 0.1s')
  })

  test('a list rebuilt while the upstream reconnects still offers its tools as task-optional', async () => {
    const upstream = pool.upstream('everything')
    const catalog = await pool.catalog('everything')
    // The connection ends (as in a crash); the restart waits restartBackoffMs, so for that moment
    // no connection is live, and a surface rebuilding its list then reads the catalog's own answer.
    await (await upstream.client()).close()
    expect(upstream.decidesTasksPerCall).toBe(false)
    const rebuilt = upstreamTools(catalog, {
      pool,
      parking: new ParkingLot(settings.requestStateTtlMs),
      ownNames: true,
      tasks: () => daemon as never,
    })
    expect(rebuilt.find((t) => t.name === 'slow_compute')?.execution).toEqual({ taskSupport: 'optional' })
    // Reconnected, the host still lists them so and a task hint still makes a task.
    const tools = (await client.listTools()).tools
    expect(tools.find((t) => t.name === 'slow_compute')?.execution).toEqual({ taskSupport: 'optional' })
    const created = await asTask('slow_compute', { seconds: 0.1, label: 'after' })
    expect(textOf(await client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema, { timeout: 30_000 }))).toBe(
      'Computed after after 0.1s',
    )
  })
})
