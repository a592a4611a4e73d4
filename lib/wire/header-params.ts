/**
 * Which HTTP headers a request must carry per revision, and the `x-mcp-header` rules that turn tool
 * arguments into `Mcp-Param-*` headers (2026-07-28 basic/transports/streamable-http.mdx "Standard
 * Request Headers", "Custom Headers from Tool Parameters"; server/tools.mdx "x-mcp-header").
 * A tool whose annotations break any rule is invalid as a whole: HTTP clients drop it from tools/list.
 */
import { McpxError } from '../errors/index.ts'
import { HEADER, isModernRevision, atLeast, type Revision } from './constants.ts'
import { encodeHeaderValue, MAX_HEADER_INTEGER } from './header-codec.ts'
import { isRecord } from './jsonrpc.ts'
import { SUBSCHEMA_LIST, SUBSCHEMA_MAP, SUBSCHEMA_ONE } from './schema-keywords.ts'

/** One mirrored argument: `header` is the full name (`Mcp-Param-Region`), `path` the `properties` chain. */
export interface HeaderParam {
  header: string
  name: string
  path: string[]
  type: 'string' | 'integer' | 'boolean'
}
export type HeaderParamsResult = { ok: HeaderParam[] } | { invalid: string }

/** The `x-mcp-header` schema keyword. */
const X_MCP_HEADER = 'x-mcp-header'

/** RFC 9110 section 5.6.2 token = 1*tchar: what a header name (and an x-mcp-header's) may hold. */
export const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const HEADER_TYPES = new Set(['string', 'integer', 'boolean'])
const BOUND_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'const', 'default']

/** Find every `x-mcp-header` annotation in a tool `inputSchema` and check all validity rules. */
export function findHeaderParams(inputSchema: unknown): HeaderParamsResult {
  const found: HeaderParam[] = []
  const problems: string[] = []
  visit(inputSchema, [], true, found, problems)
  const seen = new Map<string, string>()
  for (const param of found) {
    const key = param.name.toLowerCase()
    const other = seen.get(key)
    if (other !== undefined)
      problems.push(`x-mcp-header "${param.name}" at ${param.path.join('.')} duplicates "${other}" (case-insensitive)`)
    else seen.set(key, param.name)
  }
  return problems.length > 0 ? { invalid: problems[0] as string } : { ok: found }
}

function visit(node: unknown, path: string[], reachable: boolean, found: HeaderParam[], problems: string[]): void {
  if (!isRecord(node)) return
  if (X_MCP_HEADER in node) checkAnnotation(node, path, reachable, found, problems)
  const properties = node.properties
  if (isRecord(properties))
    for (const [name, child] of Object.entries(properties)) visit(child, [...path, name], reachable, found, problems)
  // Annotations found through a subschema keyword are not "statically reachable" (streamable-http.mdx).
  for (const key of SUBSCHEMA_ONE) if (isRecord(node[key])) visit(node[key], [...path, key], false, found, problems)
  for (const key of SUBSCHEMA_LIST) {
    const list = node[key]
    if (Array.isArray(list)) list.forEach((child, i) => visit(child, [...path, `${key}[${i}]`], false, found, problems))
  }
  for (const key of SUBSCHEMA_MAP) {
    const map = node[key]
    if (isRecord(map)) for (const [name, child] of Object.entries(map)) visit(child, [...path, key, name], false, found, problems)
  }
}

function checkAnnotation(
  node: Record<string, unknown>,
  path: string[],
  reachable: boolean,
  found: HeaderParam[],
  problems: string[],
): void {
  const name = node[X_MCP_HEADER]
  const where = path.length > 0 ? path.join('.') : '(root)'
  if (typeof name !== 'string' || name === '') return void problems.push(`x-mcp-header at ${where} must be a non-empty string`)
  if (!HTTP_TOKEN.test(name)) return void problems.push(`x-mcp-header "${name}" at ${where} is not an RFC 9110 token`)
  if (!reachable || path.length === 0) {
    return void problems.push(`x-mcp-header "${name}" at ${where} is not reachable through properties only`)
  }
  const type = primitiveType(node.type)
  if (type === undefined) {
    return void problems.push(`x-mcp-header "${name}" at ${where} must annotate an integer, string or boolean property`)
  }
  if (type === 'integer' && !withinSafeBounds(node)) {
    return void problems.push(`x-mcp-header "${name}" at ${where} allows integers outside ±(2^53−1)`)
  }
  found.push({ header: `${HEADER.PARAM_PREFIX}${name}`, name, path, type })
}

// `type` may be a single primitive or that primitive plus "null" (a null value just omits the header).
function primitiveType(type: unknown): HeaderParam['type'] | undefined {
  const types = Array.isArray(type) ? type.filter((t) => t !== 'null') : [type]
  if (types.length !== 1 || typeof types[0] !== 'string' || !HEADER_TYPES.has(types[0])) return undefined
  return types[0] as HeaderParam['type']
}

function withinSafeBounds(node: Record<string, unknown>): boolean {
  const values = [...BOUND_KEYWORDS.map((k) => node[k]), ...(Array.isArray(node.enum) ? node.enum : [])]
  return values.every((value) => typeof value !== 'number' || Math.abs(value) <= MAX_HEADER_INTEGER)
}

/** Minimal tool shape needed to mirror arguments into headers. */
export interface HeaderTool {
  name: string
  inputSchema?: unknown
}

/**
 * The HTTP headers a client sends with `method` under `revision`:
 * - 2025-06-18 and 2025-11-25: `MCP-Protocol-Version` on every request after `initialize`
 *   (2025-11-25 basic/transports.mdx "Protocol Version Header"); earlier revisions: none.
 * - 2026-07-28: `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` (name, uri or taskId, SEP-2663) and
 *   one `Mcp-Param-*` per `x-mcp-header` argument that is present and not null.
 * Throws McpxError PROTOCOL when `tool` has invalid annotations (it should have been dropped) and
 * USAGE when a mirrored argument is not a string, boolean or safe integer.
 */
export function requestHeaders(
  revision: Revision,
  method: string,
  params?: Record<string, unknown>,
  tool?: HeaderTool,
): Record<string, string> {
  if (!atLeast(revision, '2025-06-18') || method === 'initialize') return {}
  const headers: Record<string, string> = { [HEADER.PROTOCOL_VERSION]: revision }
  if (!isModernRevision(revision)) return headers
  headers[HEADER.METHOD] = method
  const nameValue = mcpNameSource(method, params)
  if (typeof nameValue === 'string') headers[HEADER.NAME] = encodeHeaderValue(nameValue)
  if (method === 'tools/call' && tool !== undefined) Object.assign(headers, paramHeaders(tool, params?.arguments))
  return headers
}

/** The body field `Mcp-Name` mirrors for `method`, or undefined when the method has none. */
export function mcpNameSource(method: string, params?: Record<string, unknown>): unknown {
  switch (method) {
    case 'tools/call':
    case 'prompts/get':
      return params?.name
    case 'resources/read':
      return params?.uri
    case 'tasks/get':
    case 'tasks/update':
    case 'tasks/cancel':
      return params?.taskId
    default:
      return undefined
  }
}

/** True when `method` requires an `Mcp-Name` header under 2026-07-28. */
export function requiresMcpName(method: string): boolean {
  return ['tools/call', 'prompts/get', 'resources/read', 'tasks/get', 'tasks/update', 'tasks/cancel'].includes(method)
}

function paramHeaders(tool: HeaderTool, args: unknown): Record<string, string> {
  const found = findHeaderParams(tool.inputSchema)
  if ('invalid' in found) throw new McpxError('PROTOCOL', `tool ${tool.name}: ${found.invalid}`, { tool: tool.name })
  const headers: Record<string, string> = {}
  for (const param of found.ok) {
    const value = valueAt(args, param.path)
    if (value === undefined || value === null) continue
    if (typeof value !== 'string' && typeof value !== 'boolean' && typeof value !== 'number') {
      throw new McpxError('USAGE', `argument ${param.path.join('.')} of ${tool.name} must be a ${param.type} (mirrored as ${param.header})`)
    }
    try {
      headers[param.header] = encodeHeaderValue(value)
    } catch (error) {
      throw new McpxError('USAGE', `argument ${param.path.join('.')} of ${tool.name}: ${(error as Error).message}`)
    }
  }
  return headers
}

/** The instance value at a chain of property names, or undefined. */
export function valueAt(value: unknown, path: readonly string[]): unknown {
  let current = value
  for (const key of path) {
    if (!isRecord(current) || !Object.hasOwn(current, key)) return undefined
    current = current[key]
  }
  return current
}
