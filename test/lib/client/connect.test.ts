/** lib/client/connect.ts over scripted transports: era negotiation (stdio, HTTP) and input_required rounds. */
import { beforeEach, describe, expect, test } from 'bun:test'
import { type TransportFactory, clearVerdictMemory, connect, verdictKey, writeVerdict } from '../../../lib/client/index.ts'
import { McpxError, RPC } from '../../../lib/errors/index.ts'
import { META, isRequest, makeRequest } from '../../../lib/wire/index.ts'
import { tempDir, testSettings } from '../../harness.ts'
import { type Responder, ScriptedTransport, fail, ok } from './scripted-transport.ts'

const settings = testSettings({ probeTimeoutMs: 50 })

function factory(respond: Responder, sseRespond?: Responder) {
  const made: ScriptedTransport[] = []
  const transports: TransportFactory = {
    stdio: () => {
      const t = new ScriptedTransport('stdio', respond)
      made.push(t)
      return t
    },
    http: (kind) => {
      const t = new ScriptedTransport(kind, kind === 'http+sse' ? (sseRespond ?? respond) : respond)
      made.push(t)
      return t
    },
  }
  return { transports, made }
}

const legacyServer: Responder = (m) => {
  if (!isRequest(m)) return
  if (m.method === 'server/discover') return fail(m, RPC.METHOD_NOT_FOUND, 'Method not found')
  if (m.method === 'initialize')
    return ok(m, { protocolVersion: m.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'legacy', version: '1' } })
  if (m.method === 'tools/list') return ok(m, { tools: [{ name: 'a', inputSchema: { type: 'object' } }] })
  return ok(m, {})
}

const discoverResult = {
  resultType: 'complete',
  supportedVersions: ['2026-07-28'],
  capabilities: { tools: {} },
  _meta: { [META.SERVER_INFO]: { name: 'modern', version: '2' } },
  ttlMs: 0,
  cacheScope: 'public',
}

beforeEach(() => clearVerdictMemory())

describe('era negotiation over stdio', () => {
  test('a non-modern error to server/discover falls back to initialize, then the verdict skips the probe', async () => {
    const { transports, made } = factory(legacyServer)
    const client = await connect({ command: 'srv' }, { settings, transports })
    expect([client.era, client.revision, client.transport]).toEqual(['legacy', '2025-11-25', 'stdio'])
    expect(client.server.serverInfo?.name).toBe('legacy')
    expect(made[0]!.requests().map((r) => r.method)).toEqual(['server/discover', 'initialize'])
    expect(made[0]!.sent.some((s) => 'method' in s.message && s.message.method === 'notifications/initialized')).toBe(true)
    await client.close()

    const again = await connect({ command: 'srv' }, { settings, transports })
    expect(made[1]!.requests().map((r) => r.method)).toEqual(['initialize'])
    await again.close()
  })

  test('silence within probeTimeoutMs means legacy; the verdict persists in the cache dir', async () => {
    using dir = tempDir('verdicts')
    const silent: Responder = (m, options, t) => (isRequest(m) && m.method === 'server/discover' ? undefined : legacyServer(m, options, t))
    const { transports, made } = factory(silent)
    const client = await connect({ command: 'quiet' }, { settings, transports, cacheDir: dir.path })
    expect(client.era).toBe('legacy')
    await client.close()
    clearVerdictMemory()
    const again = await connect({ command: 'quiet' }, { settings, transports, cacheDir: dir.path })
    expect(made[1]!.requests().map((r) => r.method)).toEqual(['initialize'])
    await again.close()
  })

  test('a DiscoverResult means modern: no initialize, every request carries _meta', async () => {
    const modern: Responder = (m) => {
      if (!isRequest(m)) return
      if (m.method === 'server/discover') return ok(m, discoverResult)
      return ok(m, { resultType: 'complete', tools: [] })
    }
    const { transports, made } = factory(modern)
    const client = await connect({ command: 'new' }, { settings, transports, handlers: { onElicit: () => ({ action: 'decline' }) } })
    expect([client.era, client.revision]).toEqual(['modern', '2026-07-28'])
    expect(client.server.serverInfo?.name).toBe('modern')
    await client.listAllTools()
    const list = made[0]!.requests('tools/list')[0]!
    const meta = list.params?._meta as Record<string, unknown>
    expect(meta[META.PROTOCOL_VERSION]).toBe('2026-07-28')
    expect(meta[META.CLIENT_CAPABILITIES]).toEqual({ elicitation: { form: {} } })
    expect((meta[META.CLIENT_INFO] as { name: string }).name).toBe('mcpx')
    expect(made[0]!.requests('initialize')).toHaveLength(0)
    await client.close()
  })

  test('a pinned legacy revision refuses a counter-offer', async () => {
    const counter: Responder = (m) =>
      isRequest(m) && m.method === 'initialize'
        ? ok(m, { protocolVersion: '2025-03-26', capabilities: {}, serverInfo: { name: 'x', version: '1' } })
        : undefined
    const { transports } = factory(counter)
    const error = await connect({ command: 'pin' }, { settings, transports, revision: '2025-11-25' }).catch((e) => e)
    expect(error).toBeInstanceOf(McpxError)
    expect(error.code).toBe('ERA')
  })
})

describe('era negotiation over HTTP', () => {
  const status = (httpStatus: number, extra: Record<string, unknown> = {}) =>
    new McpxError('CONNECT', `HTTP ${httpStatus}`, { httpStatus, contentType: 'text/plain', body: 'no', sessionExpired: false, ...extra })

  test('400 to the modern probe → legacy initialize; MCP-Protocol-Version on every later request, none on initialize', async () => {
    const server: Responder = (m, o, t) => {
      if (isRequest(m) && m.method === 'server/discover') throw status(400)
      return legacyServer(m, o, t)
    }
    const { transports, made } = factory(server)
    const client = await connect({ url: 'http://example.test/mcp' }, { settings, transports })
    expect([client.era, client.transport]).toEqual(['legacy', 'streamable-http'])
    await client.listAllTools()
    const byMethod = Object.fromEntries(made[0]!.sent.map((s) => ['method' in s.message ? s.message.method : 'response', s.headers]))
    expect(byMethod.initialize?.['MCP-Protocol-Version']).toBeUndefined()
    expect(byMethod['notifications/initialized']?.['MCP-Protocol-Version']).toBe('2025-11-25')
    expect(byMethod['tools/list']?.['MCP-Protocol-Version']).toBe('2025-11-25')
    await client.close()
  })

  test('405 to both POSTs → HTTP+SSE', async () => {
    const { transports, made } = factory((m) => {
      if (isRequest(m)) throw status(405)
    }, legacyServer)
    const client = await connect({ url: 'http://example.test/sse' }, { settings, transports })
    expect([client.era, client.transport]).toEqual(['legacy', 'http+sse'])
    expect(made.map((t) => t.kind)).toEqual(['streamable-http', 'http+sse'])
    await client.close()
  })

  test('a URL that answers 404 to the POST and to the GET is "not an MCP endpoint", naming both answers', async () => {
    // A real server on port 0 (a web framework's 404 page for every path), reached by the real transports.
    using server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: (request) =>
        new Response(`<!DOCTYPE html><html><body><pre>Cannot ${request.method} /sse</pre></body></html>`, {
          status: 404,
          headers: { 'content-type': 'text/html' },
        }),
    })
    const url = `http://127.0.0.1:${server.port}/sse`
    const error = (await connect({ url }, { settings, noCache: true }).catch((e: unknown) => e)) as McpxError
    expect(error.code).toBe('CONNECT')
    expect(error.message).toBe(
      `${url} is not an MCP endpoint: a POST (Streamable HTTP) answered HTTP 404, a GET (HTTP+SSE) HTTP 404: Cannot GET /sse`,
    )
    expect(error.data).toMatchObject({ httpStatus: 404, postHttpStatus: 404, url })
  })

  test('401 is an AUTH error naming the protected-resource metadata', async () => {
    const { transports } = factory(() => {
      throw status(401, { wwwAuthenticate: 'Bearer resource_metadata="http://example.test/.well-known/oauth-protected-resource/mcp"' })
    })
    const error = await connect({ url: 'http://example.test/mcp' }, { settings, transports }).catch((e) => e)
    expect(error.code).toBe('AUTH')
    expect(error.data.resourceMetadata).toBe('http://example.test/.well-known/oauth-protected-resource/mcp')
  })

  test('a recognised modern error (-32022) is retried under a supported version, never a fallback', async () => {
    let first = true
    const { transports, made } = factory((m) => {
      if (!isRequest(m)) return
      if (first) {
        first = false
        return fail(m, RPC.UNSUPPORTED_PROTOCOL_VERSION, 'Unsupported protocol version', {
          supported: ['2026-07-28'],
          requested: '2026-07-28',
        })
      }
      return m.method === 'server/discover' ? ok(m, discoverResult) : ok(m, { tools: [] })
    })
    const client = await connect({ url: 'http://example.test/mcp' }, { settings, transports })
    expect(client.era).toBe('modern')
    expect(made[0]!.requests().map((r) => r.method)).toEqual(['server/discover', 'server/discover'])
    const ids = made[0]!.requests().map((r) => r.id)
    expect(ids[0]).not.toBe(ids[1])
    await client.close()
  })

  test('modern HTTP: Mcp-Method/Mcp-Name/Mcp-Param-* headers, invalid x-mcp-header tools dropped with a warning', async () => {
    const tools = [
      {
        name: 'good',
        inputSchema: {
          type: 'object',
          properties: {
            region: { type: 'string', 'x-mcp-header': 'Region' },
            n: { type: 'integer', 'x-mcp-header': 'N' },
            q: { type: 'string' },
          },
        },
      },
      { name: 'bad', inputSchema: { type: 'object', properties: { score: { type: 'number', 'x-mcp-header': 'Score' } } } },
      {
        name: 'nested-bad',
        inputSchema: { type: 'object', properties: { list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } } },
      },
    ]
    const { transports, made } = factory((m) => {
      if (!isRequest(m)) return
      if (m.method === 'server/discover') return ok(m, discoverResult)
      if (m.method === 'tools/list') return ok(m, { resultType: 'complete', tools })
      return ok(m, { resultType: 'complete', content: [] })
    })
    const warnings: string[] = []
    const client = await connect({ url: 'http://example.test/mcp' }, { settings, transports, onWarning: (w) => warnings.push(w) })
    expect((await client.listAllTools()).map((t) => t.name)).toEqual(['good'])
    expect(warnings.join('\n')).toContain('"bad"')
    expect(warnings.join('\n')).toContain('"nested-bad"')
    await client.callTool('good', { region: 'Hello, 世界', n: 7, q: 'x' })
    const call = made[0]!.sent.find((s) => 'method' in s.message && s.message.method === 'tools/call')!
    expect(call.headers['MCP-Protocol-Version']).toBe('2026-07-28')
    expect(call.headers['Mcp-Method']).toBe('tools/call')
    expect(call.headers['Mcp-Name']).toBe('good')
    expect(call.headers['Mcp-Param-Region']).toBe(`=?base64?${Buffer.from('Hello, 世界').toString('base64')}?=`)
    expect(call.headers['Mcp-Param-N']).toBe('7')
    expect(Object.keys(call.headers).some((h) => h.toLowerCase() === 'mcp-param-q')).toBe(false)
    expect(Object.keys(call.headers).some((h) => h.toLowerCase() === 'mcp-session-id')).toBe(false)
    await client.close()
  })
})

describe('input_required rounds (2026 MRTR)', () => {
  test('answers through the handler, echoes requestState exactly, new id per round, nothing leaks to other calls', async () => {
    const state = '{"opaque": "state ✓"}'
    const { transports, made } = factory((m) => {
      if (!isRequest(m)) return
      if (m.method === 'server/discover') return ok(m, discoverResult)
      const p = m.params ?? {}
      if (p.name === 'ask' && !p.inputResponses) {
        return ok(m, {
          resultType: 'input_required',
          requestState: state,
          inputRequests: { who: { method: 'elicitation/create', params: { message: 'name?', requestedSchema: { type: 'object' } } } },
        })
      }
      return ok(m, { resultType: 'complete', content: [{ type: 'text', text: JSON.stringify(p.inputResponses ?? null) }] })
    })
    const asked: unknown[] = []
    const client = await connect(
      { command: 'mrtr' },
      {
        settings,
        transports,
        handlers: {
          onElicit: (params, ctx) => (asked.push([params.message, ctx.via, ctx.key]), { action: 'accept', content: { name: 'Ada' } }),
        },
      },
    )
    const result = await client.callTool('ask', { x: 1 })
    expect(asked).toEqual([['name?', 'input_required', 'who']])
    expect(JSON.stringify(result.content)).toContain('Ada')
    const calls = made[0]!.requests('tools/call')
    expect(calls).toHaveLength(2)
    expect(calls[0]!.id).not.toBe(calls[1]!.id)
    expect(calls[1]!.params?.requestState).toBe(state)
    expect(calls[1]!.params?.arguments).toEqual({ x: 1 })
    await client.callTool('other', {})
    const other = made[0]!.requests('tools/call')[2]!
    expect(other.params?.requestState).toBeUndefined()
    expect(other.params?.inputResponses).toBeUndefined()
    await client.close()
  })

  test('rounds are bounded by maxInputRounds', async () => {
    const { transports } = factory((m) => {
      if (!isRequest(m)) return
      if (m.method === 'server/discover') return ok(m, discoverResult)
      return ok(m, { resultType: 'input_required', requestState: 'again' })
    })
    const client = await connect({ command: 'loop' }, { settings: testSettings({ probeTimeoutMs: 50, maxInputRounds: 3 }), transports })
    const error = await client.callTool('forever').catch((e) => e)
    expect(error.code).toBe('PROTOCOL')
    await client.close()
  })

  test('a legacy server request goes to the same handler', async () => {
    const { transports, made } = factory(legacyServer)
    const client = await connect(
      { command: 'ask' },
      {
        settings,
        transports,
        handlers: { onElicit: (_p, ctx) => ({ action: ctx.via === 'request' ? 'accept' : 'decline', content: { ok: true } }) },
      },
    )
    made[0]!.push(makeRequest('s1', 'elicitation/create', { message: 'ok?', requestedSchema: { type: 'object' } }))
    await client.ping()
    const reply = made[0]!.sent.find((s) => 'id' in s.message && s.message.id === 's1' && 'result' in s.message)
    expect(reply?.message).toMatchObject({ result: { action: 'accept', content: { ok: true } } })
    await client.close()
  })
})

describe('resultType the client does not recognise (2026-07-28 basic/index.mdx "ResultType")', () => {
  // "A resultType of any value unrecognized by the client MUST be considered invalid"; extension
  // values count only when the server advertises that extension in its capabilities.
  const serverAnswering = (resultType: string, capabilities: Record<string, unknown> = { tools: {} }) =>
    factory((m) => {
      if (!isRequest(m)) return
      if (m.method === 'server/discover') return ok(m, { ...discoverResult, capabilities })
      return ok(m, { resultType, content: [] })
    })

  test('an unknown value is a PROTOCOL error naming it', async () => {
    const client = await connect({ command: 'odd' }, { settings, transports: serverAnswering('partial').transports })
    const error = await client.callTool('x').catch((e) => e)
    expect([error.code, error.data?.resultType]).toEqual(['PROTOCOL', 'partial'])
    await client.close()
  })

  test('"task" only when the server advertises the tasks extension', async () => {
    const bare = await connect({ command: 'task-unadvertised' }, { settings, transports: serverAnswering('task').transports })
    expect((await bare.request('tasks/get', { taskId: 't' }).catch((e) => e)).code).toBe('PROTOCOL')
    await bare.close()
    const advertised = await connect(
      { command: 'task-advertised' },
      { settings, transports: serverAnswering('task', { tools: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } }).transports },
    )
    expect((await advertised.request('tasks/get', { taskId: 't' })).resultType).toBe('task')
    await advertised.close()
  })
})

describe('legacy HTTP session expiry (TR-29)', () => {
  test('concurrent 404s share ONE re-initialize and each request is retried once', async () => {
    let expired = 2
    const { transports, made } = factory((m, o, t) => {
      if (isRequest(m) && m.method === 'server/discover') throw new McpxError('CONNECT', 'HTTP 400', { httpStatus: 400 })
      if (isRequest(m) && m.method === 'tools/list' && expired > 0) {
        expired--
        throw new McpxError('CONNECT', 'HTTP 404: session expired', { httpStatus: 404, sessionExpired: true })
      }
      return legacyServer(m, o, t)
    })
    const client = await connect({ url: 'http://example.test/mcp' }, { settings, transports })
    const [a, b] = await Promise.all([client.listAllTools(), client.listAllTools()])
    expect(a).toHaveLength(1)
    expect(b).toHaveLength(1)
    expect(made[0]!.requests('initialize')).toHaveLength(2)
    expect(made[0]!.resets).toBe(1)
    await client.close()
  })

  test('a second 404 after re-initialize surfaces as an error', async () => {
    const { transports } = factory((m, o, t) => {
      if (isRequest(m) && m.method === 'server/discover') throw new McpxError('CONNECT', 'HTTP 400', { httpStatus: 400 })
      if (isRequest(m) && m.method === 'tools/list') throw new McpxError('CONNECT', 'HTTP 404', { httpStatus: 404, sessionExpired: true })
      return legacyServer(m, o, t)
    })
    const client = await connect({ url: 'http://example.test/mcp' }, { settings, transports })
    const error = await client.listAllTools().catch((e) => e)
    expect(error.data.sessionExpired).toBe(true)
    await client.close()
  })
})

describe('subscriptions/listen (2026)', () => {
  test('routes notifications by subscriptionId, acknowledges the honoured filter, and closing aborts the stream', async () => {
    let listenId: unknown
    const { transports, made } = factory((m, _o, t) => {
      if (!isRequest(m)) return
      if (m.method === 'server/discover') return ok(m, discoverResult)
      if (m.method === 'subscriptions/listen') {
        listenId = m.id
        queueMicrotask(() => {
          t.push({
            jsonrpc: '2.0',
            method: 'notifications/subscriptions/acknowledged',
            params: { notifications: { toolsListChanged: true }, _meta: { [META.SUBSCRIPTION_ID]: m.id } },
          })
          t.push({
            jsonrpc: '2.0',
            method: 'notifications/tools/list_changed',
            params: { _meta: { [META.SUBSCRIPTION_ID]: 'someone-else' } },
          })
          t.push({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [META.SUBSCRIPTION_ID]: m.id } } })
        })
      }
    })
    const client = await connect({ url: 'http://example.test/mcp' }, { settings, transports })
    const seen: string[] = []
    const subscription = client.listen({ toolsListChanged: true, promptsListChanged: true }, (method) => seen.push(method))
    expect(await subscription.acknowledged).toEqual({ toolsListChanged: true })
    await Promise.resolve()
    expect(seen).toEqual(['notifications/tools/list_changed'])
    subscription.close()
    expect((await subscription.done.catch((e) => e)).code).toBe('CANCELLED')
    const listen = made[0]!.requests('subscriptions/listen')[0]!
    expect(listen.id).toBe(listenId as number)
    expect(listen.params?.notifications).toEqual({ toolsListChanged: true, promptsListChanged: true })
    await client.close()
  })
})

describe('verdict cache', () => {
  test('a cached HTTP+SSE verdict goes straight to HTTP+SSE', async () => {
    const { transports, made } = factory(() => {
      throw new Error('streamable HTTP must not be tried')
    }, legacyServer)
    const first = await connect(
      { url: 'http://example.test/old' },
      {
        settings,
        transports: factory((m) => {
          if (isRequest(m)) throw new McpxError('CONNECT', 'HTTP 405', { httpStatus: 405 })
        }, legacyServer).transports,
      },
    )
    expect(first.transport).toBe('http+sse')
    await first.close()
    const client = await connect({ url: 'http://example.test/old' }, { settings, transports })
    expect(client.transport).toBe('http+sse')
    expect(made.map((t) => t.kind)).toEqual(['http+sse'])
    await client.close()
  })

  test('a cached legacy verdict that no longer holds is re-probed (HTTP)', async () => {
    const modern: Responder = (m) => {
      if (!isRequest(m)) return
      if (m.method === 'initialize') throw new McpxError('CONNECT', 'HTTP 404', { httpStatus: 404 })
      if (m.method === 'server/discover') return ok(m, discoverResult)
    }
    using dir = tempDir('stale')
    writeVerdict(
      verdictKey({ url: 'http://example.test/mcp' }),
      { era: 'legacy', transport: 'streamable-http', revision: '2025-11-25' },
      dir.path,
    )
    const { transports, made } = factory(modern)
    const client = await connect({ url: 'http://example.test/mcp' }, { settings, transports, cacheDir: dir.path })
    expect(client.era).toBe('modern')
    expect(made[0]!.requests().map((r) => r.method)).toEqual(['initialize', 'server/discover'])
    await client.close()
  })
})

describe('header mismatch (-32020)', () => {
  test('tools/call re-lists tools and retries once with the current x-mcp-header mirrors', async () => {
    let schemaVersion = 1
    const { transports, made } = factory((m) => {
      if (!isRequest(m)) return
      if (m.method === 'server/discover') return ok(m, discoverResult)
      if (m.method === 'tools/list') {
        const header = schemaVersion === 1 ? 'Old' : 'Region'
        return ok(m, {
          tools: [{ name: 't', inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': header } } } }],
        })
      }
      if (m.method === 'tools/call') {
        const sent = made[0]!.sent.at(-1)!.headers
        if (!sent['Mcp-Param-Region']) {
          schemaVersion = 2
          return fail(m, RPC.HEADER_MISMATCH, 'Header mismatch: Mcp-Param-Region missing')
        }
        return ok(m, { content: [{ type: 'text', text: 'ok' }] })
      }
    })
    const client = await connect({ url: 'http://example.test/mcp' }, { settings, transports })
    await client.listAllTools()
    const result = await client.callTool('t', { region: 'eu' })
    expect(result.content).toEqual([{ type: 'text', text: 'ok' }])
    expect(made[0]!.requests().map((r) => r.method)).toEqual(['server/discover', 'tools/list', 'tools/call', 'tools/list', 'tools/call'])
    await client.close()
  })
})

describe('a legacy stdio server that exits on the modern probe', () => {
  test('is started again and initialized', async () => {
    let spawned = 0
    const transports: TransportFactory = {
      stdio: () => {
        spawned++
        const first = spawned === 1
        return new ScriptedTransport('stdio', (m, o, t) => {
          if (first && isRequest(m) && m.method === 'server/discover') {
            queueMicrotask(() => t.handlers?.onClose(new McpxError('CONNECT', 'server exited with code 1')))
            return
          }
          return legacyServer(m, o, t)
        })
      },
      http: () => {
        throw new Error('no http here')
      },
    }
    const client = await connect({ command: 'picky' }, { settings, transports })
    expect([client.era, spawned]).toEqual(['legacy', 2])
    expect(client.timings.map((t) => t.step)).toContain('initialize (restarted)')
    await client.close()
  })

  test('a command that cannot stay up at all is a CONNECT error', async () => {
    const transports: TransportFactory = {
      stdio: () =>
        new ScriptedTransport(
          'stdio',
          (_m, _o, t) => void queueMicrotask(() => t.handlers?.onClose(new McpxError('CONNECT', 'server exited with code 7'))),
        ),
      http: () => {
        throw new Error('no http here')
      },
    }
    const error = await connect({ command: 'dead' }, { settings, transports }).catch((e) => e)
    expect(error.code).toBe('CONNECT')
    expect(error.message).toContain('exited with code 7')
  })
})

describe('legacy version negotiation', () => {
  test('an error naming data.supported gets one more initialize with the newest shared revision', async () => {
    const { transports, made } = factory((m, o, t) => {
      if (isRequest(m) && m.method === 'initialize' && m.params?.protocolVersion !== '2025-03-26') {
        return fail(m, RPC.INVALID_PARAMS, 'Unsupported protocol version', {
          supported: ['2024-11-05', '2025-03-26'],
          requested: m.params?.protocolVersion,
        })
      }
      return legacyServer(m, o, t)
    })
    const client = await connect({ command: 'old' }, { settings, transports })
    expect([client.era, client.revision]).toEqual(['legacy', '2025-03-26'])
    expect(made[0]!.requests('initialize').map((r) => r.params?.protocolVersion)).toEqual(['2025-11-25', '2025-03-26'])
    await client.close()
  })

  test('a counter-offer of any legacy revision is accepted', async () => {
    const { transports } = factory((m, o, t) =>
      isRequest(m) && m.method === 'initialize'
        ? ok(m, { protocolVersion: '2024-11-05', capabilities: {}, serverInfo: { name: 'x', version: '1' } })
        : legacyServer(m, o, t),
    )
    const client = await connect({ command: 'older' }, { settings, transports })
    expect(client.revision).toBe('2024-11-05')
    await client.close()
  })

  test('a JSON-RPC error to initialize over HTTP is reported, not mistaken for HTTP+SSE', async () => {
    const { transports, made } = factory((m) => {
      if (!isRequest(m)) return
      if (m.method === 'server/discover') throw new McpxError('CONNECT', 'HTTP 400', { httpStatus: 400 })
      return fail(m, RPC.INTERNAL_ERROR, 'database down')
    })
    const error = await connect({ url: 'http://example.test/mcp' }, { settings, transports }).catch((e) => e)
    expect(error.rpcCode).toBe(RPC.INTERNAL_ERROR)
    expect(made.map((t) => t.kind)).toEqual(['streamable-http'])
  })
})

describe('per-request log level (2026)', () => {
  test('logLevel goes into that request’s _meta only', async () => {
    const { transports, made } = factory((m) => {
      if (!isRequest(m)) return
      return m.method === 'server/discover' ? ok(m, discoverResult) : ok(m, { content: [] })
    })
    const client = await connect({ command: 'logs' }, { settings, transports })
    await client.callTool('a', {}, { logLevel: 'warning' })
    await client.callTool('b', {})
    const [a, b] = made[0]!.requests('tools/call')
    expect((a!.params!._meta as Record<string, unknown>)[META.LOG_LEVEL]).toBe('warning')
    expect((b!.params!._meta as Record<string, unknown>)[META.LOG_LEVEL]).toBeUndefined()
    await client.close()
  })
})

describe('a modern stdio server slower than the probe', () => {
  test('its initialize error naming modern versions sends the client back to server/discover', async () => {
    let discovers = 0
    const { transports } = factory((m) => {
      if (!isRequest(m)) return
      if (m.method === 'server/discover') return ++discovers === 1 ? undefined : ok(m, discoverResult)
      if (m.method === 'initialize')
        return fail(m, RPC.INVALID_PARAMS, 'Unsupported protocol version', { supported: ['2026-07-28'], requested: '2025-11-25' })
    })
    const client = await connect({ command: 'slow-modern' }, { settings, transports })
    expect([client.era, discovers]).toEqual(['modern', 2])
    await client.close()
  })
})

describe('2026 direction rules', () => {
  test('a modern client sends no JSON-RPC responses, even to a request it receives', async () => {
    const { transports, made } = factory((m) => {
      if (!isRequest(m)) return
      return m.method === 'server/discover' ? ok(m, discoverResult) : ok(m, { tools: [] })
    })
    const client = await connect({ command: 'modern' }, { settings, transports, handlers: { onElicit: () => ({ action: 'accept' }) } })
    made[0]!.push(makeRequest('x1', 'elicitation/create', { message: 'hi', requestedSchema: { type: 'object' } }))
    await client.listAllTools()
    expect(made[0]!.sent.some((s) => 'id' in s.message && s.message.id === 'x1')).toBe(false)
    await client.close()
  })
})
