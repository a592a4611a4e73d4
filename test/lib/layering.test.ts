/**
 * Pins the room layering of lib/ (README "Layout"): a room imports other rooms only through their
 * index.ts and only downward in LAYERS; cli/ and scripts/ reach lib/ only through a room's door too.
 * Re-derived from the source so no lint override can skip it. Imports are read by TypeScript's own
 * scanner (`ts.preProcessFile`), which sees multi-line imports, `export … from`, `import()` and
 * type-only imports; Bun.Transpiler#scanImports would drop the type-only ones, and a room may not
 * lean on a higher room's types either.
 */
import { describe, expect, test } from 'bun:test'
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import ts from 'typescript'
import { REPO_ROOT } from '../harness.ts'

/** Lowest first. A room may import any room in an earlier layer (and its own files). */
const LAYERS: string[][] = [
  ['errors'],
  ['settings'],
  ['log'],
  ['wire'],
  ['schema'],
  ['transport'],
  ['session'],
  ['auth', 'access'],
  ['server', 'client'],
  ['config'],
  ['replay', 'probe', 'search', 'codemode'],
  ['gateway'],
  ['daemon'],
]
const LIB = join(REPO_ROOT, 'lib')
const rank = new Map(LAYERS.flatMap((rooms, i) => rooms.map((room) => [room, i] as const)))

function roomOf(path: string): string {
  const rel = relative(LIB, path)
  const first = rel.split('/')[0]!
  return first.replace(/\.ts$/, '')
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : []
  })
}

/** Every module specifier `source` imports or re-exports, statically, dynamically or for types only. */
function importsOf(source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map((file) => file.fileName)
}

const isDoor = (target: string, room: string) => target.endsWith(`/lib/${room}/index.ts`) || target.endsWith(`/lib/${room}.ts`)

/** Layering problems of one file at `file` with this source text. */
function violationsOf(file: string, source: string): string[] {
  const out: string[] = []
  const name = relative(REPO_ROOT, file)
  const inLib = file.startsWith(`${LIB}/`)
  const from = inLib ? roomOf(file) : undefined
  for (const spec of importsOf(source)) {
    if (!spec.startsWith('.')) continue
    const target = resolve(dirname(file), spec)
    if (!target.startsWith(`${LIB}/`)) {
      if (inLib) out.push(`${name} imports outside lib/: ${spec}`)
      continue
    }
    const to = roomOf(target)
    if (to === from) continue
    if (!isDoor(target, to)) out.push(`${name} reaches past ${to}/index.ts: ${spec}`)
    if (from === undefined) continue
    const a = rank.get(from)
    const b = rank.get(to)
    if (a === undefined || b === undefined) out.push(`${name}: unknown room ${a === undefined ? from : to}`)
    else if (b >= a) out.push(`${name}: ${from} may not import ${to} (same or higher layer)`)
  }
  return out
}

const allViolations = (dirs: string[]) =>
  dirs.flatMap((dir) => files(join(REPO_ROOT, dir))).flatMap((file) => violationsOf(file, readFileSync(file, 'utf8')))

describe('lib/ layering', () => {
  test('every room imports only lower rooms, through their index.ts', () => {
    expect(allViolations(['lib'])).toEqual([])
  })

  test('cli/ and scripts/ reach lib/ only through a room index.ts', () => {
    expect(allViolations(['cli', 'scripts'])).toEqual([])
  })

  test('a planted violation is seen, multi-line and type-only imports included', () => {
    const wire = join(LIB, 'wire/some-file.ts')
    const multiLine = "import {\n  Upstream,\n  type UpstreamContext,\n} from '../gateway/upstream.ts'\n"
    expect(violationsOf(wire, multiLine)).toEqual([
      'lib/wire/some-file.ts reaches past gateway/index.ts: ../gateway/upstream.ts',
      'lib/wire/some-file.ts: wire may not import gateway (same or higher layer)',
    ])
    expect(violationsOf(wire, "import type { Pool } from '../daemon/index.ts'\n")).toEqual([
      'lib/wire/some-file.ts: wire may not import daemon (same or higher layer)',
    ])
    expect(violationsOf(wire, "const m = await import('../server/index.ts')\n")).toEqual([
      'lib/wire/some-file.ts: wire may not import server (same or higher layer)',
    ])
    expect(
      violationsOf(join(REPO_ROOT, 'cli/commands/x.ts'), "export {\n  DaemonClient,\n} from '../../lib/daemon/daemon-client.ts'\n"),
    ).toEqual(['cli/commands/x.ts reaches past daemon/index.ts: ../../lib/daemon/daemon-client.ts'])
    // Text that only looks like an import is not one.
    expect(violationsOf(wire, "const s = `import('../daemon/index.ts')` // import '../server/index.ts'\n")).toEqual([])
  })

  test('every room under lib/ is in the layer table and has an index.ts door', () => {
    const rooms = readdirSync(LIB).filter((name) => statSync(join(LIB, name)).isDirectory())
    for (const room of rooms) {
      expect(rank.has(room), `room ${room} missing from LAYERS`).toBe(true)
    }
    const withoutDoor = rooms.filter((room) => files(join(LIB, room)).length > 0 && !existsSync(join(LIB, room, 'index.ts')))
    expect(withoutDoor).toEqual([])
  })
})
