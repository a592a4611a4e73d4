/**
 * 2026 `subscriptions/listen`: several listens open at once on one client each get their own acknowledgement and
 * notifications; follow() opens its stream again when it ends, never after a refusal or stop().
 */
import { describe, expect, test } from 'bun:test'
import { type TransportFactory, connect } from '../../../lib/client/index.ts'
import { RPC } from '../../../lib/errors/index.ts'
import { Engine, defineResource, defineServer, serveHttp } from '../../../lib/server/index.ts'
import { type JsonRpcMessage, type JsonRpcRequest, META, isRequest, makeResult } from '../../../lib/wire/index.ts'
import { testSettings } from '../../harness.ts'
import { type Responder, ScriptedTransport, fail, ok } from './scripted-transport.ts'

describe('McpClient.listen', () => {
  test('concurrent listens are told apart by their own request ids', async () => {
    const settings = testSettings()
    const engine = new Engine(
      defineServer({
        info: { name: 'listen-peer', version: '1.0.0' },
        resources: [defineResource({ uri: 'note://a', name: 'a', read: () => ({ contents: [{ uri: 'note://a', text: 'A' }] }) })],
        tools: [{ name: 'noop', handler: () => ({ content: [] }) }],
      }),
      settings,
    )
    await using server = serveHttp(engine, settings)
    await using client = await connect({ url: server.url }, { settings, revision: '2026-07-28' })
    const heard: Record<string, string[]> = { tools: [], resources: [] }
    // Opened together, so both acknowledgements can arrive before either listen saw its own.
    const tools = client.listen({ toolsListChanged: true }, (method) => heard.tools!.push(method))
    const resources = client.listen({ resourceSubscriptions: ['note://a'] }, (method) => heard.resources!.push(method))
    expect(await Promise.all([tools.acknowledged, resources.acknowledged])).toEqual([
      { toolsListChanged: true },
      { resourceSubscriptions: ['note://a'] },
    ])
    engine.notify.resourceUpdated('note://a')
    engine.notify.toolsListChanged()
    while (heard.tools!.length === 0 || heard.resources!.length === 0) await Bun.sleep(5)
    expect(heard).toEqual({ tools: ['notifications/tools/list_changed'], resources: ['notifications/resources/updated'] })
    tools.close()
    resources.close()
  })
})

/** A modern stdio peer whose subscriptions/listen answers are scripted per listen (1st, 2nd, …). */
function followingPeer(listens: ((request: JsonRpcRequest) => JsonRpcMessage[])[]) {
  let made: ScriptedTransport | undefined
  const respond: Responder = (m) => {
    if (!isRequest(m)) return
    if (m.method === 'server/discover')
      return ok(m, {
        resultType: 'complete',
        supportedVersions: ['2026-07-28'],
        capabilities: { tools: { listChanged: true } },
        _meta: { [META.SERVER_INFO]: { name: 'following', version: '1' } },
      })
    if (m.method === 'subscriptions/listen') return listens[made!.requests('subscriptions/listen').length - 1]?.(m) ?? []
    return ok(m, {})
  }
  const transports: TransportFactory = {
    stdio: () => (made = new ScriptedTransport('stdio', respond)),
    http: () => {
      throw new Error('stdio only')
    },
  }
  return { transports, listens: () => made!.requests('subscriptions/listen').length }
}

const acknowledge = (request: JsonRpcRequest): JsonRpcMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/subscriptions/acknowledged',
  params: { notifications: { toolsListChanged: true }, _meta: { [META.SUBSCRIPTION_ID]: request.id } },
})
const closing = (request: JsonRpcRequest): JsonRpcMessage =>
  makeResult(request.id, { resultType: 'complete', _meta: { [META.SUBSCRIPTION_ID]: request.id } })

describe('McpClient.follow on a 2026 server', () => {
  const settings = testSettings({ listenReopenMs: 5, listenReopenMaxMs: 1_000 })

  test('a listen stream that ends is opened again, and the lists count as changed once it is acknowledged', async () => {
    const peer = followingPeer([(m) => [acknowledge(m), closing(m)], (m) => [acknowledge(m)]])
    await using client = await connect({ command: 'srv' }, { settings, transports: peer.transports, revision: '2026-07-28' })
    const heard: string[] = []
    const following = client.follow({ toolsListChanged: true }, (method) => heard.push(method))
    await following.ready
    while (heard.length === 0) await Bun.sleep(5)
    expect(heard).toEqual(['notifications/tools/list_changed'])
    expect(peer.listens()).toBe(2)
    following.stop()
  })

  test('a refused listen is final: it is not asked again', async () => {
    const peer = followingPeer([(m) => fail(m, RPC.METHOD_NOT_FOUND, 'Method not found')])
    await using client = await connect({ command: 'srv' }, { settings, transports: peer.transports, revision: '2026-07-28' })
    const heard: string[] = []
    const following = client.follow({ toolsListChanged: true }, (method) => heard.push(method))
    await following.ready
    await Bun.sleep(100)
    expect(peer.listens()).toBe(1)
    expect(heard).toEqual([])
    following.stop()
  })

  test('stop() ends the following: the stream it cancels is not opened again', async () => {
    const peer = followingPeer([(m) => [acknowledge(m)]])
    await using client = await connect({ command: 'srv' }, { settings, transports: peer.transports, revision: '2026-07-28' })
    const following = client.follow({ toolsListChanged: true }, () => {})
    await following.ready
    following.stop()
    await Bun.sleep(100)
    expect(peer.listens()).toBe(1)
  })
})
