/**
 * The gateway's pass-through surface in front of mcpx's everything fixture (stdio upstream), spoken
 * to over raw HTTP as the conformance suite does: a 2026 host sees the upstream's own inputRequests
 * keys (several at once), the log messages of its call, and a -32021/HTTP 400 when it lacks a
 * capability, and the upstream's tasks followed by gateway tasks; a 2025-11-25 host has a long
 * call's SSE stream closed (ssePollAfterMs) and resumes it. Also the daemon setting that lets such
 * a token-less client in: daemonRequireToken=false, refused off loopback.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { homeLayout, parseConfig } from '../../lib/config/index.ts'
import { type Daemon, startGatewayDaemon } from '../../lib/daemon/index.ts'
import { McpxError } from '../../lib/errors/index.ts'
import type { UpstreamPool } from '../../lib/gateway/index.ts'
import { REPO_ROOT, tempDir, testSettings } from '../harness.ts'

const V = '2026-07-28'
const dir = tempDir('mcpx-passthrough')
const config = parseConfig(
  JSON.stringify({
    mcpServers: {
      everything: { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/everything/main.ts'), '--stdio'] },
      // The same fixture spoken to in the legacy era: its errors are that era's.
      legacy: { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/everything/main.ts'), '--stdio'], protocol: '2025-11-25' },
    },
  }),
  'passthrough.json',
  {},
)
let daemon: Daemon
let url: string

beforeAll(async () => {
  const layout = homeLayout(join(dir.path, 'home'), join(dir.path, 'config.json'))
  daemon = await startGatewayDaemon({
    settings: testSettings({ daemonIdleMs: 0, daemonRequireToken: false, ssePollAfterMs: 100 }),
    config,
    layout,
    version: '0.0.0-test',
    mode: 'passthrough',
    passthrough: 'everything',
  })
  url = `${daemon.info().tcp.url}/mcp`
})
afterAll(async () => {
  await daemon?.shutdown('test done')
  dir[Symbol.dispose]()
})

type Message = {
  id?: number
  method?: string
  params?: Record<string, unknown>
  result?: Record<string, unknown>
  error?: { code: number; data?: unknown }
}

/** All JSON-RPC messages of one response (JSON or SSE). */
async function messagesOf(response: Response): Promise<Message[]> {
  const text = await response.text()
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) return [JSON.parse(text)]
  return text
    .split('\n')
    .filter((line) => line.startsWith('data:') && line.length > 5)
    .map((line) => JSON.parse(line.slice(5)))
}

let nextId = 1
/** One 2026 tools/call with the headers and `_meta` the spec asks for; no bearer token. */
async function modernCall(
  name: string,
  extra: {
    args?: Record<string, unknown>
    capabilities?: Record<string, unknown>
    meta?: Record<string, unknown>
    inputResponses?: unknown
    requestState?: unknown
  } = {},
) {
  const params: Record<string, unknown> = {
    name,
    arguments: extra.args ?? {},
    _meta: {
      'io.modelcontextprotocol/protocolVersion': V,
      'io.modelcontextprotocol/clientCapabilities': extra.capabilities ?? {},
      'io.modelcontextprotocol/clientInfo': { name: 'raw-host', version: '1.0.0' },
      ...extra.meta,
    },
  }
  if (extra.inputResponses !== undefined) params.inputResponses = extra.inputResponses
  if (extra.requestState !== undefined) params.requestState = extra.requestState
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': V,
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params }),
  })
  const messages = await messagesOf(response)
  return { status: response.status, messages, final: messages.find((m) => m.id !== undefined)! }
}

const ALL = { elicitation: { form: {} }, sampling: {}, roots: {} }
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } }

async function modernRequest(method: string, params: Record<string, unknown>, name: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': V,
      'mcp-method': method,
      'mcp-name': name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': V,
          'io.modelcontextprotocol/clientCapabilities': TASKS,
          'io.modelcontextprotocol/clientInfo': { name: 'raw-host', version: '1.0.0' },
        },
      },
    }),
  })
  return (await messagesOf(response)).find((m) => m.id !== undefined)!
}

const LEGACY = '2025-11-25'
const JSON_POST = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

/** A 2025-11-25 host's initialize over raw HTTP: the answer, and the headers its session's requests carry once initialized. */
async function legacySession(clientName: string): Promise<{ init: Message; headers: Record<string, string> }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: JSON_POST,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: clientName, version: '1' } },
    }),
  })
  const session = response.headers.get('mcp-session-id')!
  const init = (await messagesOf(response))[0]!
  const headers = { ...JSON_POST, 'mcp-session-id': session, 'mcp-protocol-version': LEGACY }
  await (
    await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })
  ).text()
  return { init, headers }
}

describe('pass-through surface (2026 host, raw HTTP, no token)', () => {
  test("input_required relays the upstream's keys, several in one round, and resumes the same call", async () => {
    const first = await modernCall('test_input_required_result_multiple_inputs', { capabilities: ALL })
    expect(first.final.result?.resultType).toBe('input_required')
    const requests = first.final.result?.inputRequests as Record<string, { method: string }>
    expect(Object.keys(requests).sort()).toEqual(['client_roots', 'greeting', 'user_name'])
    expect(requests.greeting!.method).toBe('sampling/createMessage')
    const second = await modernCall('test_input_required_result_multiple_inputs', {
      capabilities: ALL,
      requestState: first.final.result?.requestState,
      inputResponses: {
        user_name: { action: 'accept', content: { name: 'Ada' } },
        greeting: { role: 'assistant', content: { type: 'text', text: 'Hi' }, model: 'm' },
        client_roots: { roots: [{ uri: 'file:///tmp' }] },
      },
    })
    expect(second.final.result?.resultType ?? 'complete').toBe('complete')
    expect(JSON.stringify(second.final.result?.content)).toContain('Ada')
  })

  test('a host without the capability gets -32021 with HTTP 400 from the upstream', async () => {
    const call = await modernCall('test_missing_capability')
    expect(call.status).toBe(400)
    expect(call.final.error?.code).toBe(-32021)
  })

  test('log messages reach the call that asked for them, and only then', async () => {
    const logged = await modernCall('test_tool_with_logging', { meta: { 'io.modelcontextprotocol/logLevel': 'info' } })
    const logs = logged.messages.filter((m) => m.method === 'notifications/message').map((m) => m.params?.data)
    expect(logs).toEqual(['Tool execution started', 'Tool processing data', 'Tool execution completed'])
    const quiet = await modernCall('test_tool_with_logging')
    expect(quiet.messages.filter((m) => m.method === 'notifications/message')).toEqual([])
  })
})

describe('pass-through surface: the upstream as itself', () => {
  test("a legacy host's initialize gets the upstream's serverInfo, instructions and capabilities", async () => {
    const init = (await legacySession('legacy')).init.result!
    expect(init.serverInfo).toEqual({ name: 'mcpx-everything', version: '0.1.0', title: 'mcpx everything fixture' })
    expect(init.instructions).toBe('Conformance fixture: every tool, prompt and resource the MCP conformance suite exercises.')
    expect(Object.keys(init.capabilities as object).sort()).toEqual(['completions', 'logging', 'prompts', 'resources', 'tasks', 'tools'])
  })
})

describe("pass-through surface: a missing resource in the host's era", () => {
  const missing = 'test://no-such-resource'

  test('a 2025-11-25 host in front of a 2026 upstream gets -32002', async () => {
    const { headers } = await legacySession('legacy')
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: missing } }),
    })
    const read = (await messagesOf(response))[0]!
    expect(read.error).toMatchObject({ code: -32002, data: { uri: missing } })
  })

  test('a 2026 host in front of a 2025-11-25 upstream gets -32602 naming the URI', async () => {
    const saved = url
    url = `${saved}?passthrough=legacy`
    try {
      const read = await modernRequest('resources/read', { uri: missing }, missing)
      expect(read.error).toMatchObject({ code: -32602, data: { uri: missing } })
    } finally {
      url = saved
    }
  })
})

describe('pass-through surface: tasks and SSE polling', () => {
  test('a call the upstream turns into a task is a gateway task the host polls to the upstream result', async () => {
    const created = await modernCall('slow_compute', { args: { seconds: 0.3, label: 'relayed' }, capabilities: TASKS })
    expect(created.final.result?.resultType).toBe('task')
    const taskId = String(created.final.result?.taskId)
    // The host sees the upstream's own task id (mapped, not renamed): the upstream knows it.
    const upstreamTask = await (daemon.pool as unknown as UpstreamPool).request(
      'everything',
      'tasks/get',
      { taskId },
      { capabilities: TASKS },
    )
    expect(upstreamTask.taskId).toBe(taskId)
    let task = created.final.result!
    while (task.status === 'working') {
      // As hosts do (SEP-2663): poll at the interval the task names.
      await Bun.sleep(Number(task.pollIntervalMs))
      task = (await modernRequest('tasks/get', { taskId }, taskId)).result!
    }
    expect(task.status).toBe('completed')
    expect(JSON.stringify(task.result)).toContain('Computed relayed after 0.3s')
    // A host without the extension gets the plain result.
    const plain = await modernCall('slow_compute', { args: { seconds: 0.1 } })
    expect(plain.final.result?.resultType ?? 'complete').toBe('complete')
  })

  test('2025-11-25 host: a long call has its SSE stream closed (ssePollAfterMs) and the result comes on the resumed GET', async () => {
    const { headers } = await legacySession('legacy-raw')
    const call = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'test_reconnection', arguments: {} } }),
    })
    const text = await call.text()
    // The stream ended without the answer; its last event id is where the host resumes.
    expect(text).not.toContain('"id":2')
    const lastId = [...text.matchAll(/^id: ?(.+)$/gm)].at(-1)![1]!.trim()
    const resumed = await fetch(url, {
      method: 'GET',
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': headers['mcp-session-id']!,
        'mcp-protocol-version': LEGACY,
        'last-event-id': lastId,
      },
    })
    const reader = resumed.body!.getReader()
    let seen = ''
    while (!seen.includes('"id":2')) {
      const { value, done } = await reader.read()
      if (done) break
      seen += new TextDecoder().decode(value)
    }
    await reader.cancel()
    expect(seen).toContain('Reconnection test completed')
  })
})

describe('daemonRequireToken', () => {
  test('false is refused with CONFIG on a non-loopback address', async () => {
    using other = tempDir('mcpx-passthrough-wide')
    const start = startGatewayDaemon({
      settings: testSettings({ daemonIdleMs: 0, daemonRequireToken: false, daemonAddress: '0.0.0.0' }),
      config,
      layout: homeLayout(join(other.path, 'home'), join(other.path, 'config.json')),
      version: '0.0.0-test',
    })
    const error = await start.then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(McpxError)
    expect((error as McpxError).code).toBe('CONFIG')
  })

  test('the default still refuses TCP requests without the token', async () => {
    using other = tempDir('mcpx-passthrough-token')
    const guarded = await startGatewayDaemon({
      settings: testSettings({ daemonIdleMs: 0 }),
      config,
      layout: homeLayout(join(other.path, 'home'), join(other.path, 'config.json')),
      version: '0.0.0-test',
    })
    try {
      const response = await fetch(`${guarded.info().tcp.url}/v1/health`)
      expect(response.status).toBe(401)
    } finally {
      await guarded.shutdown('test done')
    }
  })
})
