/** 2026 `subscriptions/listen`: several listens open at once on one client each get their own acknowledgement and notifications. */
import { describe, expect, test } from 'bun:test'
import { connect } from '../../../lib/client/index.ts'
import { Engine, defineResource, defineServer, serveHttp } from '../../../lib/server/index.ts'
import { testSettings } from '../../harness.ts'

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
