/**
 * Relayed calls (lib/server/relay.ts) on a real Engine fed JSON-RPC messages on an in-memory
 * channel: which calls reach a tool's relay and which its handler, what the relay's call offers
 * mid-way (a context built on first use: logs, questions), and cancellation, drain and failures,
 * answered as the general dispatch answers them.
 */
import { describe, expect, test } from 'bun:test'
import { Engine, defineServer, defineTool, type Channel, type RelayedCall } from '../../../lib/server/index.ts'
import { RPC, RpcError } from '../../../lib/errors/index.ts'
import type { JsonRpcMessage, JsonRpcResponse } from '../../../lib/wire/index.ts'
import { testSettings } from '../../harness.ts'

interface Started {
  readonly args: Record<string, unknown>
  readonly call: RelayedCall
  resolve(result: Record<string, unknown>): void
  reject(error: unknown): void
}

function setup(options: { decline?: boolean; tasks?: boolean } = {}) {
  const started: Started[] = []
  const cancelled: unknown[] = []
  let handled = 0
  const tool = defineTool({
    name: 'relayed',
    inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
    async handler(args) {
      handled++
      return { content: [{ type: 'text', text: `handler ${JSON.stringify(args)}` }] }
    },
  })
  tool.relay = {
    start(args, call) {
      if (options.decline) return false
      call.stop = { cancel: (reason) => void cancelled.push(reason) }
      started.push({ args, call, resolve: (result) => call.resolve(result), reject: (error) => call.reject(error) })
      return true
    },
  }
  const engine = new Engine(defineServer({ info: { name: 'unit', version: '1.0.0' }, tools: [tool], tasks: options.tasks }), testSettings())
  const sent: JsonRpcMessage[] = []
  const connection = engine.connect('stdio')
  const channel: Channel = { connection, outlet: { send: (m) => void sent.push(m) } }
  let id = 0
  const request = (method: string, params?: Record<string, unknown>) =>
    engine.handle({ jsonrpc: '2.0', id: ++id, method, ...(params && { params }) }, channel)
  const initialize = (capabilities: Record<string, unknown> = {}) =>
    request('initialize', { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'host', version: '1' } })
  return { engine, channel, sent, started, cancelled, request, initialize, handled: () => handled }
}

const textOf = (r: JsonRpcResponse | undefined) =>
  ((r as unknown as { result: { content: { text: string }[] } }).result.content[0] as { text: string }).text
const until = async (check: () => boolean) => {
  while (!check()) await Bun.sleep(1)
}

describe('which calls are relayed', () => {
  test('a plain call of an initialized host goes to the relay, its result finished for the revision', async () => {
    const s = setup()
    await s.initialize()
    const answer = s.request('tools/call', { name: 'relayed', arguments: { n: 1 } })
    await until(() => s.started.length === 1)
    expect(s.started[0]!.args).toEqual({ n: 1 })
    expect(s.started[0]!.call.revision).toBe('2025-11-25')
    s.started[0]!.resolve({ content: [{ type: 'text', text: 'relayed' }], resultType: 'complete' })
    const response = await answer
    expect(textOf(response)).toBe('relayed')
    // The legacy spelling: no resultType (wire/shape/result.ts).
    expect((response as { result: Record<string, unknown> }).result.resultType).toBeUndefined()
    expect(s.handled()).toBe(0)
  })

  test('a call with a progress token, a task, unfit arguments, or before initialize goes to the handler', async () => {
    const s = setup()
    // An HTTP request of no session is legacy without initialize (2025-03-26 defaults).
    const sessionless: Channel = { connection: s.engine.connect('http', false), outlet: { send() {} }, era: 'legacy' }
    const call = { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'relayed', arguments: {} } } as const
    expect(textOf(await s.engine.handle(call, sessionless))).toBe('handler {}')
    await s.initialize()
    expect(textOf(await s.request('tools/call', { name: 'relayed', arguments: { n: 2 }, _meta: { progressToken: 'p' } }))).toBe(
      'handler {"n":2}',
    )
    expect(textOf(await s.request('tools/call', { name: 'relayed', arguments: {}, task: {} }))).toBe('handler {}')
    // The handler's way answers unfit arguments with its isError result.
    const unfit = (await s.request('tools/call', { name: 'relayed', arguments: { n: 'x' } })) as { result: Record<string, unknown> }
    expect(unfit.result.isError).toBe(true)
    expect(s.started).toHaveLength(0)
    expect(s.handled()).toBe(3)
  })

  test('a relay that declines, or a server that serves tasks, leaves the call to the handler', async () => {
    for (const options of [{ decline: true }, { tasks: true }]) {
      const s = setup(options)
      await s.initialize()
      expect(textOf(await s.request('tools/call', { name: 'relayed', arguments: {} }))).toBe('handler {}')
      expect(s.started).toHaveLength(0)
    }
  })
})

describe('what a relayed call offers mid-way', () => {
  test("the call's context logs on the call's stream, filtered by the host's level", async () => {
    const s = setup()
    await s.initialize()
    await s.request('logging/setLevel', { level: 'info' }).catch(() => undefined)
    const answer = s.request('tools/call', { name: 'relayed', arguments: {} })
    await until(() => s.started.length === 1)
    const ctx = s.started[0]!.call.context()
    expect(ctx.era).toBe('legacy')
    ctx.log('debug', 'dropped')
    ctx.log('warning', 'kept')
    s.started[0]!.resolve({ content: [{ type: 'text', text: 'ok' }] })
    await answer
    expect(s.sent).toEqual([{ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'warning', data: 'kept' } }])
  })

  test("a question through the context is a request on the call's stream, and the host's answer returns to the relay", async () => {
    const s = setup()
    await s.initialize({ elicitation: {} })
    const answer = s.request('tools/call', { name: 'relayed', arguments: {} })
    await until(() => s.started.length === 1)
    const asked = s.started[0]!.call.context().elicit({ message: 'name?', requestedSchema: { type: 'object', properties: {} } })
    await until(() => s.sent.length === 1)
    const question = s.sent[0] as { id: string; method: string }
    expect(question.method).toBe('elicitation/create')
    await s.engine.handle({ jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { name: 'Ada' } } }, s.channel)
    expect(await asked).toEqual({ action: 'accept', content: { name: 'Ada' } })
    s.started[0]!.resolve({ content: [{ type: 'text', text: 'asked' }] })
    expect(textOf(await answer)).toBe('asked')
  })
})

describe('how a relayed call ends', () => {
  test('notifications/cancelled stops it upstream and answers nothing', async () => {
    const s = setup()
    await s.initialize()
    const answer = s.request('tools/call', { name: 'relayed', arguments: {} })
    await until(() => s.started.length === 1)
    await s.engine.handle(
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2, reason: 'host gave up' } },
      s.channel,
    )
    expect(await answer).toBeUndefined()
    expect(s.cancelled).toHaveLength(1)
    // The relay's late rejection changes nothing.
    s.started[0]!.reject(new Error('cancelled upstream'))
    expect(s.engine.runningCount).toBe(0)
  })

  test('a drain answers it with the shutdown error even while the relay holds on', async () => {
    const s = setup()
    await s.initialize()
    const answer = s.request('tools/call', { name: 'relayed', arguments: {} })
    await until(() => s.started.length === 1)
    await s.engine.drain(10)
    const response = (await answer) as { error: { code: number; message: string } }
    expect(response.error.code).toBe(RPC.INTERNAL_ERROR)
    expect(response.error.message).toContain('may or may not have run')
    expect(s.cancelled).toHaveLength(1)
  })

  test('a protocol error is answered as one; any other failure is an isError result', async () => {
    const s = setup()
    await s.initialize()
    const first = s.request('tools/call', { name: 'relayed', arguments: {} })
    await until(() => s.started.length === 1)
    s.started[0]!.reject(new RpcError(RPC.INVALID_PARAMS, 'upstream refused'))
    expect((await first) as unknown).toMatchObject({ error: { code: RPC.INVALID_PARAMS, message: 'upstream refused' } })
    const second = s.request('tools/call', { name: 'relayed', arguments: {} })
    await until(() => s.started.length === 2)
    s.started[1]!.reject(new Error('the upstream went away'))
    expect((await second) as unknown).toMatchObject({
      result: { isError: true, content: [{ type: 'text', text: 'the upstream went away' }] },
    })
  })
})
