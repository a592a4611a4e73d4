/**
 * JSON Schema → TypeScript declarations: rendered for a varied corpus (2020-12 and draft-07,
 * $defs/definitions, recursion, tuples, enums, odd names, refs to files and URLs), written to a temp
 * dir with a usage file (`@ts-expect-error` on misuse), then checked by the real `tsc --strict`.
 */
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type ToolTypeSource, renderDeclarationsFor, renderToolDeclarations } from '../../../lib/codemode/index.ts'
import { REPO_ROOT, tempDir, testSettings } from '../../harness.ts'

// bunfig.toml declares a 60 s test timeout, but Bun 1.4.5 does not apply it (default 5 s); these tests spawn
// processes (sandbox children, tsc, bun build) on a loaded 2-core box, so restore the declared default.
setDefaultTimeout(60_000)

const settings = testSettings()
const options = { maxDepth: settings.typesMaxDepth, maxSchemaBytes: settings.schemaMaxBytes }

const CORPUS: Record<string, ToolTypeSource[]> = {
  github: [
    {
      name: 'list_pull_requests',
      description: 'List pull requests in a GitHub repository. */ not a comment end',
      inputSchema: {
        type: 'object',
        properties: {
          owner: { type: 'string', description: 'Repository owner' },
          repo: { type: 'string' },
          state: { type: 'string', enum: ['open', 'closed', 'all'], default: 'open' },
          'review-requested': { type: ['string', 'null'] },
          per_page: { type: 'integer', minimum: 1, maximum: 100 },
        },
        required: ['owner', 'repo'],
        additionalProperties: false,
      },
      outputSchema: {
        type: 'object',
        properties: { items: { type: 'array', items: { $ref: '#/$defs/PullRequest' } }, total: { type: 'integer' } },
        required: ['items'],
        $defs: {
          PullRequest: {
            type: 'object',
            properties: {
              number: { type: 'integer' },
              user: { $ref: '#/$defs/User' },
              labels: { type: 'array', items: { type: 'string' } },
            },
            required: ['number'],
          },
          User: { type: 'object', properties: { login: { type: 'string' } }, required: ['login'] },
        },
      },
    },
    {
      name: 'get_user',
      inputSchema: { type: 'object', properties: { login: { type: 'string' } }, required: ['login'] },
      // Another tool's `User`: must not collide with list_pull_requests' one.
      outputSchema: { $ref: '#/$defs/User', $defs: { User: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] } } },
    },
  ],
  'weird-server': [
    {
      name: 'get-weather',
      description: 'Forecast',
      inputSchema: { type: 'object', properties: { 'city name': { type: 'string' }, days: { const: 3 } }, required: ['city name'] },
    },
    { name: 'delete', inputSchema: { type: 'object' } },
    { name: '2fa.verify', inputSchema: { type: 'object', properties: { code: { type: 'string', pattern: '^[0-9]{6}$' } } } },
  ],
  shapes: [
    {
      name: 'tree',
      description: 'Recursive and tuple shapes (2020-12).',
      inputSchema: {
        type: 'object',
        properties: {
          node: { $ref: '#/$defs/Node' },
          point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], items: false },
          tagged: { type: 'array', prefixItems: [{ const: 'tag' }], items: { type: 'string' } },
          choice: { oneOf: [{ type: 'string' }, { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }] },
          both: {
            allOf: [
              { type: 'object', properties: { a: { type: 'string' } } },
              { type: 'object', properties: { b: { type: 'number' } } },
            ],
          },
          nullable: { type: 'string', nullable: true },
          map: { type: 'object', additionalProperties: { type: 'integer' } },
          mixed: { type: 'object', properties: { fixed: { type: 'string' } }, additionalProperties: { type: 'number' } },
          self: { $ref: '#' },
          alias: { $ref: '#/properties/nullable' },
          never: false,
          anything: true,
          negative: { enum: [-1, 0, 1.5, 'x', null, true] },
        },
        $defs: {
          Node: {
            type: 'object',
            properties: { value: { type: 'number' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } },
            required: ['value'],
          },
        },
      },
    },
    {
      name: 'legacy',
      description: 'draft-07 definitions and array-form items',
      inputSchema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        definitions: { 'Item-Type': { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
        properties: {
          items: { type: 'array', items: [{ type: 'string' }, { $ref: '#/definitions/Item-Type' }], additionalItems: { type: 'boolean' } },
          withSiblings: { $ref: '#/definitions/Item-Type', description: 'siblings of $ref are ignored in draft-07' },
        },
        required: ['items'],
      },
    },
    {
      name: 'hostile_refs',
      description: 'Refs to files and URLs are never followed',
      inputSchema: {
        type: 'object',
        properties: {
          secret: { $ref: 'file:///etc/passwd' },
          remote: { $ref: 'http://127.0.0.1:1/schema.json' },
          relative: { $ref: 'other.json#/x' },
          missing: { $ref: '#/$defs/Nope' },
          dynamic: { $dynamicRef: '#meta' },
          cycle: { $ref: '#/properties/cycle' },
        },
      },
    },
    { name: 'no_schema' },
    { name: 'deep', inputSchema: nest(40) },
  ],
}

function nest(levels: number): unknown {
  let schema: unknown = { type: 'string' }
  for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { child: schema }, required: ['child'] }
  return schema
}

const USAGE = `
async function usage(): Promise<void> {
  const prs = await github.list_pull_requests({ owner: 'o', repo: 'r', state: 'open' })
  const first: number | undefined = prs.items[0]?.number
  const login: string | undefined = prs.items[0]?.user?.login
  const user = await github.get_user({ login: 'x' })
  const id: number = user.id
  // @ts-expect-error wrong enum value
  await github.list_pull_requests({ owner: 'o', repo: 'r', state: 'merged' })
  // @ts-expect-error missing required field
  await github.list_pull_requests({ owner: 'o' })
  // @ts-expect-error no extra properties when additionalProperties is false
  await github.list_pull_requests({ owner: 'o', repo: 'r', extra: 1 })
  await weird_server.get_weather({ 'city name': 'Oslo', days: 3 })
  // @ts-expect-error const
  await weird_server.get_weather({ 'city name': 'Oslo', days: 4 })
  await weird_server.delete_()
  await weird_server._2fa_verify({ code: '123456' })
  const tree = await shapes.tree({ node: { value: 1, children: [{ value: 2, children: [] }] }, point: [1, 2], tagged: ['tag', 'a', 'b'], choice: { n: 1 }, both: { a: 'x', b: 2 }, map: { k: 1 }, negative: -1 })
  // @ts-expect-error recursive type is checked all the way down
  await shapes.tree({ node: { value: 1, children: [{ value: 'two' }] } })
  // @ts-expect-error tuple of two
  await shapes.tree({ point: [1, 2, 3] })
  await shapes.legacy({ items: ['a', { id: 'x' }, true] })
  await shapes.hostile_refs({ secret: 1, remote: 'anything' })
  await shapes.no_schema({ whatever: 1 })
  const hits = await mcpx.search('pull requests', { limit: 3 })
  const q: string = hits[0]!.qualifiedName
  try { await mcpx.call('github.get_user', { login: 'x' }) } catch (e) { if (e instanceof ToolError) console.log(e.code, e.rpcCode, e.data) }
  void [first, login, id, tree, q]
}
void usage
`

describe('tool declarations', () => {
  test('a varied schema corpus renders to declarations that pass tsc --strict', async () => {
    const declarations = renderToolDeclarations(CORPUS, options)
    using dir = tempDir('mcpx-types')
    writeFileSync(join(dir.path, 'tools.d.ts'), declarations)
    writeFileSync(join(dir.path, 'usage.ts'), USAGE)
    await using proc = Bun.spawn(
      [
        join(REPO_ROOT, 'node_modules/.bin/tsc'),
        '--strict',
        '--noEmit',
        '--target',
        'es2022',
        '--lib',
        'es2022',
        join(dir.path, 'tools.d.ts'),
        join(dir.path, 'usage.ts'),
      ],
      { cwd: dir.path, stdout: 'pipe', stderr: 'pipe' },
    )
    const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    expect({ stdout, stderr, exitCode }).toEqual({ stdout: '', stderr: '', exitCode: 0 })
  })

  test('names match the sandbox aliases; $defs are namespaced per tool; foreign refs become unknown', () => {
    const text = renderToolDeclarations(CORPUS, options)
    expect(text).toContain('declare namespace weird_server {')
    expect(text).toContain('function get_weather(')
    expect(text).toContain('(MCP name: weird-server.get-weather; also callable as ["get-weather"](args) or .call("get-weather", args))')
    expect(text).toContain('type list_pull_requests_Output_User = ')
    expect(text).toContain('type get_user_Output_User = ')
    expect(text).not.toContain('/etc/passwd')
    expect(text).not.toContain('127.0.0.1')
    expect(text).toMatch(/secret\?: unknown;/)
    expect(text).toContain('children?: tree_Input_Node[];')
  })

  test('per search hit: only the named tools, aliases computed from the full namespace list', () => {
    const text = renderDeclarationsFor([{ server: 'shapes', tool: { name: 'a-b' } }], {
      ...options,
      namespaces: { shapes: ['a_b', 'a-b'] },
      withGlobals: false,
    })
    expect(text).toContain('function a_b_2(')
    expect(text).not.toContain('declare const mcpx')
  })

  test('arguments are optional only when an empty object can fit: what allOf, or every anyOf/oneOf branch, requires counts', () => {
    const signature = (inputSchema: Record<string, unknown>) =>
      renderToolDeclarations({ s: [{ name: 't', inputSchema }] }, { ...options, withGlobals: false }).match(/function t\(args(\??):/)![1]
    const needs = (name: string) => ({ required: [name] })
    expect(signature({ type: 'object' })).toBe('?')
    expect(signature({ type: 'object', required: ['a'] })).toBe('')
    expect(signature({ allOf: [{ type: 'object' }, needs('b')] })).toBe('')
    expect(signature({ type: 'object', anyOf: [needs('a'), needs('b')] })).toBe('')
    expect(signature({ type: 'object', oneOf: [needs('a'), { type: 'object' }] })).toBe('?')
  })

  test('schemas over the size cap render as unknown', () => {
    const big = { type: 'object', properties: { x: { type: 'string', description: 'y'.repeat(1000) } } }
    const text = renderToolDeclarations({ s: [{ name: 't', inputSchema: big }] }, { ...options, maxSchemaBytes: 100, withGlobals: false })
    expect(text).toContain('type t_Input = unknown;')
  })
})
