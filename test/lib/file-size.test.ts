/**
 * Pins the house rule "small files": no lib/ file over MAX_LINES lines (README "Layout": one concept,
 * one owner; a file past this size holds more than one concept a reader would look for by name).
 * STILL_BEING_SPLIT is temporary: it names the files whose split is under way, and it can only
 * shrink — a listed file back under the limit fails the test until it is taken off the list.
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { REPO_ROOT } from '../harness.ts'

const MAX_LINES = 400
/** Over the limit while their split is under way; empty it, do not add to it. */
const STILL_BEING_SPLIT = new Set<string>([])

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : []
  })
}

/** Lines as `wc -l` counts them, plus a last line without its newline. */
function linesOf(text: string): number {
  const newlines = text.split('\n').length - 1
  return text.endsWith('\n') || text === '' ? newlines : newlines + 1
}

const sizes = files(join(REPO_ROOT, 'lib')).map((path) => ({
  file: relative(REPO_ROOT, path),
  lines: linesOf(readFileSync(path, 'utf8')),
}))

describe('lib/ file size', () => {
  test(`no lib file is over ${MAX_LINES} lines, but those still being split`, () => {
    const over = sizes.filter(({ file, lines }) => lines > MAX_LINES && !STILL_BEING_SPLIT.has(file))
    expect(over.map(({ file, lines }) => `${file}: ${lines} lines (split it along its concepts)`)).toEqual([])
  })

  test('STILL_BEING_SPLIT only shrinks: each listed file exists and is still over the limit', () => {
    const lines = new Map(sizes.map(({ file, lines }) => [file, lines]))
    const stale = [...STILL_BEING_SPLIT].filter((file) => (lines.get(file) ?? 0) <= MAX_LINES)
    expect(stale.map((file) => `${file}: ${lines.get(file) ?? 'gone'}; take it off STILL_BEING_SPLIT`)).toEqual([])
  })

  test('lines are counted as wc -l counts them', () => {
    expect([linesOf(''), linesOf('a\n'), linesOf('a\nb'), linesOf('a\nb\n')]).toEqual([0, 1, 2, 2])
  })
})
