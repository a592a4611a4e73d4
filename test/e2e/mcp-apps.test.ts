/**
 * MCP Apps (extension io.modelcontextprotocol/ui) through the gateway, in front of a real MCP Apps
 * server from npm (@modelcontextprotocol/server-basic-vanillajs over stdio) and, beside it, the same
 * server under a second name (two upstreams with the same ui:// URI must not collide). Hosts: the
 * official SDKs (2.x modern, 1.x legacy) declaring the extension with the MCP Apps mimeType, over
 * /mcp and over `mcpx serve --passthrough`; each read UI resource is compared with the upstream's own.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client'
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { homeLayout, parseConfig } from '../../lib/config/index.ts'
import { type Daemon, readToken, startGatewayDaemon } from '../../lib/daemon/index.ts'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import type { UpstreamPool } from '../../lib/gateway/index.ts'
import { REPO_ROOT, mcpxCommand, runMcpx, tempDir, testSettings } from '../harness.ts'
import { isolatedUser } from '../cli/cli-env.ts'

const APP_SERVER = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js')
const UI = 'io.modelcontextprotocol/ui'
const MIME = 'text/html;profile=mcp-app'
const APPS_CAPS = { extensions: { [UI]: { mimeTypes: [MIME] } } }
const dir = tempDir('mcpx-apps')
let daemon: Daemon
let headers: Record<string, string>
let mcpUrl: string

beforeAll(async () => {
  const config = parseConfig(
    JSON.stringify({
      mcpServers: {
        apps: { command: 'node', args: [APP_SERVER, '--stdio'] },
        twin: { command: 'node', args: [APP_SERVER, '--stdio'] },
        meta: { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/peers/app-meta-fixture.ts')] },
      },
    }),
    'apps.json',
    {},
  )
  const layout = homeLayout(join(dir.path, 'home'), join(dir.path, 'config.json'))
  daemon = await startGatewayDaemon({ settings: testSettings({ daemonIdleMs: 0 }), config, layout, version: '0.0.0-test' })
  headers = { Authorization: `Bearer ${readToken(layout.token)}` }
  mcpUrl = `${daemon.info().tcp.url}/mcp`
})
afterAll(async () => {
  await daemon?.shutdown('test done')
  dir[Symbol.dispose]()
})

type Tool = { name: string; _meta?: Record<string, unknown> }
type Host = {
  listTools(): Promise<{ tools: Tool[] }>
  readResource(params: { uri: string }): Promise<{ contents: Record<string, unknown>[] }>
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<Record<string, unknown>>
}

async function modernHost<T>(path: string, capabilities: Record<string, unknown>, run: (client: Host) => Promise<T>): Promise<T> {
  const client = new ModernClient(
    { name: 'apps-host', version: '2.0.0' },
    { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  )
  await client.connect(new ModernHttp(new URL(mcpUrl + path), { requestInit: { headers } }))
  try {
    return await run(client as unknown as Host)
  } finally {
    await client.close()
  }
}

async function legacyHost<T>(path: string, capabilities: Record<string, unknown>, run: (client: Host) => Promise<T>): Promise<T> {
  const client = new LegacyClient({ name: 'apps-host', version: '1.0.0' }, { capabilities })
  await client.connect(new LegacyHttp(new URL(mcpUrl + path), { requestInit: { headers } }))
  try {
    return await run(client as unknown as Host)
  } finally {
    await client.close()
  }
}

const uiOf = (tool: Tool | undefined) => tool?._meta?.ui as { resourceUri?: string } | undefined

/** The app server's UI resource as the upstream itself answers it (the gateway's pool, no surface). */
const upstreamRead = () => (daemon.pool as unknown as UpstreamPool).request('apps', 'resources/read', { uri: 'ui://get-time/mcp-app.html' })

/** The app round trip a rendering host makes: the tool, its UI resource, then the call. */
async function appRoundTrip(client: Host, toolName: string) {
  const { tools } = await client.listTools()
  const tool = tools.find((t) => t.name === toolName)
  const resourceUri = uiOf(tool)?.resourceUri
  expect(resourceUri).toStartWith('ui://')
  expect(tool?._meta?.['ui/resourceUri']).toBe(resourceUri)
  const read = await client.readResource({ uri: resourceUri! })
  const content = read.contents[0]!
  expect(content.uri).toBe(resourceUri)
  expect(content.mimeType).toBe(MIME)
  expect(String(content.text)).toContain('<html')
  // The upstream's own `_meta.ui` (csp, permissions, domain, prefersBorder) and HTML, untouched.
  const direct = (await upstreamRead()).contents as Record<string, unknown>[]
  expect(content._meta).toEqual(direct[0]!._meta)
  expect(content.text).toBe(direct[0]!.text)
  const result = await client.callTool({ name: toolName, arguments: {} })
  expect((result.structuredContent as { time?: string }).time).toMatch(/^\d{4}-\d\d-\d\dT/)
  return { tools, resourceUri: resourceUri! }
}

describe('MCP Apps on the raw surface', () => {
  test('a modern host that declares the extension lists the app tool, reads its UI and calls it', async () => {
    await modernHost('?codemode=false', APPS_CAPS, async (client) => {
      const { tools, resourceUri } = await appRoundTrip(client, 'apps_get-time')
      // Re-addressed per upstream: the twin's identical ui:// URI maps elsewhere.
      const twin = uiOf(tools.find((t) => t.name === 'twin_get-time'))?.resourceUri
      expect(twin).toStartWith('ui://')
      expect(twin).not.toBe(resourceUri)
      expect((await client.readResource({ uri: twin! })).contents[0]!.uri).toBe(twin)
    })
  })

  test('a legacy host that declares the extension gets the same', async () => {
    await legacyHost('?codemode=false', APPS_CAPS, (client) => appRoundTrip(client, 'apps_get-time'))
  })

  test("the UI resource's `_meta.ui` (csp, permissions, domain, prefersBorder) is the upstream's, untouched", async () => {
    await legacyHost('?codemode=false', APPS_CAPS, async (client) => {
      const tool = (await client.listTools()).tools.find((t) => t.name === 'meta_show')
      const uri = uiOf(tool)?.resourceUri
      expect(uri).toStartWith('ui://')
      expect(uri).not.toBe('ui://show/app.html')
      const content = (await client.readResource({ uri: uri! })).contents[0]!
      const direct = (
        (await (daemon.pool as unknown as UpstreamPool).request('meta', 'resources/read', { uri: 'ui://show/app.html' }))
          .contents as Record<string, unknown>[]
      )[0]!
      expect(content._meta).toEqual(direct._meta)
      expect((content._meta as { ui?: { prefersBorder?: boolean; domain?: string } }).ui).toMatchObject({
        prefersBorder: true,
        domain: 'show.example.com',
        csp: { connectDomains: ['https://api.example.com'] },
      })
      expect(content.mimeType).toBe(MIME)
    })
  })

  test('a host that did not declare the extension gets the tool without UI metadata', async () => {
    await modernHost('?codemode=false', {}, async (client) => {
      const tool = (await client.listTools()).tools.find((t) => t.name === 'apps_get-time')
      expect(tool).toBeDefined()
      expect(tool?._meta?.ui).toBeUndefined()
      expect(tool?._meta?.['ui/resourceUri']).toBeUndefined()
    })
  })
})

describe('MCP Apps through the pass-through surface', () => {
  test('the tool keeps its own name and ui:// URI, readable and callable', async () => {
    await modernHost('?passthrough=apps', APPS_CAPS, async (client) => {
      const { resourceUri } = await appRoundTrip(client, 'get-time')
      expect(resourceUri).toBe('ui://get-time/mcp-app.html')
    })
  })
})

describe('MCP Apps through mcpx serve --passthrough (stdio)', () => {
  test('an SDK 1.x host declaring the extension lists, reads and calls the app as itself', async () => {
    const user = isolatedUser('mcpx-apps-serve')
    mkdirSync(dirname(user.configFile), { recursive: true })
    writeFileSync(user.configFile, JSON.stringify({ mcpServers: { apps: { command: 'node', args: [APP_SERVER, '--stdio'] } } }))
    const [command, ...args] = mcpxCommand()
    const client = new LegacyClient({ name: 'apps-host', version: '1.0.0' }, { capabilities: APPS_CAPS })
    await client.connect(
      new StdioClientTransport({
        command: command!,
        args: [...args, 'serve', '--passthrough', 'apps'],
        env: { ...(process.env as Record<string, string>), ...user.env },
        stderr: 'ignore',
      }),
    )
    try {
      const { resourceUri } = await appRoundTrip(client as unknown as Host, 'get-time')
      expect(resourceUri).toBe('ui://get-time/mcp-app.html')
    } finally {
      await client.close()
      await runMcpx(['daemon', 'stop'], { env: user.env })
      user[Symbol.dispose]()
    }
  })
})

describe('MCP Apps in code mode and reactive mode', () => {
  test('mcpx_catalog says which tools have an app; mcpx_call keeps structuredContent and _meta', async () => {
    await modernHost('', APPS_CAPS, async (client) => {
      const catalog = await client.callTool({ name: 'mcpx_catalog', arguments: { server: 'apps' } })
      const entry = (catalog.structuredContent as { tools: { name: string; app?: string }[] }).tools.find((t) => t.name === 'apps.get-time')
      expect(entry?.app).toStartWith('ui://')
      const result = await client.callTool({ name: 'mcpx_call', arguments: { tool: 'apps.get-time', arguments: {} } })
      expect((result.structuredContent as { time?: string }).time).toBeString()
    })
  })

  test('mcpx_search marks hits that have an app', async () => {
    await modernHost('', APPS_CAPS, async (client) => {
      const search = await client.callTool({ name: 'mcpx_search', arguments: { query: 'current server time' } })
      const hit = (search.structuredContent as { hits: { qualifiedName: string; app?: string }[] }).hits.find(
        (h) => h.qualifiedName === 'apps.get-time',
      )
      expect(hit?.app).toStartWith('ui://')
    })
  })

  test('a reactive working set keeps the tool UI metadata', async () => {
    await modernHost('?mode=reactive', APPS_CAPS, async (client) => {
      await client.callTool({ name: 'mcpx_call', arguments: { tool: 'apps.get-time', arguments: {} } })
      const tool = (await client.listTools()).tools.find((t) => t.name === 'apps_get-time')
      expect(uiOf(tool)?.resourceUri).toStartWith('ui://')
      const read = await client.readResource({ uri: uiOf(tool)!.resourceUri! })
      expect(read.contents[0]!.mimeType).toBe(MIME)
    })
  })
})
