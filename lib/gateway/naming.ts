/**
 * How upstream names appear downstream. `ns.tool` (CLI and mcpx_call: the FIRST dot splits, so tool
 * names may contain dots), `<ns>_<tool>` on the raw MCP surface (rawName: what hosts' tool-name
 * rules accept), and `mcpx://<ns>/<uri>` for resources. Raw names are resolved through a table,
 * never parsed, because server and tool names may both contain `_`.
 */
import { McpxError } from '../errors/index.ts'
import { modelToolName } from '../wire/index.ts'

export interface QualifiedName {
  readonly server: string
  readonly tool: string
}

export function splitQualified(name: string): QualifiedName {
  const dot = name.indexOf('.')
  if (dot <= 0 || dot === name.length - 1) {
    throw new McpxError('USAGE', `"${name}" is not <server>.<tool> (the first dot separates the server from the tool)`, { name })
  }
  return { server: name.slice(0, dot), tool: name.slice(dot + 1) }
}

/** A name on the raw surface, which hosts hand to model APIs as a function name (wire modelToolName). */
export function rawName(server: string, item: string): string {
  return modelToolName(`${server}_${item}`)
}

const RESOURCE_SCHEME = 'mcpx://'
export function gatewayResourceUri(server: string, uri: string): string {
  return `${RESOURCE_SCHEME}${server}/${uri}`
}

/**
 * NOT_FOUND for a tool `server` does not list, suggesting the closest of its `names` as mcpx_call, the
 * CLI and mcpx_exec's namespaces name them (`server.tool`), or bare for an ad-hoc server that has no name.
 */
export function unknownToolError(server: string, tool: string, names: readonly string[], bare = false): McpxError {
  const hint = suggest(tool, names)
  const shown = bare ? hint : hint.map((name) => `${server}.${name}`)
  return new McpxError(
    'NOT_FOUND',
    `server "${server}" has no tool "${tool}"${shown.length ? ` (did you mean ${shown.join(', ')}?)` : ''}`,
    {
      server,
      tool,
      suggestions: hint,
    },
  )
}

/** Closest names for "did you mean": by edit distance, then shared prefix. */
export function suggest(name: string, candidates: readonly string[], limit = 3): string[] {
  const scored = candidates.map((c) => ({ c, d: editDistance(name.toLowerCase(), c.toLowerCase()) }))
  const threshold = Math.max(2, Math.floor(name.length / 3))
  return scored
    .filter((s) => s.d <= threshold || s.c.toLowerCase().includes(name.toLowerCase()))
    .sort((a, b) => a.d - b.d)
    .slice(0, limit)
    .map((s) => s.c)
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    prev = row
  }
  return prev[b.length]!
}
