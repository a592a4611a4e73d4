/**
 * Tool names as hosts' model APIs take them (shape/model-rules.ts says which hosts and why): the
 * gateway's raw surface names every upstream tool so (gateway naming.ts rawName). naming.ts is on
 * the CLI's start-up path (`mcpx call` splits names with it), so this stays apart from the schema
 * rules, which that path does not load (test/cli/startup-modules.test.ts).
 */
import { PORTABLE_TOOL_NAME_MAX_CHARS } from './constants.ts'

/** What a tool name those APIs take may not hold; at most PORTABLE_TOOL_NAME_MAX_CHARS of the rest. */
const NOT_NAME_CHARACTER = /[^A-Za-z0-9_-]/g

/**
 * `name` as those APIs take it: every other character `_`. A name cut to fit ends in a hash of the
 * whole, so two long names that share their first characters stay two.
 */
export function modelToolName(name: string): string {
  const safe = name.replace(NOT_NAME_CHARACTER, '_')
  if (safe.length <= PORTABLE_TOOL_NAME_MAX_CHARS) return safe
  const hash = Bun.hash.crc32(name).toString(16).padStart(8, '0')
  return `${safe.slice(0, PORTABLE_TOOL_NAME_MAX_CHARS - hash.length - 1)}_${hash}`
}
