/**
 * Era facts belong to the wire room's matrix (lib/wire): outside it, only negotiation
 * (lib/client/connect.ts) and the classifiers may name a revision or compare an era. This pins the
 * count of revision literals and era comparisons in the rest of lib/ so it can only shrink: a new
 * `=== '2025-11-25'` or `era === 'legacy'` fails here, with the file named; move the fact into
 * lib/wire (FEATURES, the method and field tables) instead. Lower CEILING when the count drops.
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { REPO_ROOT } from '../harness.ts'

const LIB = join(REPO_ROOT, 'lib')
const EXEMPT = ['lib/wire/', 'lib/client/connect.ts', 'lib/server/http/classify.ts', 'lib/probe/classify.ts']
/**
 * It may go down, never up. Counted on 2026-12-02 after the era facts moved into the matrix
 * (wire's hasFeature over FEATURES: resumability/polling, batching, id-less errors, the Accept rule,
 * per-revision capabilities, the client's capability and header spelling); lower it as more move.
 */
const CEILING = { revisionLiterals: 8, eraComparisons: 41 }

const REVISION_LITERAL = /(['"`])20\d\d-\d\d-\d\d\1/g
const ERA_COMPARISON =
  /\.era\s*[!=]==?|[!=]==?\s*(['"`])(?:legacy|modern)\1|(['"`])(?:legacy|modern)\2\s*[!=]==?|isModernRevision\(|isLegacyRevision\(|eraOf\(/g

const transpiler = new Bun.Transpiler({ loader: 'ts' })

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : []
  })
}

/** Revision literals and era comparisons in one module's code (comments and types stripped). */
function countIn(source: string): { revisionLiterals: number; eraComparisons: number } {
  const code = transpiler.transformSync(source)
  return { revisionLiterals: code.match(REVISION_LITERAL)?.length ?? 0, eraComparisons: code.match(ERA_COMPARISON)?.length ?? 0 }
}

function census(): { total: { revisionLiterals: number; eraComparisons: number }; byFile: Record<string, string> } {
  const total = { revisionLiterals: 0, eraComparisons: 0 }
  const byFile: Record<string, string> = {}
  for (const file of files(LIB)) {
    const name = relative(REPO_ROOT, file)
    if (EXEMPT.some((prefix) => name.startsWith(prefix))) continue
    const count = countIn(readFileSync(file, 'utf8'))
    total.revisionLiterals += count.revisionLiterals
    total.eraComparisons += count.eraComparisons
    if (count.revisionLiterals + count.eraComparisons > 0)
      byFile[name] = `${count.revisionLiterals} literal(s), ${count.eraComparisons} comparison(s)`
  }
  return { total, byFile }
}

describe('era facts outside lib/wire', () => {
  test('revision literals and era comparisons do not grow', () => {
    const { total, byFile } = census()
    const grew = total.revisionLiterals > CEILING.revisionLiterals || total.eraComparisons > CEILING.eraComparisons
    expect(grew ? { total, ceiling: CEILING, byFile } : 'within the ceiling').toBe('within the ceiling')
  })

  test('the counter sees a planted literal and comparison, and ignores comments', () => {
    expect(
      countIn(
        "// 2025-11-25/basic/transports.mdx '2025-11-25'\nexport const x = (r: string, c: { era: string }) => r === '2025-11-25' || c.era === 'legacy'\n",
      ),
    ).toEqual({ revisionLiterals: 1, eraComparisons: 1 })
  })
})
