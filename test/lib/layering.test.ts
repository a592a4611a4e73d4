/**
 * Pins the room layering of lib/ (README "Layout"): a room imports other rooms only through their
 * index.ts and only downward in LAYERS. Re-derived from the source so no lint override can skip it.
 */
import { describe, expect, test } from 'bun:test'
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { REPO_ROOT } from '../harness.ts'

/** Lowest first. A room may import any room in an earlier layer (and its own files). */
const LAYERS: string[][] = [
  ['errors'],
  ['settings'],
  ['log'],
  ['wire'],
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

const IMPORT = /(?:^|\n)\s*(?:import|export)[^'"\n]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g

describe('lib/ layering', () => {
  const violations: string[] = []
  for (const file of files(LIB)) {
    const from = roomOf(file)
    const source = readFileSync(file, 'utf8')
    for (const match of source.matchAll(IMPORT)) {
      const spec = match[1] ?? match[2]!
      if (!spec.startsWith('.')) continue
      const target = resolve(dirname(file), spec)
      if (!target.startsWith(`${LIB}/`)) {
        violations.push(`${relative(REPO_ROOT, file)} imports outside lib/: ${spec}`)
        continue
      }
      const to = roomOf(target)
      if (to === from) continue
      const isDoor = target.endsWith(`/lib/${to}/index.ts`) || target.endsWith(`/lib/${to}.ts`)
      if (!isDoor) violations.push(`${relative(REPO_ROOT, file)} reaches past ${to}/index.ts: ${spec}`)
      const a = rank.get(from)
      const b = rank.get(to)
      if (a === undefined || b === undefined) violations.push(`${relative(REPO_ROOT, file)}: unknown room ${a === undefined ? from : to}`)
      else if (b >= a) violations.push(`${relative(REPO_ROOT, file)}: ${from} may not import ${to} (same or higher layer)`)
    }
  }

  test('every room imports only lower rooms, through their index.ts', () => {
    expect(violations).toEqual([])
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
