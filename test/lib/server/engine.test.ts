/**
 * The engine without a transport: a real Engine fed JSON-RPC messages on in-memory channels.
 * Covers negotiation, concurrency (TR-05), cancellation, MRTR state integrity, listen streams and
 * both task surfaces.
 */
import { describe, expect, test } from 'bun:test'
import { McpxError } from '../../../lib/errors/index.ts'
import { Engine, defineServer, defineTool, type Channel } from '../../../lib/server/index.ts'
import type { JsonRpcMessage, JsonRpcResponse } from '../../../lib/wire/index.ts'
import { testSettings } from '../../harness.ts'

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } }

/** Resolves when the test releases it; lets a handler wait without timers. */
function gate(): { wait: Promise<void>; open(): void } {
  let open!: () => void
  return { wait: new Promise<void>((resolve) => (open = resolve)), open }
}

function setup() {
  const blocker = gate()
  const started = gate()
  const server = defineServer({
    info: { name: 'unit', version: '1.0.0' },
    tasks: true,
    tools: [
      defineTool({
        name: 'block',
        description: 'waits for the test, or for cancellation',
        async handler(_args, ctx) {
          started.open()
          await Promise.race([
            blocker.wait,
            new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))),
          ])
          return { content: [{ type: 'text', text: 'released' }] }
        },
      }),
      defineTool({
        name: 'two_steps',
        async handler(_args, ctx) {
          const a = await ctx.elicit({ message: 'a?', requestedSchema: { type: 'object', properties: {} } }, 'a')
          const b = await ctx.elicit({ message: 'b?', requestedSchema: { type: 'object', properties: {} } }, 'b')
          return { content: [{ type: 'text', text: `${JSON.stringify(a.content)} ${JSON.stringify(b.content)}` }] }
        },
      }),
      defineTool({
        name: 'slow',
        execution: { taskSupport: 'optional' },
        async handler(_args, ctx) {
          await blocker.wait
          return { content: [{ type: 'text', text: `done ${ctx.era}` }] }
        },
      }),
    ],
  })
  const engine = new Engine(server, testSettings())
  const sent: JsonRpcMessage[] = []
  const connection = engine.connect('stdio')
  const channel: Channel = { connection, outlet: { send: (m) => void sent.push(m) } }
  let id = 0
  const call = (method: string, params?: Record<string, unknown>) =>
    engine.handle({ jsonrpc: '2.0', id: ++id, method, ...(params && { params }) }, channel)
  return { engine, connection, channel, sent, call, blocker, started }
}

const result = (r: JsonRpcResponse | undefined) => (r && 'result' in r ? r.result : undefined) as any
const error = (r: JsonRpcResponse | undefined) => (r && 'error' in r ? r.error : undefined)

describe('a server that cannot serve now (ServerDefinition.unavailable)', () => {
  test('refuses initialize and server/discover with why, and the connection stays uninitialized', async () => {
    let down: McpxError | undefined = new McpxError('CONNECT', 'the one upstream is down')
    const engine = new Engine(defineServer({ info: { name: 'gate', version: '1.0.0' }, unavailable: () => down }), testSettings())
    const connection = engine.connect('stdio')
    const channel: Channel = { connection, outlet: { send: () => {} } }
    const initialize = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } }
    const refused = await engine.handle({ jsonrpc: '2.0', id: 1, method: 'initialize', params: initialize }, channel)
    expect(error(refused)).toMatchObject({ code: -32603, message: 'the one upstream is down', data: { mcpxCode: 'CONNECT' } })
    expect(connection.legacy).toBeUndefined()
    const discover = await engine.handle({ jsonrpc: '2.0', id: 2, method: 'server/discover', params: { _meta: META } }, channel)
    expect(error(discover)?.message).toBe('the one upstream is down')
    // Once it can serve again, the same connection initializes.
    down = undefined
    expect(result(await engine.handle({ jsonrpc: '2.0', id: 3, method: 'initialize', params: initialize }, channel)).serverInfo.name).toBe(
      'gate',
    )
    expect(connection.legacy?.revision).toBe('2025-11-25')
  })
})

describe('legacy lifecycle', () => {
  test('echoes a supported version and counter-offers an unknown one', async () => {
    const { call } = setup()
    const init = (protocolVersion: string) =>
      call('initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'c', version: '1' } })
    expect(result(await init('2025-03-26')).protocolVersion).toBe('2025-03-26')
    expect(result(await init('1999-01-01')).protocolVersion).toBe('2025-11-25')
    expect(result(await init('2026-07-28')).protocolVersion).toBe('2025-11-25')
  })

  test('a blocked call does not hold up ping, and notifications/cancelled aborts it with no response', async () => {
    const { engine, channel, call, started } = setup()
    await call('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } })
    const blocked = call('tools/call', { name: 'block' })
    await started.wait
    expect(result(await call('ping'))).toEqual({})
    await engine.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } }, channel)
    expect(await blocked).toBeUndefined()
  })
})

describe('tool arguments', () => {
  test('arguments that break the inputSchema are a tool error (SEP-1303), not a protocol error', async () => {
    const server = defineServer({
      info: { name: 'args', version: '1' },
      tools: [
        defineTool({
          name: 'typed',
          inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
          handler: (a) => ({ content: [{ type: 'text', text: String(a.n) }] }),
        }),
      ],
    })
    const engine = new Engine(server, testSettings())
    const channel: Channel = { connection: engine.connect('stdio'), outlet: { send: () => {} } }
    const bad = result(
      await engine.handle(
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'typed', arguments: { n: 'x' }, _meta: META } },
        channel,
      ),
    )
    expect(bad.isError).toBe(true)
    expect(bad.content[0].text).toContain('arguments')
    const good = result(
      await engine.handle(
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'typed', arguments: { n: 3 }, _meta: META } },
        channel,
      ),
    )
    expect(good.content).toEqual([{ type: 'text', text: '3' }])
  })
})

describe('modern MRTR', () => {
  test('state carries earlier answers across rounds and is bound to the request', async () => {
    const { call } = setup()
    const round1 = result(await call('tools/call', { name: 'two_steps', _meta: META }))
    expect(round1.resultType).toBe('input_required')
    expect(Object.keys(round1.inputRequests)).toEqual(['a'])
    const round2 = result(
      await call('tools/call', {
        name: 'two_steps',
        _meta: META,
        requestState: round1.requestState,
        inputResponses: { a: { action: 'accept', content: { x: 1 } } },
      }),
    )
    expect(Object.keys(round2.inputRequests)).toEqual(['b'])
    const done = result(
      await call('tools/call', {
        name: 'two_steps',
        _meta: META,
        requestState: round2.requestState,
        inputResponses: { b: { action: 'accept', content: { y: 2 } } },
      }),
    )
    expect(done.content).toEqual([{ type: 'text', text: '{"x":1} {"y":2}' }])
    // The same state presented on another tool is rejected.
    const misused = await call('tools/call', { name: 'block', _meta: META, requestState: round1.requestState })
    expect(error(misused)?.code).toBe(-32602)
    const tampered = round1.requestState.replace(/.$/, (c: string) => (c === 'A' ? 'B' : 'A'))
    expect(error(await call('tools/call', { name: 'two_steps', _meta: META, requestState: tampered }))?.code).toBe(-32602)
  })

  test('an expired state is rejected', async () => {
    const server = defineServer({ info: { name: 'ttl', version: '1' }, tools: setup().engine.registry.listTools() })
    const engine = new Engine(server, testSettings({ requestStateTtlMs: 0 }))
    const channel: Channel = { connection: engine.connect('stdio'), outlet: { send: () => {} } }
    const first = result(
      await engine.handle({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'two_steps', _meta: META } }, channel),
    )
    const again = await engine.handle(
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'two_steps', _meta: META, requestState: first.requestState } },
      channel,
    )
    expect(error(again)).toMatchObject({ code: -32602, data: { reason: 'expired' } })
  })
})

describe('subscriptions/listen', () => {
  test('acknowledges first, delivers only requested types tagged with the subscription id, ends on cancel', async () => {
    const { engine, channel, sent, call } = setup()
    const listening = call('subscriptions/listen', { _meta: META, notifications: { toolsListChanged: true, bogus: true } })
    engine.notify.promptsListChanged()
    engine.notify.toolsListChanged()
    await engine.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }, channel)
    expect(await listening).toBeUndefined()
    expect(sent).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 1 }, notifications: { toolsListChanged: true } },
      },
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 1 } } },
    ])
  })
})

test('server shutdown ends a listen stream with its tagged result (graceful closure)', async () => {
  const { engine, call } = setup()
  const listening = call('subscriptions/listen', { _meta: META, notifications: { promptsListChanged: true } })
  const closing = engine.close()
  expect(result(await listening)).toMatchObject({ resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': 1 } })
  await closing
})

describe('tasks', () => {
  test('2026 extension: a call still running becomes a task; tasks/get inlines the result; listeners hear its status', async () => {
    const { call, blocker, sent } = setup()
    const meta = { ...META, 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } }
    const created = result(await call('tools/call', { name: 'slow', _meta: meta }))
    expect(created).toMatchObject({ resultType: 'task', status: 'working' })
    expect(error(await call('subscriptions/listen', { _meta: META, notifications: { taskIds: [created.taskId] } }))?.code).toBe(-32021)
    void call('subscriptions/listen', { _meta: meta, notifications: { taskIds: [created.taskId] } })
    expect(result(await call('tasks/get', { taskId: created.taskId, _meta: meta })).status).toBe('working')
    blocker.open()
    let done = result(await call('tasks/get', { taskId: created.taskId, _meta: meta }))
    while (done.status === 'working') done = result(await call('tasks/get', { taskId: created.taskId, _meta: meta }))
    expect(done).toMatchObject({
      resultType: 'complete',
      status: 'completed',
      result: { content: [{ type: 'text', text: 'done modern' }] },
    })
    const pushed = sent
      .filter((m) => 'method' in m && m.method === 'notifications/tasks')
      .map((m) => (m as unknown as { params: { status: string } }).params.status)
    expect(pushed).toEqual(['completed'])
    expect(error(await call('tasks/get', { taskId: created.taskId, _meta: META }))?.code).toBe(-32021)
  })

  test('with a mirror (replicas keep tasks in Redis), a status is answered only once the mirror has written it', async () => {
    const { engine, call, blocker } = setup()
    const meta = { ...META, 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } }
    const written: string[] = []
    const held: Array<() => void> = []
    engine.tasks.mirror = (detailed) => new Promise<void>((resolve) => held.push(() => (written.push(String(detailed.status)), resolve())))
    const created = result(await call('tools/call', { name: 'slow', _meta: meta }))
    const releaseAll = () => {
      for (const release of held.splice(0)) release()
    }
    releaseAll()
    blocker.open()
    // The task completes while its mirror write is held: tasks/get waits for that write, then says completed.
    while (held.length === 0) await Bun.sleep(1)
    const polled = call('tasks/get', { taskId: created.taskId, _meta: meta })
    let answered = false
    void polled.then(() => (answered = true))
    await Bun.sleep(20)
    expect(answered).toBe(false)
    expect(written).toEqual(['working'])
    releaseAll()
    expect(result(await polled)).toMatchObject({ status: 'completed' })
    expect(written).toEqual(['working', 'completed'])
  })

  test('2025-11-25 core: params.task creates a task; tasks/result waits for it', async () => {
    const { call, blocker } = setup()
    await call('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } })
    const created = result(await call('tools/call', { name: 'slow', task: { ttl: 60_000 } }))
    expect(created.task).toMatchObject({ status: 'working', ttl: 60_000 })
    const taskId = created.task.taskId
    expect(result(await call('tasks/list')).tasks.map((t: { taskId: string }) => t.taskId)).toContain(taskId)
    const waiting = call('tasks/result', { taskId })
    blocker.open()
    const final = result(await waiting)
    expect(final.content).toEqual([{ type: 'text', text: 'done legacy' }])
    expect(final._meta['io.modelcontextprotocol/related-task']).toEqual({ taskId })
    expect(error(await call('tools/call', { name: 'block', task: {} }))?.code).toBe(-32601)
  })
})

describe('pagination', () => {
  test('lists page by listPageSize with opaque cursors; a bad cursor is -32602', async () => {
    const tools = Array.from({ length: 5 }, (_, i) => defineTool({ name: `t${i}`, handler: () => ({ content: [] }) }))
    const engine = new Engine(defineServer({ info: { name: 'pages', version: '1' }, tools }), testSettings({ listPageSize: 2 }))
    const channel: Channel = { connection: engine.connect('stdio'), outlet: { send: () => {} } }
    const names: string[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const page = result(
        await engine.handle(
          { jsonrpc: '2.0', id: ++pages, method: 'tools/list', params: { _meta: META, ...(cursor && { cursor }) } },
          channel,
        ),
      )
      names.push(...page.tools.map((t: { name: string }) => t.name))
      expect(page.cacheScope).toBe('public')
      cursor = page.nextCursor
    } while (cursor)
    expect(names).toEqual(['t0', 't1', 't2', 't3', 't4'])
    expect(pages).toBe(3)
    expect(
      error(await engine.handle({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: { _meta: META, cursor: 'nope' } }, channel))?.code,
    ).toBe(-32602)
  })
})

test('a legacy client without the elicitation capability gets a tool error, not the 2026-only -32021', async () => {
  const { engine } = setup()
  const server = defineServer({
    info: { name: 'caps', version: '1' },
    tools: [
      defineTool({
        name: 'ask',
        handler: async (_a, ctx) => ({
          content: [
            { type: 'text', text: JSON.stringify(await ctx.elicit({ message: 'x', requestedSchema: { type: 'object', properties: {} } })) },
          ],
        }),
      }),
    ],
  })
  const capsEngine = new Engine(server, engine.settings)
  const channel: Channel = { connection: capsEngine.connect('stdio'), outlet: { send: () => {} } }
  await capsEngine.handle(
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    },
    channel,
  )
  const reply = result(await capsEngine.handle({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ask' } }, channel))
  expect(reply.isError).toBe(true)
})

test('with an authenticated principal: requestState is bound to it and cacheable results are private', async () => {
  const { engine, connection } = setup()
  const as = (principal: string): Channel => ({ connection, outlet: { send: () => {} }, principal })
  const round1 = result(
    await engine.handle({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'two_steps', _meta: META } }, as('alice')),
  )
  const retry = (principal: string, id: number) =>
    engine.handle(
      {
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: {
          name: 'two_steps',
          _meta: META,
          requestState: round1.requestState,
          inputResponses: { a: { action: 'accept', content: {} } },
        },
      },
      as(principal),
    )
  expect(error(await retry('mallory', 2))).toMatchObject({ code: -32602, data: { reason: 'bound to a different caller' } })
  expect(result(await retry('alice', 3)).resultType).toBe('input_required')
  expect(
    result(await engine.handle({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: META } }, as('alice'))).cacheScope,
  ).toBe('private')
})

describe('accept liberally: older legacy clients', () => {
  test('a 2025-06-18 client sending the 2025-11-25 task hint and tasks/* is served as a 2025-11-25 tasks client', async () => {
    const { call, blocker } = setup()
    await call('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'old', version: '1' } })
    const created = result(await call('tools/call', { name: 'slow', arguments: {}, task: { ttl: 60000 } }))
    expect(created.task).toMatchObject({ status: 'working' })
    const taskId = created.task.taskId
    expect(result(await call('tasks/get', { taskId }))).toMatchObject({ taskId, status: 'working' })
    blocker.open()
    const final = result(await call('tasks/result', { taskId }))
    expect(final.content).toEqual([{ type: 'text', text: 'done legacy' }])
    expect(result(await call('tasks/list', {})).tasks.map((t: { taskId: string }) => t.taskId)).toContain(taskId)
    // A method no revision of its era defines stays -32601.
    expect(error(await call('server/discover', {}))?.code).toBe(-32601)
  })

  test('a 2025-03-26 client opens subscriptions/listen: acknowledged, then tagged list_changed until it cancels', async () => {
    const { engine, channel, sent, call } = setup()
    await call('initialize', { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'old', version: '1' } })
    await engine.handle({ jsonrpc: '2.0', method: 'notifications/initialized' }, channel)
    const listening = call('subscriptions/listen', { notifications: { toolsListChanged: true } })
    await Bun.sleep(0)
    const tag = { 'io.modelcontextprotocol/subscriptionId': 2 }
    expect(sent).toContainEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: tag, notifications: { toolsListChanged: true } },
    })
    engine.notify.toolsListChanged()
    expect(sent).toContainEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: tag } })
    await engine.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } }, channel)
    expect(await listening).toBeUndefined()
  })
})

describe('2025-11-25 tasks of a tool that adopts ids (a gateway relaying upstream tasks)', () => {
  function adopting(name: (ctx: { adoptTaskId?: (taskId: string | undefined) => void }) => void) {
    const release = gate()
    const server = defineServer({
      info: { name: 'adopt', version: '1' },
      tasks: true,
      tools: [
        defineTool({
          name: 'relay',
          execution: { taskSupport: 'optional' },
          adoptsTaskId: true,
          async handler(_args, ctx) {
            name(ctx)
            await release.wait
            return { content: [{ type: 'text', text: 'relayed' }] }
          },
        }),
      ],
    })
    const engine = new Engine(server, testSettings())
    const channel: Channel = { connection: engine.connect('stdio'), outlet: { send: () => {} } }
    let id = 0
    const call = (method: string, params?: Record<string, unknown>) =>
      engine.handle({ jsonrpc: '2.0', id: ++id, method, ...(params && { params }) }, channel)
    return { call, release }
  }

  test('the task takes the id its handler names, and its result is under that id', async () => {
    const { call, release } = adopting((ctx) => ctx.adoptTaskId?.('upstream-7'))
    await call('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } })
    const created = result(await call('tools/call', { name: 'relay', arguments: {}, task: {} }))
    expect(created.task?.taskId ?? created.taskId).toBe('upstream-7')
    release.open()
    const done = result(await call('tasks/result', { taskId: 'upstream-7' }))
    expect(done.content).toEqual([{ type: 'text', text: 'relayed' }])
  })

  test('a handler that names none gets a new id', async () => {
    const { call, release } = adopting((ctx) => ctx.adoptTaskId?.(undefined))
    await call('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } })
    const created = result(await call('tools/call', { name: 'relay', arguments: {}, task: {} }))
    const taskId = created.task?.taskId ?? created.taskId
    expect(typeof taskId).toBe('string')
    expect(taskId).not.toBe('upstream-7')
    release.open()
  })
})
