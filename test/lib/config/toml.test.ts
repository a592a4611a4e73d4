/** lib/config/toml.ts: the TOML subset Codex configs use. */
import { describe, expect, test } from 'bun:test'
import { parseToml } from '../../../lib/config/index.ts'
import { McpxError } from '../../../lib/errors/index.ts'

describe('parseToml (Codex config subset)', () => {
  test('reads the shapes Codex config.toml uses', () => {
    const text = `
# Codex config
model = "gpt-5"   # trailing comment
approval_policy = 'on-request'

[mcp_servers.github]
command = "npx"
args = [
  "-y",
  "@modelcontextprotocol/server-github", # comment inside an array
]
env = { GITHUB_TOKEN = "\${GH}", "QUOTED KEY" = "v" }
startup_timeout_sec = 20
enabled = true

[mcp_servers.github.env_extra]
A = "1"

[mcp_servers."docs.site"]
url = "https://docs.example/mcp"
bearer_token_env_var = "DOCS_TOKEN"
http_headers.X-Team = "core"

[[profiles.list]]
name = "a"
[[profiles.list]]
name = "b"
ratio = 1_000.5
hex = 0xff
when = 1979-05-27T07:32:00Z
multi = """
line one \\
  continued"""
literal = '''C:\\path\\'''
escaped = "tab\\tquote\\" \\u00e9"
`
    expect(parseToml(text)).toEqual({
      model: 'gpt-5',
      approval_policy: 'on-request',
      mcp_servers: {
        github: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-github'],
          env: { GITHUB_TOKEN: '${GH}', 'QUOTED KEY': 'v' },
          startup_timeout_sec: 20,
          enabled: true,
          env_extra: { A: '1' },
        },
        'docs.site': { url: 'https://docs.example/mcp', bearer_token_env_var: 'DOCS_TOKEN', http_headers: { 'X-Team': 'core' } },
      },
      profiles: {
        list: [
          { name: 'a' },
          {
            name: 'b',
            ratio: 1000.5,
            hex: 255,
            when: '1979-05-27T07:32:00Z',
            multi: 'line one continued',
            literal: 'C:\\path\\',
            escaped: 'tab\tquote" é',
          },
        ],
      },
    })
  })

  test.each([
    ['a = "open', /^f\.toml:1: Unterminated string/],
    ['a = 1\na = 2', /^f\.toml:2: Cannot redefine key 'a'/],
    ['[t]\n[t]', /^f\.toml:2: Cannot redefine table 't'/],
    ['x = 1\na = [1, 2', /^f\.toml:2: Expected ',' or '\]'/],
    ['a = 1 b = 2', /^f\.toml:1: Expected a newline or end of file/],
    ['ok = true\n\n= 1', /^f\.toml:3: Expected a key/],
  ])('rejects %j with a located CONFIG error', (text, message) => {
    expect(() => parseToml(text, 'f.toml')).toThrow(McpxError)
    expect(() => parseToml(text, 'f.toml')).toThrow(message)
  })
})
