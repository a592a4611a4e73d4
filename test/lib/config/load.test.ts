/** lib/config: parsing the mcpx config, finding it, and the settings it overrides (load.ts, settings-section.ts). */
import { describe, expect, test } from 'bun:test'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  type McpxConfig,
  findConfigFile,
  loadConfig,
  parseConfig,
  readSettingsSection,
  resolveConfiguredSettings,
} from '../../../lib/config/index.ts'
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
          web: {
            url: 'https://example.com/mcp',
            headers: { Authorization: 'Bearer x' },
            protocol: '2025-06-18',
            record: '/tmp/web.ndjson',
          },
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
        fs: {
          name: 'fs',
          target: { kind: 'stdio', command: 'npx', args: ['-y', 'server-fs'], env: { A: '1' }, cwd: '/tmp' },
          disabled: false,
          codemode: false,
          allowedTools: ['read'],
          roots: [],
        },
        web: {
          name: 'web',
          target: { kind: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' }, transport: 'auto' },
          disabled: false,
          protocol: '2025-06-18',
          codemode: true,
          record: '/tmp/web.ndjson',
          roots: [],
        },
        old: {
          name: 'old',
          target: { kind: 'http', url: 'http://127.0.0.1:9/sse', headers: {}, transport: 'sse' },
          disabled: true,
          codemode: true,
          blockedTools: ['rm'],
          roots: [],
        },
      },
      settings: { requestTimeoutMs: 5000 },
      variables: {},
    } satisfies McpxConfig)
  })

  test('roots: paths relative to the config file, URIs as given, none unless set', () => {
    const config = parseConfig(
      JSON.stringify({ mcpServers: { a: { command: 'x', roots: ['src', '/abs', 'file:///u'] }, b: { command: 'y' } } }),
      '/home/me/mcpx.json',
      {},
    )
    expect(config.servers.a!.roots).toEqual(['file:///home/me/src', 'file:///abs', 'file:///u'])
    expect(config.servers.b!.roots).toEqual([])
  })

  test('interpolates ${VAR} and ${VAR:-default}; $${ stays literal', () => {
    const config = parseConfig(
      JSON.stringify({ mcpServers: { a: { command: '${BIN}', args: ['${MISSING:-fallback}', '$${HOME}'], env: { T: 'x${BIN}y' } } } }),
      '/etc/f.json',
      { BIN: 'node' },
    )
    expect(config.servers.a!.target).toEqual({
      kind: 'stdio',
      command: 'node',
      args: ['fallback', '${HOME}'],
      env: { T: 'xnodey' },
      cwd: '/etc',
    })
  })

  test('${env:VAR} (the Cursor/VS Code spelling) is ${VAR}', () => {
    const config = parseConfig(
      JSON.stringify({ mcpServers: { a: { command: 'node', env: { K: '${env:KEY}', D: '${env:NOPE:-d}' } } } }),
      '/etc/f.json',
      { KEY: 'v' },
    )
    expect(config.servers.a!.target).toMatchObject({ env: { K: 'v', D: 'd' } })
    expect(config.variables).toEqual({ KEY: 'environment', NOPE: 'not set' })
  })

  test('an unset ${VAR} makes only its server unavailable, naming the variable and where it is used', () => {
    const config = parseConfig(
      JSON.stringify({ mcpServers: { gh: { command: 'gh', env: { TOKEN: '${GITHUB_TOKEN}' } }, ok: { command: 'node' } } }),
      '/etc/mcpx.json',
      {},
    )
    expect(config.servers.gh!.unavailable).toBe('environment variable GITHUB_TOKEN is not set (mcpServers.gh.env.TOKEN)')
    expect(config.servers.ok!.unavailable).toBeUndefined()
  })

  test('envFile (dotenv, relative to the config file) is read before the environment', () => {
    using dir = tempDir('mcpx-envfile')
    writeFileSync(join(dir.path, 'vars.env'), '# comment\nexport TOKEN="from file"\nOTHER=plain # trailing\n')
    const file = join(dir.path, 'config.json')
    const config = parseConfig(
      JSON.stringify({ envFile: 'vars.env', mcpServers: { a: { command: 'node', env: { T: '${TOKEN}', O: '${OTHER}', P: '${PLAIN}' } } } }),
      file,
      { TOKEN: 'from env', PLAIN: 'p' },
      { envSource: 'the snapshot' },
    )
    expect(config.servers.a!.target).toMatchObject({ env: { T: 'from file', O: 'plain', P: 'p' } })
    expect(config.variables).toEqual({
      TOKEN: `envFile ${join(dir.path, 'vars.env')}`,
      OTHER: `envFile ${join(dir.path, 'vars.env')}`,
      PLAIN: 'the snapshot',
    })
  })

  test('an unset variable says so beside an envFile that does not exist (a typo in its name shows first as that)', () => {
    using dir = tempDir('mcpx-envfile-missing')
    const file = join(dir.path, 'config.json')
    const config = parseConfig(
      JSON.stringify({ envFile: 'vars.env', mcpServers: { a: { command: 'node', env: { T: '${TOKEN}' } } } }),
      file,
      {},
    )
    expect(config.servers.a!.unavailable).toBe(
      `environment variable TOKEN is not set (mcpServers.a.env.T); envFile ${join(dir.path, 'vars.env')} does not exist`,
    )
  })

  test('mcpServers, env or headers as an array is refused, not read as names "0", "1"…', () => {
    const parse = (document: object) => () => parseConfig(JSON.stringify(document), '/etc/mcpx.json', {})
    expect(parse({ mcpServers: { a: { command: 'x', env: ['A=1'] } } })).toThrow(
      'config /etc/mcpx.json: mcpServers.a.env: must be an object ({"name": value, …}), not an array',
    )
    expect(parse({ mcpServers: { a: { url: 'http://x/mcp', headers: ['A: 1'] } } })).toThrow(
      'config /etc/mcpx.json: mcpServers.a.headers: must be an object ({"name": value, …}), not an array',
    )
    expect(() => parseConfig(JSON.stringify({ mcpServers: [{ command: 'x' }] }), '/etc/mcpx.json', {})).toThrow(
      'config /etc/mcpx.json: mcpServers: must be an object ({"name": value, …}), not an array',
    )
  })

  test('a header name that is no HTTP token, or a value with a line break (also one from a variable), is a CONFIG error naming it', () => {
    const parse =
      (headers: object, env: Record<string, string> = {}) =>
      () =>
        parseConfig(JSON.stringify({ mcpServers: { a: { url: 'http://x/mcp', headers } } }), '/etc/mcpx.json', env)
    expect(parse({ 'X-A': 'a\r\nB: c' })).toThrow(
      'config /etc/mcpx.json: mcpServers.a.headers.X-A: must not hold a line break or another control character (it would end the header)',
    )
    expect(parse({ Authorization: 'Bearer ${TOKEN}' }, { TOKEN: 'x\ny' })).toThrow(
      'mcpServers.a.headers.Authorization: must not hold a line break',
    )
    expect(parse({ 'Bad Name': 'x' })).toThrow('mcpServers.a.headers: header name "Bad Name" is not an HTTP token')
    expect(parse({ 'X-Tab': 'a\tb', 'X-Unicode': 'é' })).not.toThrow()
  })

  test('relative command, cwd and ./ ../ args resolve against the config file; other args as written; no cwd = its directory', () => {
    const config = parseConfig(
      JSON.stringify({
        mcpServers: { a: { command: 'bin/server', args: ['./x.mjs', '../y', 'z/w', '--flag'] }, b: { command: 'node', cwd: 'sub' } },
      }),
      '/srv/cfg/config.json',
      {},
    )
    expect(config.servers.a!.target).toEqual({
      kind: 'stdio',
      command: '/srv/cfg/bin/server',
      args: ['/srv/cfg/x.mjs', '/srv/y', 'z/w', '--flag'],
      env: {},
      cwd: '/srv/cfg',
    })
    expect(config.servers.b!.target).toMatchObject({ command: 'node', cwd: '/srv/cfg/sub' })
  })

  test('with check on, a missing command, cwd or record directory makes the server unavailable', () => {
    const config = parseConfig(
      JSON.stringify({
        mcpServers: {
          nocmd: { command: 'surely-not-installed-mcpx-test' },
          line: { command: 'sh -e script.sh' },
          quoted: { command: 'sh -c "exit 0"' },
          nofile: { command: './missing.sh' },
          nocwd: { command: 'sh', cwd: '/does/not/exist' },
          norec: { command: 'sh', record: '/does/not/exist/r.ndjson' },
          fine: { command: 'sh' },
        },
      }),
      '/etc/mcpx.json',
      { PATH: process.env.PATH },
      { check: true },
    )
    expect(config.servers.nocmd!.unavailable).toBe('command "surely-not-installed-mcpx-test" is not on PATH (mcpServers.nocmd.command)')
    // A command line where the program goes: the split that would run it is spelt out.
    expect(config.servers.line!.unavailable).toBe(
      'command "sh -e script.sh" is not on PATH (mcpServers.line.command); to run that line, name the program alone: "command": "sh", "args": ["-e","script.sh"]',
    )
    expect(config.servers.quoted!.unavailable).toBe(
      'command "sh -c "exit 0"" is not on PATH (mcpServers.quoted.command); to run that line, name the program alone in "command" ("sh") and each argument in "args"',
    )
    expect(config.servers.nofile!.unavailable).toBe(
      'command /etc/missing.sh does not exist or is not executable (mcpServers.nofile.command)',
    )
    expect(config.servers.nocwd!.unavailable).toBe('directory /does/not/exist does not exist (mcpServers.nocwd.cwd)')
    expect(config.servers.norec!.unavailable).toBe('directory /does/not/exist does not exist (mcpServers.norec.record)')
    expect(config.servers.fine!.unavailable).toBeUndefined()
  })

  test.each([
    ['{"mcpServers": {', /^config \/etc\/mcpx\.json:1:17: not valid JSON: expected a property name in double quotes, found end of input$/],
    [
      '{\n  // mine\n  "mcpServers": {}\n}',
      /^config \/etc\/mcpx\.json:2:3: not valid JSON: .* \(comments are not JSON, and this file is plain JSON\)$/,
    ],
    ['{"mcpServers": {"a": {"command": 3}}}', /^config \/etc\/mcpx\.json: mcpServers\.a\.command: /],
    ['{"mcpServers": {"a": {"command": "x", "args": ["ok", 2]}}}', /^config \/etc\/mcpx\.json: mcpServers\.a\.args\[1\]: /],
    ['{"mcpServers": {"a": {"command": "x", "comand": "y"}}}', /^config \/etc\/mcpx\.json: mcpServers\.a\.comand: unknown key/],
    ['{"mcpServers": {"a": {"url": "not a url"}}}', /mcpServers\.a\.url: must be an absolute URL/],
    ['{"mcpServers": {"a": {"url": "https://x", "command": "y"}}}', /mcpServers\.a: has both "command" and "url"/],
    ['{"mcpServers": {"a": {}}}', /mcpServers\.a: needs "command" \(stdio\) or "url" \(remote\)$/],
    [
      '{"mcpServers": {"a": {"serverUrl": "https://x/mcp"}}}',
      /mcpServers\.a: needs "command" \(stdio\) or "url" \(remote\) \("serverUrl" is another host's name for it: call it "url", or let `mcpx import` convert the entry\)$/,
    ],
    ['{"mcpServers": {"a.b": {"command": "x"}}}', /mcpServers\.a\.b: server names may hold only/],
    ['{"mcpServers": {"a": {"command": "x", "protocol": "2099-01-01"}}}', /mcpServers\.a\.protocol: must be one of 2024-11-05/],
    ['{"settings": {"requestTimeoutMs": "soon"}}', /settings\.requestTimeoutMs: must be a number/],
    ['{"settings": {"noSuchSetting": 1}}', /settings\.noSuchSetting: unknown setting/],
    [
      '{"servers": {}}',
      /^config \/etc\/mcpx\.json: servers: unknown key .*name the table "mcpServers", or let `mcpx import vscode` convert it$/,
    ],
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

describe('readSettingsSection', () => {
  test('the settings section alone: envFile and ${VAR} apply, the rest of the file is not read', () => {
    using dir = tempDir('mcpx-settings-section')
    const file = join(dir.path, 'config.json')
    const paths = resolvePaths({ HOME: dir.path }, resolveSettings({}), file)
    writeFileSync(join(dir.path, '.env'), 'SAMPLER=from-env-file\n')
    // A server entry the whole load refuses does not keep the settings from a command that needs only them.
    const text = {
      envFile: '.env',
      mcpServers: { bad: { url: 'not a url' } },
      settings: { samplingCommand: '${SAMPLER}', requestTimeoutMs: 5 },
    }
    writeFileSync(file, JSON.stringify(text))
    expect(() => loadConfig({ paths, env: {}, demoCommand: DEMO })).toThrow('mcpServers.bad.url')
    expect(readSettingsSection(paths, {})).toEqual({ samplingCommand: 'from-env-file', requestTimeoutMs: 5 })
    writeFileSync(file, JSON.stringify({ settings: { requestTimeoutMs: -1 } }))
    expect(() => readSettingsSection(paths, {})).toThrow(`config ${file}: settings.requestTimeoutMs: must not be negative`)
    writeFileSync(file, JSON.stringify({ settings: { noSuchSetting: true } }))
    expect(() => readSettingsSection(paths, {})).toThrow('settings.noSuchSetting: unknown setting')
    writeFileSync(file, '{"settings": ')
    expect(() => readSettingsSection(paths, {})).toThrow(McpxError)
  })

  test('no config file: no overrides', () => {
    using dir = tempDir('mcpx-settings-section-none')
    expect(readSettingsSection(resolvePaths({ HOME: dir.path }, resolveSettings({})), {})).toEqual({})
  })
})
