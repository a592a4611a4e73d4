/**
 * Comments in lib/, cli/ and scripts/ cite the spec by path plus a phrase of the rule
 * (`2025-11-25 basic/transports.mdx "Session Management": ...`), never an id a clone of this
 * repository cannot resolve: the rows of a predecessor's transport register (TR-NN), the
 * abbreviations and section signs of the team's spec digest (T26, D2511, SH, `spec-digest §1.3`),
 * the style guide or other notes outside the repository, line numbers into spec files (they move
 * with every edit upstream), or a SEP whose file ../shared/spec/seps/ does not hold. Standards are
 * cited by name and section in words (`RFC 9449 section 7`). The whole text is scanned, strings
 * included: an error message or a `cite:` value is read by people the same way. Tests may keep
 * the ids next to the rule they stand for; this pins only the shipped code.
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { REPO_ROOT } from '../harness.ts'
import { SPEC_ROOT } from '../support/spec-schema.ts'

const ROOMS = ['lib', 'cli', 'scripts']
const SOURCE = /\.(?:ts|mts|cts|js|mjs|cjs)$/

/** Each kind of unresolvable reference, with what to write instead. */
const RULES: readonly { what: string; pattern: RegExp }[] = [
  { what: 'a transport-register row id (write the rule itself)', pattern: /\bTR-\d+\b/g },
  { what: 'a section sign (write "RFC N section S", or the spec path and its heading)', pattern: /§/g },
  {
    what: 'a spec-digest abbreviation (write the spec path: 2026-07-28 basic/..., schema/schema.json)',
    pattern: /\b(?:[TD]2(?:411|503|506|511|6)|SH|EXT-TASKS)\b/g,
  },
  {
    what: 'a note outside the repository (write the rule or the measured fact)',
    pattern:
      /spec-digest|\bSTYLE\b|STYLE\.md|codemode-findings|conformance-findings|perf-anchors|scale-and-gateways|peers\.md|mcp-apps\.md|shared\/notes/g,
  },
  { what: 'a line number into a spec file (cite the heading instead)', pattern: /\.mdx?:\d+|schema\.ts:\d+/g },
]

/** SEP numbers whose file the spec checkout beside the repository holds (`seps/<n>-<title>.md`). */
const KNOWN_SEPS = new Set(
  readdirSync(join(SPEC_ROOT, 'seps'))
    .map((name) => name.match(/^(\d+)-/)?.[1])
    .filter((n): n is string => n !== undefined),
)

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : SOURCE.test(path) ? [path] : []
  })
}

/** `line: found — what` for every unresolvable reference in one file's text. */
function violations(text: string): string[] {
  const found: string[] = []
  text.split('\n').forEach((line, index) => {
    for (const rule of RULES) for (const match of line.matchAll(rule.pattern)) found.push(`${index + 1}: ${match[0]} — ${rule.what}`)
    for (const match of line.matchAll(/\bSEP-(\d+)\b/g)) {
      if (!KNOWN_SEPS.has(match[1]!))
        found.push(`${index + 1}: ${match[0]} — a SEP not in ../shared/spec/seps/ (cite the spec page that adopted it)`)
    }
  })
  return found
}

describe('comment citations', () => {
  test('lib/, cli/ and scripts/ cite spec paths and rules, never ids the repository does not contain', () => {
    const offenders = ROOMS.flatMap((room) => files(join(REPO_ROOT, room))).flatMap((file) =>
      violations(readFileSync(file, 'utf8')).map((found) => `${relative(REPO_ROOT, file)}:${found}`),
    )
    expect(offenders).toEqual([])
  })

  test('a planted id of each kind is seen; a path-plus-phrase citation is not', () => {
    const planted = [
      '// TR-29: one re-initialize.',
      ' * (spec-digest §1.3; STYLE §2.3)',
      '// T26 Result, D2511/basic/lifecycle.mdx:40 and SH "Cancellation"',
      '/** as in perf-anchors.md part 3, SEP-1932 */',
    ].join('\n')
    expect(violations(planted).map((found) => found.split(' — ')[0])).toEqual([
      '1: TR-29',
      '2: §',
      '2: §',
      '2: spec-digest',
      '2: STYLE',
      '3: T26',
      '3: D2511',
      '3: SH',
      '3: .mdx:40',
      '4: perf-anchors',
      '4: SEP-1932',
    ])
    const clean = [
      '// 2025-11-25 basic/transports.mdx "Session Management": the session id MUST be visible ASCII only.',
      '/** RFC 9449 section 7: a fresh proof per request; 2026-07-28 schema/schema.json Result. */',
      ' * (seps/1699-support-sse-polling-via-server-side-disconnect.md; SEP-2663 tasks extension)',
      'const SHA = "SHA-256" // TRACE-1, STYLES, D260',
    ].join('\n')
    expect(violations(clean)).toEqual([])
  })
})
