/** lib/config/load.ts: parsing the mcpx config, finding it, and the settings it overrides. */
import { describe, expect, test } from 'bun:test'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type McpxConfig, findConfigFile, loadConfig, parseConfig, resolveConfiguredSettings } from '../../../lib/config/index.ts'
import { McpxError } from '../../../lib/errors/index.ts'
import { resolvePaths, resolveSettings } from '../../../lib/settings/index.ts'
import { tempDir } from '../../harness.ts'

const DEMO = ['/usr/bin/mcpx', 'demo-server']

function configErrorOf(text: string, env: Record<string, string> = {}): McpxError {
  try {
    parseConfig(text, '/etc/mcpx.json', env)
  } catch (error) {
    expect(error).toBeInstanceOf(McpxError)
    return error as McpxError
  }
  throw new Error('expected parseConfig to fail')
}

describe('parseConfig', () => {
  test('normalises stdio and remote entries with mcpx options inline', () => {
    const config = parseConfig(
      JSON.stringify({
        mcpServers: {
          fs: { command: 'npx', args: ['-y', 'server-fs'], env: { A: '1' }, cwd: '/tmp', codemode: false, allowedTools: ['read'] },
          web: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' }, protocol: '2025-06-18', record: '/tmp/web.ndjson' },
          old: { type: 'sse', url: 'http://127.0.0.1:9/sse', blockedTools: ['rm'], disabled: true },
        },
        settings: { requestTimeoutMs: 5000 },
      }),
      '/etc/mcpx.json',
      {},
    )
    expect(config).toEqual({
      source: '/etc/mcpx.json',
      servers: {
        fs: { name: 'fs', target: { kind: 'stdio', command: 'npx', args: ['-y', 'server-fs'], env: { A: '1' }, cwd: '/tmp' }, disabled: false, codemode: false, allowedTools: ['read'] },
        web: {
          name: 'web',
          target: { kind: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' }, transport: 'auto' },
          disabled: false,
          protocol: '2025-06-18',
          codemode: true,
          record: '/tmp/web.ndjson',
        },
        old: { name: 'old', target: { kind: 'http', url: 'http://127.0.0.1:9/sse', headers: {}, transport: 'sse' }, disabled: true, codemode: true, blockedTools: ['rm'] },
      },
      settings: { requestTimeoutMs: 5000 },
    } satisfies McpxConfig)
  })

  test('interpolates ${VAR} and ${VAR:-default}; $${ stays literal', () => {
    const config = parseConfig(
      JSON.stringify({ mcpServers: { a: { command: '${BIN}', args: ['${MISSING:-fallback}', '$${HOME}'], env: { T: 'x${BIN}y' } } } }),
      'f.json',
      { BIN: 'node' },
    )
    expect(config.servers.a!.target).toEqual({ kind: 'stdio', command: 'node', args: ['fallback', '${HOME}'], env: { T: 'xnodey' } })
  })

  test('an unset ${VAR} is one CONFIG error naming the file, the path and the variable', () => {
    const error = configErrorOf(JSON.stringify({ mcpServers: { gh: { command: 'gh', env: { TOKEN: '${GITHUB_TOKEN}' } } } }))
    expect(error.code).toBe('CONFIG')
    expect(error.message).toBe(
      'config /etc/mcpx.json: mcpServers.gh.env.TOKEN: environment variable GITHUB_TOKEN is not set (referenced as ${GITHUB_TOKEN}; write ${GITHUB_TOKEN:-default} for a fallback)',
    )
    expect(error.data).toEqual({ file: '/etc/mcpx.json', path: 'mcpServers.gh.env.TOKEN', variable: 'GITHUB_TOKEN' })
  })

  test.each([
    ['{"mcpServers": {', /^config \/etc\/mcpx\.json:1:17: not valid JSON: expected a property name in double quotes, found end of input$/],
    ['{"mcpServers": {"a": {"command": 3}}}', /^config \/etc\/mcpx\.json: mcpServers\.a\.command: /],
    ['{"mcpServers": {"a": {"command": "x", "args": ["ok", 2]}}}', /^config \/etc\/mcpx\.json: mcpServers\.a\.args\[1\]: /],
    ['{"mcpServers": {"a": {"command": "x", "comand": "y"}}}', /^config \/etc\/mcpx\.json: mcpServers\.a\.comand: unknown key/],
    ['{"mcpServers": {"a": {"url": "not a url"}}}', /mcpServers\.a\.url: must be an absolute URL/],
    ['{"mcpServers": {"a": {"url": "https://x", "command": "y"}}}', /mcpServers\.a: has both "command" and "url"/],
    ['{"mcpServers": {"a": {}}}', /mcpServers\.a: needs "command" \(stdio\) or "url" \(remote\)/],
    ['{"mcpServers": {"a.b": {"command": "x"}}}', /mcpServers\.a\.b: server names may hold only/],
    ['{"mcpServers": {"a": {"command": "x", "protocol": "2099-01-01"}}}', /mcpServers\.a\.protocol: must be one of 2024-11-05/],
    ['{"settings": {"requestTimeoutMs": "soon"}}', /settings\.requestTimeoutMs: must be a number/],
    ['{"settings": {"noSuchSetting": 1}}', /settings\.noSuchSetting: unknown setting/],
    ['{"servers": {}}', /^config \/etc\/mcpx\.json: servers: unknown key/],
    ['{"mcpServers": {"a": {"command": "x", "args": "${X"}}}', /mcpServers\.a\.args: malformed reference/],
  ])('rejects %s with one message', (text, message) => {
    const error = configErrorOf(text)
    expect(error.code).toBe('CONFIG')
    expect(error.message).toMatch(message)
    expect(error.message.split('\n')).toHaveLength(1)
  })
})

describe('finding the config', () => {
  test('--config beats MCPX_CONFIG beats XDG_CONFIG_HOME beats ~/.config', () => {
    using dir = tempDir('mcpx-config')
    const home = join(dir.path, 'home')
    const xdg = join(dir.path, 'xdg')
    const env = { HOME: home, XDG_CONFIG_HOME: xdg }
    const settings = resolveSettings(env)
    expect(findConfigFile(resolvePaths(env, settings))).toBeNull()
    mkdirSync(join(home, '.config', 'mcpx'), { recursive: true })
    writeFileSync(join(home, '.config', 'mcpx', 'config.json'), '{}')
    expect(findConfigFile(resolvePaths(env, settings))).toBe(join(home, '.config', 'mcpx', 'config.json'))
    mkdirSync(join(xdg, 'mcpx'), { recursive: true })
    writeFileSync(join(xdg, 'mcpx', 'config.json'), '{}')
    expect(findConfigFile(resolvePaths(env, settings))).toBe(join(xdg, 'mcpx', 'config.json'))
    const withEnv = resolveSettings({ ...env, MCPX_CONFIG: '/from/env.json' })
    expect(findConfigFile(resolvePaths(env, withEnv))).toBe('/from/env.json')
    expect(findConfigFile(resolvePaths(env, withEnv, '/from/flag.json'))).toBe('/from/flag.json')
  })

  test('mcpx state lives under MCPX_HOME, else $XDG_STATE_HOME/mcpx, else ~/.local/state/mcpx', () => {
    const env = { HOME: '/h', XDG_STATE_HOME: '/state' }
    expect(resolvePaths(env, resolveSettings(env)).home).toBe('/state/mcpx')
    expect(resolvePaths({ HOME: '/h' }, resolveSettings({})).home).toBe('/h/.local/state/mcpx')
    expect(resolvePaths(env, resolveSettings({ MCPX_HOME: '/m' })).home).toBe('/m')
  })

  test('no file at all gives the embedded default with the demo server', () => {
    using dir = tempDir('mcpx-config')
    const env = { HOME: dir.path }
    const config = loadConfig({ paths: resolvePaths(env, resolveSettings(env)), env, demoCommand: DEMO })
    expect(config.source).toBeNull()
    expect(Object.keys(config.servers)).toEqual(['demo'])
    expect(config.servers.demo!.target).toEqual({ kind: 'stdio', command: '/usr/bin/mcpx', args: ['demo-server'], env: {} })
  })

  test('an explicit file that does not exist is a CONFIG error naming it', () => {
    const env = { HOME: '/nonexistent' }
    const paths = resolvePaths(env, resolveSettings(env), '/nonexistent/mcpx.json')
    expect(() => loadConfig({ paths, env, demoCommand: DEMO })).toThrow('config /nonexistent/mcpx.json: file not found')
  })
})

describe('resolveConfiguredSettings', () => {
  test('flags > MCPX_* environment > config settings > defaults', () => {
    const config = parseConfig('{"settings": {"requestTimeoutMs": 111, "probeTimeoutMs": 222}}', 'f', {})
    const fromFile = resolveConfiguredSettings({}, config)
    expect([fromFile.requestTimeoutMs, fromFile.probeTimeoutMs]).toEqual([111, 222])
    const fromEnv = resolveConfiguredSettings({ MCPX_TIMEOUT_MS: '333' }, config)
    expect([fromEnv.requestTimeoutMs, fromEnv.probeTimeoutMs]).toEqual([333, 222])
    expect(resolveConfiguredSettings({ MCPX_TIMEOUT_MS: '333' }, config, { requestTimeoutMs: 444 }).requestTimeoutMs).toBe(444)
  })
})
