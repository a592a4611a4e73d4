/** The README's error-code list (section "Exit codes") names every code of the McpxError tree, no more, no fewer. */
import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ERROR_CODES } from '../../lib/errors/index.ts'
import { REPO_ROOT } from '../harness.ts'

test('every ErrorCode is in the README list (CANCELLED included)', () => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')
  const list = /`code` is a stable string \(([^)]*)\)/.exec(readme)?.[1]
  expect(list).toBeDefined()
  const named = [...list!.matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]).sort()
  expect(named).toEqual(Object.keys(ERROR_CODES).sort())
})
