/**
 * Comments in lib/, cli/ and scripts/ cite the spec by path plus a phrase (`2025-11-25
 * basic/transports.mdx "Session Management"`), never an id a clone of this repository does not
 * contain: no requirement-table ids (`TR-05`), no legend abbreviations of the notes (`T26`, `D26`,
 * `D2503/`, `SH:233`), no section numbers of the notes or the style guide (`spec-digest §1.3`,
 * `STYLE §2.3`). A `§` is fine after a published document's name (`RFC 9449 §5`, `OAuth 2.1 §4.1`,
 * `JSON-RPC 2.0 §5.1`, `NIST SP 800-38D §8.2`). Tests may keep an id next to the rule it names.
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { REPO_ROOT } from '../harness.ts'

const DIRS = ['lib', 'cli', 'scripts']
const FOREIGN_ID = /\bTR-\d+\b|\b[TD]2\d{1,3}\b|\bSH(?::\d|\s+")|spec-digest\s*§|STYLE\s*§|STYLE\.md\s*§/g
/** A published document whose sections a `§` may number, no further back than this on the line. */
const DOCUMENT_BEFORE = /(?:RFC \d+|OAuth 2\.1|JSON-RPC 2\.0|SP 800-38D)\b[^§]{0,40}(?:§[\d.]+[^§]{0,12})*$/

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? (name === 'node_modules' ? [] : files(path)) : /\.(ts|js|mjs)$/.test(path) ? [path] : []
  })
}

/** The foreign ids and unanchored `§`s of one file's text, as `line: text`. */
function findings(text: string): string[] {
  const out: string[] = []
  text.split('\n').forEach((line, index) => {
    for (const match of line.matchAll(FOREIGN_ID)) out.push(`${index + 1}: ${match[0]}`)
    for (const match of line.matchAll(/§/g)) {
      if (!DOCUMENT_BEFORE.test(line.slice(0, match.index))) out.push(`${index + 1}: ${line.slice(match.index).split(/[\s,]/)[0]} without a document before it`)
    }
  })
  return out
}

describe('comments cite what a clone contains', () => {
  test('no requirement ids, note abbreviations or note section numbers in lib/, cli/, scripts/', () => {
    const offenders = DIRS.flatMap((dir) => files(join(REPO_ROOT, dir))).flatMap((file) => findings(readFileSync(file, 'utf8')).map((found) => `${relative(REPO_ROOT, file)}:${found}`))
    expect(offenders).toEqual([])
  })

  test('a planted id is seen; a published document section is not', () => {
    const planted = "// (TR-05) and T26 Result, D2503/basic/index.mdx, SH:233-240, SH \"Cancellation\"\n// spec-digest §1.3, STYLE §2.3, see §4\n"
    expect(findings(planted)).toEqual(['1: TR-05', '1: T26', '1: D2503', '1: SH:2', '1: SH "', '2: spec-digest §', '2: STYLE §', '2: §1.3 without a document before it', '2: §2.3 without a document before it', '2: §4 without a document before it'])
    expect(findings('// RFC 9449 §8 AS, §9 resource server; OAuth 2.1 §4.1; JSON-RPC 2.0 §5.1; NIST SP 800-38D §8.2\n')).toEqual([])
  })
})
