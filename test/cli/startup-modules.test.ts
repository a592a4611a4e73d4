/**
 * What the start-up paths load (README "Start-up and memory"). The CLI is bundled as
 * scripts/build.ts bundles it (same splitting), and the modules that `mcpx --version` and a warm
 * `mcpx call` load are read from bun's metafile: every chunk reached by static imports from the
 * entry, and from the call command's chunk. A door (a room's index.ts) costs nothing there, since
 * "sideEffects": false drops the re-exports a chunk does not use; what costs is a used module's own
 * imports. So this pins modules, not doors: none of what a warm call does without may come back.
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { BUNDLE_FLAGS } from '../../scripts/build.ts'
import { REPO_ROOT, tempDir } from '../harness.ts'

interface Metafile {
  readonly inputs: Record<string, { readonly imports: { path: string; kind: string }[] }>
  readonly outputs: Record<
    string,
    { readonly entryPoint?: string; readonly inputs: Record<string, unknown>; readonly imports: { path: string; kind: string }[] }
  >
}

/** Input modules of every chunk `entry`'s chunk reaches by static imports. */
function staticModules(meta: Metafile, entry: string): string[] {
  const start = Object.keys(meta.outputs).find((chunk) => meta.outputs[chunk]!.entryPoint === entry)
  if (start === undefined) throw new Error(`no chunk has entry point ${entry}`)
  const seen = new Set<string>()
  const visit = (chunk: string) => {
    if (seen.has(chunk)) return
    seen.add(chunk)
    for (const { path, kind } of meta.outputs[chunk]!.imports) if (kind === 'import-statement' && path in meta.outputs) visit(path)
  }
  visit(start)
  return [...seen].flatMap((chunk) => Object.keys(meta.outputs[chunk]!.inputs))
}

/** Modules a warm call has no use for (each was once on its path, or is one import away from it). */
const NOT_AT_START = [
  /node_modules\/(valibot|consola|ofetch|jose|@cfworker|quickjs-emscripten-core)\//,
  /^lib\/config\/(load|schema|hosts|import-hosts|install-host|toml)\.ts$/,
  /^lib\/(access|auth|client|server|session|schema|codemode|search|replay|probe)\//,
  /^lib\/wire\/(shape|matrix|params)\//,
  /^lib\/gateway\/(?!naming\.ts$)/,
  /^lib\/daemon\/(operations|api-routes|daemon|gateway|routes|security|channel|serve-shim(?:-[a-z]+)?|spawn|host-questions)\.ts$/,
  /^cli\/(help|configured-context|direct-session|signature|elicit-form)\.ts$/,
]

describe('start-up modules', () => {
  test('`mcpx --version` and a warm `mcpx call` load none of what they do not use, nor the daemon features it does not use yet', async () => {
    using dir = tempDir('mcpx-startup-modules')
    const metafile = join(dir.path, 'meta.json')
    const build = Bun.spawn(
      [
        process.execPath,
        'build',
        ...BUNDLE_FLAGS,
        '--target=bun',
        'cli/main.ts',
        '--outdir',
        join(dir.path, 'out'),
        `--metafile=${metafile}`,
      ],
      { cwd: REPO_ROOT, stdout: 'ignore', stderr: 'pipe' },
    )
    expect(await build.exited, await new Response(build.stderr).text()).toBe(0)
    const meta = JSON.parse(readFileSync(metafile, 'utf8')) as Metafile
    const version = staticModules(meta, 'cli/main.ts')
    const call = [...new Set([...version, ...staticModules(meta, 'cli/commands/call.ts')])]
    // The walk sees the call's own path: its client of the daemon and the cached schemas.
    expect(call).toEqual(expect.arrayContaining(['cli/commands/call.ts', 'lib/daemon/daemon-client.ts', 'cli/schema-cache.ts']))
    expect(version).not.toContain('lib/settings/index.ts')
    const unused = (modules: string[]) => modules.filter((module) => NOT_AT_START.some((pattern) => pattern.test(module)))
    expect(unused(version)).toEqual([])
    expect(unused(call)).toEqual([])
    // The daemon loads the OAuth client (lib/auth) with its first HTTP upstream that can use it and the
    // resource server with `mcpAuthIssuer`, each with jose (lib/daemon/upstream-oauth.ts, mcp-auth.ts), and
    // lib/replay with the first connection of a server whose config records (lib/gateway/upstream-recording.ts).
    const daemon = [...new Set([...version, ...staticModules(meta, 'cli/commands/daemon.ts')])]
    expect(daemon).toEqual(expect.arrayContaining(['lib/daemon/gateway.ts', 'lib/daemon/upstream-auth.ts']))
    const onlyWhenConfigured = [
      /node_modules\/jose\//,
      /^lib\/auth\/(?!(upstream-config|index)\.ts$)/,
      /^lib\/access\/resource-server\.ts$/,
      /^lib\/daemon\/(upstream-oauth|mcp-auth)\.ts$/,
      /^lib\/replay\//,
      /^lib\/gateway\/upstream-recording\.ts$/,
      // The schema interpreter loads when a value first fails the accept-check or its schema has none (lib/schema/interpreter.ts).
      /node_modules\/@cfworker\//,
      /^lib\/schema\/interpreter\.ts$/,
      // Code mode's search index and declarations load with the first search or types (lib/gateway/code-mode-catalog.ts),
      // the HTTP transports with the first HTTP upstream (lib/client/http-transports.ts).
      /^lib\/search\//,
      /^lib\/codemode\/(schema-to-ts|render-types)\.ts$/,
      /^lib\/gateway\/code-mode-catalog\.ts$/,
      /^lib\/transport\/(http-client|sse-client|http-fetch)\.ts$/,
      /^lib\/client\/http-transports\.ts$/,
      // Replica forwarding and Redis load with replicaId and redisUrl (lib/daemon/gateway.ts).
      /^lib\/daemon\/(replica-forward|shared-state)\.ts$/,
    ]
    expect(daemon.filter((module) => onlyWhenConfigured.some((pattern) => pattern.test(module)))).toEqual([])
    // Bun builds a node: module when it is imported (node:crypto: about 1 MB of the daemon's RSS): seal.ts require()s
    // node:crypto when it first seals, config-notices.ts node:os with Redis; child_process is the starter's (spawn.ts).
    const importsBuiltin = (module: string) =>
      (meta.inputs[module]?.imports ?? []).some(
        ({ path, kind }) => /^(node:)?(crypto|child_process|url|os)$/.test(path) && kind === 'import-statement',
      )
    expect(daemon.filter(importsBuiltin)).toEqual([])
  })
})
