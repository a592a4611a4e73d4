/** lib/session/peer.ts: request/response correlation, cancellation and deadlines on one connection. */
import { describe, expect, test } from 'bun:test'
import { McpxError, RPC, RpcError } from '../../../lib/errors/index.ts'
import { Peer, type ProgressUpdate } from '../../../lib/session/index.ts'
import { isRequest } from '../../../lib/wire/index.ts'
import { memoryPair } from './memory-transport.ts'

async function pair(options: { timeoutMs?: number } = {}) {
  const [a, b] = memoryPair()
  const client = new Peer(a, {
    requestTimeoutMs: options.timeoutMs ?? 10_000,
    headersFor: (m) => ({ 'X-Method': 'method' in m ? m.method : 'response' }),
  })
  const server = new Peer(b, { requestTimeoutMs: 10_000 })
  await client.start()
  await server.start()
  return { a, b, client, server }
}

describe('Peer', () => {
  test('correlates responses to requests and allocates distinct ids', async () => {
    const { a, client, server } = await pair()
    server.handle('echo', (params) => ({ echoed: params.value }))
    const results = await Promise.all([1, 2, 3].map((value) => client.request('echo', { value })))
    expect(results.map((r) => r.echoed)).toEqual([1, 2, 3])
    const ids = a.sent
      .map((s) => s.message)
      .filter(isRequest)
      .map((m) => m.id)
    expect(new Set(ids).size).toBe(3)
    expect(a.sent[0]?.options?.headers).toEqual({ 'X-Method': 'echo' })
  })

  test('an unknown method is answered -32601 and a handler error keeps its JSON-RPC code', async () => {
    const { client, server } = await pair()
    server.handle('bad', () => {
      throw new RpcError(RPC.INVALID_PARAMS, 'no such thing', { uri: 'x' })
    })
    const unknown = await client.request('nope', {}).catch((e) => e)
    expect(unknown).toBeInstanceOf(RpcError)
    expect(unknown.rpcCode).toBe(RPC.METHOD_NOT_FOUND)
    const bad = await client.request('bad', {}).catch((e) => e)
    expect(bad.rpcCode).toBe(RPC.INVALID_PARAMS)
    expect(bad.rpcData).toEqual({ uri: 'x' })
  })

  test('a deadline is a local TIMEOUT error and sends notifications/cancelled', async () => {
    const { client, server } = await pair({ timeoutMs: 30 })
    const cancelled = new Promise<Record<string, unknown>>((resolve) => server.on('notifications/cancelled', resolve))
    let handlerSignal: AbortSignal | undefined
    server.handle('hang', (_params, context) => {
      handlerSignal = context.signal
      return new Promise(() => {})
    })
    const error = await client.request('hang', {}).catch((e) => e)
    expect(error).toBeInstanceOf(McpxError)
    expect(error.code).toBe('TIMEOUT')
    expect(error).not.toBeInstanceOf(RpcError)
    const note = await cancelled
    expect(note.requestId).toBe(1)
    expect(handlerSignal?.aborted).toBe(true)
  })

  test("abort mode aborts the request's own stream instead of notifying", async () => {
    const { a, client, server } = await pair()
    server.handle('hang', () => new Promise(() => {}))
    let notified = false
    server.on('notifications/cancelled', () => (notified = true))
    const controller = new AbortController()
    const pending = client.request('hang', {}, { signal: controller.signal, cancel: 'abort' }).catch((e) => e)
    controller.abort()
    const error = await pending
    expect(error.code).toBe('CANCELLED')
    expect(a.sent[0]?.options?.signal?.aborted).toBe(true)
    expect(notified).toBe(false)
    expect(a.sent.some((s) => 'method' in s.message && s.message.method === 'notifications/cancelled')).toBe(false)
  })

  test('progress notifications reach the request that asked for them, by token', async () => {
    const { client, server } = await pair()
    server.handle('work', async (params) => {
      const token = (params._meta as Record<string, unknown>).progressToken as number
      for (const progress of [1, 2, 3]) await server.notify('notifications/progress', { progressToken: token, progress, total: 3 })
      await server.notify('notifications/progress', { progressToken: 999, progress: 1 })
      return { done: true }
    })
    const updates: ProgressUpdate[] = []
    const result = await client.request('work', { x: 1 }, { onProgress: (u) => updates.push(u) })
    expect(result.done).toBe(true)
    expect(updates.map((u) => u.progress)).toEqual([1, 2, 3])
  })

  test('an unexpected transport close fails every pending request with the close reason, saying it may or may not have run (never re-sent)', async () => {
    const { a, client, server } = await pair()
    let received = 0
    server.handle('hang', () => (received++, new Promise(() => {})))
    server.handle('tools/list', () => (received++, new Promise(() => {})))
    server.handle('initialize', () => new Promise(() => {}))
    const pending = [client.request('hang', {}).catch((e) => e), client.request('hang', {}).catch((e) => e)]
    const read = client.request('tools/list', {}).catch((e) => e)
    // A handshake lost this way says only that the server went away first: it has no outcome to doubt.
    const opening = client.request('initialize', {}).catch((e) => e)
    await Bun.sleep(10)
    const reason = new McpxError('CONNECT', 'server exited with code 3')
    a.sever(reason)
    for (const error of await Promise.all(pending)) {
      expect(error).toBeInstanceOf(McpxError)
      expect(error.code).toBe('CONNECT')
      expect(error.message).toContain(
        'while hang was in flight: it may or may not have run; it was not re-sent (server exited with code 3)',
      )
      expect(error.data).toMatchObject({ method: 'hang', inFlight: true })
      expect(error.cause).toBe(reason)
    }
    expect((await read).message).toContain('while tools/list was in flight: it was not answered')
    expect(received).toBe(3)
    expect((await opening).message).toBe('initialize got no answer: server exited with code 3')
    expect((await opening).data).toMatchObject({ method: 'initialize', inFlight: true })
    expect(client.closed).toBe(true)
    expect(await client.request('x', {}).catch((e) => e)).toBe(reason)
  })

  test('notifications reach method listeners and wildcard listeners; unsubscribe works', async () => {
    const { client, server } = await pair()
    const seen: string[] = []
    const off = client.on('notifications/tools/list_changed', () => seen.push('tools'))
    client.on('*', (_p, n) => seen.push(`*${n.method}`))
    server.handle('poke', async () => {
      await server.notify('notifications/tools/list_changed')
      return {}
    })
    await client.request('poke', {})
    off()
    await client.request('poke', {})
    expect(seen).toEqual(['tools', '*notifications/tools/list_changed', '*notifications/tools/list_changed'])
  })
})

describe('Peer deadlines while answering the other side', () => {
  test('time spent answering an incoming request does not count against our pending deadline', async () => {
    const { client, server } = await pair({ timeoutMs: 200 })
    // A slow "person" answering: longer than the client's whole deadline.
    client.handle('elicitation/create', async () => {
      await new Promise((resolve) => setTimeout(resolve, 400))
      return { action: 'accept' }
    })
    server.handle('tools/call', async () => {
      await server.request('elicitation/create', {})
      return { content: [] }
    })
    const result = await client.request('tools/call', {})
    expect(result).toEqual({ content: [] })
  })

  test('requestTo: the outcome goes to the receiver, and cancel() by id fails it and tells the peer', async () => {
    const { client, server } = await pair()
    server.handle('echo', (params) => ({ echoed: params.value }))
    let release!: () => void
    server.handle('hold', () => new Promise((resolve) => (release = () => resolve({}))))
    const outcome = () => {
      const got: { answered?: Record<string, unknown>; failed?: McpxError } = {}
      let done!: () => void
      const settled = new Promise<void>((resolve) => (done = resolve))
      const receiver = {
        answered: (result: Record<string, unknown>) => ((got.answered = result), done()),
        failed: (error: McpxError) => ((got.failed = error), done()),
      }
      return { got, settled, receiver }
    }
    const echoed = outcome()
    client.requestTo('echo', { value: 7 }, echoed.receiver)
    await echoed.settled
    expect(echoed.got).toEqual({ answered: { echoed: 7 } })

    const held = outcome()
    const cancelled = new Promise<Record<string, unknown>>((resolve) => server.on('notifications/cancelled', resolve))
    const id = client.requestTo('hold', {}, held.receiver)
    client.cancel(id, new McpxError('CANCELLED', 'the host gave up'))
    await held.settled
    expect(held.got.failed?.message).toBe('the host gave up')
    expect((await cancelled).requestId).toBe(id)
    release()
    // A late answer to a cancelled request goes nowhere; cancelling a settled one does nothing.
    client.cancel(id)
    expect(client.pendingCount).toBe(0)
  })
})
