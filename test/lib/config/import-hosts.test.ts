/** lib/config/import-hosts.ts and install-host.ts: reading and writing MCP hosts' configs. */
import { describe, expect, test } from 'bun:test'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { type HostEnv, installHost, uninstallHost, parseToml, planImport, stripJsonc, writeImport } from '../../../lib/config/index.ts'
import { tempDir } from '../../harness.ts'

function put(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
}

function hostEnv(root: string): HostEnv {
  const env = { home: join(root, 'home'), cwd: join(root, 'project'), platform: 'linux' as const }
  mkdirSync(env.home, { recursive: true })
  mkdirSync(env.cwd, { recursive: true })
  return env
}

describe('planImport', () => {
  test('reads every host shape (peers.md §E) and normalises keys, types and placeholders', () => {
    using dir = tempDir('mcpx-import')
    const env = hostEnv(dir.path)
    put(
      join(env.home, '.claude.json'),
      JSON.stringify({
        mcpServers: { 'user-srv': { type: 'stdio', command: 'uvx', args: ['srv'], env: { K: '${K:-x}' } } },
        projects: {
          [env.cwd]: {
            mcpServers: { 'local-http': { type: 'http', url: 'https://local.example/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } } },
          },
        },
      }),
    )
    put(join(env.cwd, '.mcp.json'), JSON.stringify({ mcpServers: { 'project.srv': { command: 'node', args: ['s.js'] } } }))
    put(
      join(env.home, '.config', 'Claude', 'claude_desktop_config.json'),
      JSON.stringify({ mcpServers: { desk: { command: 'desk-srv' } } }),
    )
    put(
      join(env.home, '.cursor', 'mcp.json'),
      JSON.stringify({ mcpServers: { cur: { url: 'https://cursor.example/mcp', headers: { 'X-Key': '${env:CURSOR_KEY}' } } } }),
    )
    put(
      join(env.cwd, '.vscode', 'mcp.json'),
      `{
      // VS Code allows comments
      "inputs": [{ "id": "tok", "type": "promptString" }],
      "servers": {
        "vs": { "type": "stdio", "command": "node", "args": ["\${workspaceFolder}/srv.js"], },
        "vs-remote": { "type": "sse", "url": "https://vs.example/sse" },
        "needs-input": { "type": "http", "url": "https://x.example", "headers": { "Authorization": "Bearer \${input:tok}" } },
      },
    }`,
    )
    put(
      join(env.home, '.codeium', 'windsurf', 'mcp_config.json'),
      JSON.stringify({ mcpServers: { wind: { serverUrl: 'https://wind.example/mcp' } } }),
    )
    put(
      join(env.home, '.gemini', 'settings.json'),
      JSON.stringify({
        mcpServers: {
          gem: { httpUrl: 'https://gem.example/mcp', includeTools: ['a'] },
          gemsse: { url: 'https://gem.example/sse', excludeTools: ['b'] },
          gemstdio: { command: 'g', env: { API_KEY: '$GEMINI_KEY' } },
        },
      }),
    )
    put(
      join(env.home, '.codex', 'config.toml'),
      `
[mcp_servers.codex-gh]
command = "npx"
args = ["-y", "gh-server"]
env_vars = ["GH_TOKEN"]
[mcp_servers.codex-gh.env]
LOG = "debug"

[mcp_servers.codex-remote]
url = "https://codex.example/mcp"
bearer_token_env_var = "CODEX_TOKEN"
env_http_headers = { "X-Org" = "ORG_ID" }

[mcp_servers.codex-off]
command = "off"
enabled = false
`,
    )
    put(
      join(env.home, '.config', 'opencode', 'opencode.json'),
      JSON.stringify({
        mcp: {
          oc: { type: 'local', command: ['bun', 'x', 'oc-server'], environment: { KEY: '{env:OC_KEY}' }, enabled: true },
          ocr: { type: 'remote', url: 'https://oc.example/mcp', headers: { A: 'b' } },
        },
      }),
    )

    const plan = planImport(['claude-code', 'claude-desktop', 'cursor', 'vscode', 'windsurf', 'gemini', 'codex', 'opencode'], env, [], {
      includeProject: true,
    })
    const entries = Object.fromEntries(plan.imported.map((server) => [server.name, server.entry]))
    expect(entries).toEqual({
      'local-http': { url: 'https://local.example/mcp', transport: 'streamable-http', headers: { Authorization: 'Bearer ${TOKEN}' } },
      'project-srv': { command: 'node', args: ['s.js'] },
      'user-srv': { command: 'uvx', args: ['srv'], env: { K: '${K:-x}' } },
      desk: { command: 'desk-srv' },
      cur: { url: 'https://cursor.example/mcp', headers: { 'X-Key': '${CURSOR_KEY}' } },
      vs: { command: 'node', args: [`${env.cwd}/srv.js`] },
      'vs-remote': { url: 'https://vs.example/sse', transport: 'sse' },
      wind: { url: 'https://wind.example/mcp' },
      gem: { url: 'https://gem.example/mcp', transport: 'streamable-http', allowedTools: ['a'] },
      gemsse: { url: 'https://gem.example/sse', transport: 'sse', blockedTools: ['b'] },
      gemstdio: { command: 'g', env: { API_KEY: '${GEMINI_KEY}' } },
      'codex-gh': { command: 'npx', args: ['-y', 'gh-server'], env: { LOG: 'debug', GH_TOKEN: '${GH_TOKEN}' } },
      'codex-remote': { url: 'https://codex.example/mcp', headers: { 'X-Org': '${ORG_ID}', Authorization: 'Bearer ${CODEX_TOKEN}' } },
      oc: { command: 'bun', args: ['x', 'oc-server'], env: { KEY: '${OC_KEY}' } },
      ocr: { url: 'https://oc.example/mcp', headers: { A: 'b' } },
    })
    expect(plan.imported.find((server) => server.name === 'local-http')).toMatchObject({ host: 'claude-code', scope: 'local' })
    expect(plan.skipped.map(({ name, host, reason }) => ({ name, host, reason }))).toEqual([
      { name: 'needs-input', host: 'vscode', reason: 'uses ${input:tok}, which only VS Code can resolve' },
      { name: 'codex-off', host: 'codex', reason: 'disabled in Codex' },
    ])
  })

  test('names already in the mcpx config or imported from an earlier host are skipped, with the owner', () => {
    using dir = tempDir('mcpx-import')
    const env = hostEnv(dir.path)
    put(join(env.home, '.cursor', 'mcp.json'), JSON.stringify({ mcpServers: { a: { command: 'a' }, b: { command: 'b' } } }))
    put(
      join(env.home, '.codeium', 'windsurf', 'mcp_config.json'),
      JSON.stringify({ mcpServers: { b: { command: 'other-b' }, broken: { command: 7, url: 3 } } }),
    )
    const plan = planImport(['cursor', 'windsurf'], env, ['a'])
    expect(plan.imported.map((server) => server.name)).toEqual(['b'])
    expect(plan.skipped.map((server) => [server.name, server.reason])).toEqual([
      ['a', '"a" is already defined by the mcpx config'],
      ['b', `"b" is already defined by cursor (${join(env.home, '.cursor', 'mcp.json')})`],
      ['broken', 'command must be a string or an array of strings'],
    ])
  })

  test('a host file that does not parse is one skipped line naming it', () => {
    using dir = tempDir('mcpx-import')
    const env = hostEnv(dir.path)
    put(join(env.home, '.cursor', 'mcp.json'), '{ nope')
    const plan = planImport(['cursor'], env, [])
    expect(plan.imported).toEqual([])
    expect(plan.skipped[0]).toMatchObject({ name: '*', host: 'cursor' })
    expect(plan.skipped[0]!.reason).toStartWith(`${join(env.home, '.cursor', 'mcp.json')}: not valid JSON`)
  })

  test('writeImport adds to an existing config, keeps its other sections, and backs it up', () => {
    using dir = tempDir('mcpx-import')
    const file = join(dir.path, 'mcpx', 'config.json')
    put(file, JSON.stringify({ settings: { requestTimeoutMs: 5 }, mcpServers: { old: { command: 'old' } } }))
    const backup = writeImport(file, [{ name: 'new', host: 'cursor', file: 'x', scope: 'user', entry: { command: 'new' } }])
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      settings: { requestTimeoutMs: 5 },
      mcpServers: { old: { command: 'old' }, new: { command: 'new' } },
    })
    expect(JSON.parse(readFileSync(backup!, 'utf8')).mcpServers).toEqual({ old: { command: 'old' } })
  })

  test('writeImport keeps the file as its author laid it out, adding each entry in its indentation', () => {
    using dir = tempDir('mcpx-import')
    const file = join(dir.path, 'mcpx', 'config.json')
    put(file, '{\n    "mcpServers": {\n        "old": { "command": "old" }\n    },\n    "settings": { "requestTimeoutMs": 5 }\n}\n')
    writeImport(file, [
      { name: 'a', host: 'cursor', file: 'x', scope: 'user', entry: { command: 'a' } },
      { name: 'b', host: 'cursor', file: 'x', scope: 'user', entry: { command: 'b' } },
    ])
    expect(readFileSync(file, 'utf8')).toBe(
      '{\n    "mcpServers": {\n        "old": { "command": "old" },\n        "a": {\n            "command": "a"\n        },\n' +
        '        "b": {\n            "command": "b"\n        }\n    },\n    "settings": { "requestTimeoutMs": 5 }\n}\n',
    )
  })
})

describe('installHost', () => {
  test.each([
    [
      'claude-desktop',
      '.config/Claude/claude_desktop_config.json',
      (doc: any) => doc.mcpServers.mcpx,
      { command: 'mcpx', args: ['serve'] },
    ],
    ['claude-code', '.claude.json', (doc: any) => doc.mcpServers.mcpx, { type: 'stdio', command: 'mcpx', args: ['serve'], env: {} }],
    ['cursor', '.cursor/mcp.json', (doc: any) => doc.mcpServers.mcpx, { command: 'mcpx', args: ['serve'] }],
    ['vscode', '.config/Code/User/mcp.json', (doc: any) => doc.servers.mcpx, { type: 'stdio', command: 'mcpx', args: ['serve'] }],
    ['windsurf', '.codeium/windsurf/mcp_config.json', (doc: any) => doc.mcpServers.mcpx, { command: 'mcpx', args: ['serve'] }],
    ['gemini', '.gemini/settings.json', (doc: any) => doc.mcpServers.mcpx, { command: 'mcpx', args: ['serve'] }],
    [
      'opencode',
      '.config/opencode/opencode.json',
      (doc: any) => doc.mcp.mcpx,
      { type: 'local', command: ['mcpx', 'serve'], enabled: true },
    ],
  ] as const)('%s: creates, then is unchanged, keeping other entries', (host, relative, pick, expected) => {
    using dir = tempDir('mcpx-install')
    const env = hostEnv(dir.path)
    const file = join(env.home, relative)
    expect(installHost(host, env)).toMatchObject({ action: 'created', file, backup: null })
    expect(pick(JSON.parse(stripJsonc(readFileSync(file, 'utf8')).json))).toEqual(expected)
    expect(installHost(host, env).action).toBe('unchanged')
  })

  test('Linux app configs follow $XDG_CONFIG_HOME when it is set', () => {
    using dir = tempDir('mcpx-install')
    const env = { ...hostEnv(dir.path), configHome: join(dir.path, 'xdg') }
    expect(installHost('claude-desktop', env).file).toBe(join(dir.path, 'xdg', 'Claude', 'claude_desktop_config.json'))
    expect(installHost('opencode', env).file).toBe(join(dir.path, 'xdg', 'opencode', 'opencode.json'))
    expect(installHost('claude-desktop', { ...env, platform: 'darwin' }).file).toBe(
      join(env.home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json'),
    )
  })

  test('adds next to existing servers, backs the file up first, keeps comments and layout; uninstall takes only it out', () => {
    using dir = tempDir('mcpx-install')
    const env = hostEnv(dir.path)
    const file = join(env.home, '.config', 'Code', 'User', 'mcp.json')
    const original = '{\n  // mine\n  "servers": {\n    "keep": { "type": "stdio", "command": "k" }, // the old one\n  },\n}\n'
    put(file, original)
    const dry = installHost('vscode', env, { dryRun: true })
    expect(dry).toMatchObject({ action: 'added', backup: null })
    expect(readFileSync(file, 'utf8')).toBe(original)
    const result = installHost('vscode', env)
    expect(result).toMatchObject({ action: 'added', droppedComments: false })
    expect(readFileSync(result.backup!, 'utf8')).toBe(original)
    expect(readFileSync(file, 'utf8')).toBe(
      '{\n  // mine\n  "servers": {\n    "keep": { "type": "stdio", "command": "k" }, // the old one\n' +
        '    "mcpx": {\n      "type": "stdio",\n      "command": "mcpx",\n      "args": [\n        "serve"\n      ]\n    },\n  },\n}\n',
    )
    expect(uninstallHost('vscode', env)).toMatchObject({ action: 'removed', droppedComments: false })
    expect(readFileSync(file, 'utf8')).toBe(original)
  })

  test('a file laid out so the entry cannot be placed as text is written whole, saying the comments went (the backup has them)', () => {
    using dir = tempDir('mcpx-install')
    const env = hostEnv(dir.path)
    const file = join(env.home, '.config', 'Code', 'User', 'mcp.json')
    // "servers" is no object: the text edit declines, the whole rewrite puts an object there.
    put(file, '{\n  // mine\n  "servers": null\n}\n')
    const result = installHost('vscode', env)
    expect(result).toMatchObject({ action: 'added', droppedComments: true })
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ servers: { mcpx: { type: 'stdio', command: 'mcpx', args: ['serve'] } } })
  })

  test('codex: appends a TOML table, replaces an outdated one with its sub-tables, keeps the rest', () => {
    using dir = tempDir('mcpx-install')
    const env = hostEnv(dir.path)
    const file = join(env.home, '.codex', 'config.toml')
    put(
      file,
      'model = "gpt-5"\n\n[mcp_servers.other]\ncommand = "o"\n\n[mcp_servers.mcpx]\ncommand = "/old/mcpx"\n\n[mcp_servers.mcpx.env]\nA = "1"\n\n[profiles.x]\nmodel = "m"\n',
    )
    const result = installHost('codex', env)
    expect(result.action).toBe('updated')
    expect(parseToml(readFileSync(file, 'utf8'))).toEqual({
      model: 'gpt-5',
      mcp_servers: { other: { command: 'o' }, mcpx: { command: 'mcpx', args: ['serve'] } },
      profiles: { x: { model: 'm' } },
    })
    expect(installHost('codex', env).action).toBe('unchanged')
  })
})
