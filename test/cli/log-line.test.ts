/** cli/progress.ts logLine: an upstream's log line during `mcpx call`, as one stderr line. */
import { expect, test } from 'bun:test'
import { logLine } from '../../cli/progress.ts'

test('text as it is, other data as JSON, a logger beside the level, no data as nothing', () => {
  expect(logLine('s.t', { level: 'info', data: 'hello' })).toBe('s.t: [info] hello')
  expect(logLine('s.t', { level: 'warning', logger: 'db', data: { rows: [1] } })).toBe('s.t: [warning db] {"rows":[1]}')
  expect(logLine('s.t', { level: 'info' })).toBe('s.t: [info]')
  expect(logLine('s.t', { level: 'error', data: null })).toBe('s.t: [error] null')
})
