/**
 * The HTTP headers a 2026-07-28 client mirrors from each request body (streamable-http.mdx
 * "Request Metadata Headers", "Custom Headers from Tool Parameters", "Value Encoding"), and the
 * validation of `x-mcp-header` annotations that decides which tools a client may keep
 * (server/tools.mdx "x-mcp-header": invalid tools MUST be excluded from tools/list).
 */
import { BASE64_SENTINEL, HEADER } from '../wire/index.ts'

/** One annotated property: the chain of `properties` keys from the root and the header suffix. */
export interface HeaderParam {
  path: string[]
  name: string
}

export type ToolHeaderVerdict = { ok: true; params: HeaderParam[] } | { ok: false; reason: string }

// RFC 9110 §5.6.2 tchar.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const PRIMITIVE = new Set(['string', 'integer', 'boolean'])
// Keywords under which an annotation is not statically reachable (streamable-http.mdx "Schema Extension").
const SUBSCHEMA_KEYWORDS = ['items', 'prefixItems', 'additionalProperties', 'patternProperties', 'contains', 'oneOf', 'anyOf', 'allOf', 'not', 'if', 'then', 'else', '$defs', 'definitions', 'dependentSchemas', 'unevaluatedProperties', 'unevaluatedItems', 'propertyNames']

/** Check every `x-mcp-header` in a tool's inputSchema; never fetches or resolves `$ref`. */
export function toolHeaderParams(inputSchema: unknown): ToolHeaderVerdict {
  const params: HeaderParam[] = []
  const seen = new Set<string>()
  let failure: string | undefined
  const visit = (schema: unknown, path: string[], reachable: boolean): void => {
    if (failure || typeof schema !== 'object' || schema === null) return
    if (Array.isArray(schema)) {
      for (const item of schema) visit(item, path, false)
      return
    }
    const node = schema as Record<string, unknown>
    if ('x-mcp-header' in node && path.length > 0) {
      const name = node['x-mcp-header']
      const where = path.join('.')
      if (!reachable) failure = `x-mcp-header on ${where} is not reachable through properties alone`
      else if (typeof name !== 'string' || name === '') failure = `x-mcp-header on ${where} is empty or not a string`
      else if (!TOKEN.test(name)) failure = `x-mcp-header ${JSON.stringify(name)} on ${where} is not an HTTP token`
      else if (typeof node.type !== 'string' || !PRIMITIVE.has(node.type)) failure = `x-mcp-header on ${where} needs type string, integer or boolean`
      else if (seen.has(name.toLowerCase())) failure = `x-mcp-header ${JSON.stringify(name)} is used twice`
      else {
        seen.add(name.toLowerCase())
        params.push({ path, name })
      }
      if (failure) return
    }
    const properties = node.properties
    if (typeof properties === 'object' && properties !== null && !Array.isArray(properties)) {
      for (const [key, child] of Object.entries(properties)) visit(child, [...path, key], reachable)
    }
    for (const keyword of SUBSCHEMA_KEYWORDS) {
      const sub = node[keyword]
      if (sub === undefined) continue
      if (keyword === '$defs' || keyword === 'definitions' || keyword === 'patternProperties' || keyword === 'dependentSchemas') {
        if (typeof sub === 'object' && sub !== null) for (const [key, child] of Object.entries(sub)) visit(child, [...path, `${keyword}:${key}`], false)
      } else visit(sub, [...path, keyword], false)
    }
  }
  visit(inputSchema, [], true)
  return failure ? { ok: false, reason: failure } : { ok: true, params }
}

/** `Mcp-Name` source per method (streamable-http.mdx "Standard Headers"; SEP-2663:515 for tasks). */
function nameOf(method: string, params: Record<string, unknown> | undefined): unknown {
  if (method === 'tools/call' || method === 'prompts/get') return params?.name
  if (method === 'resources/read') return params?.uri
  if (method.startsWith('tasks/')) return params?.taskId
  return undefined
}

/**
 * Headers for one modern HTTP request: MCP-Protocol-Version, Mcp-Method, Mcp-Name and the
 * Mcp-Param-* mirrors of the called tool's annotated arguments (absent or null values omitted).
 */
export function modernRequestHeaders(revision: string, method: string, params: Record<string, unknown> | undefined, headerParams?: readonly HeaderParam[]): Record<string, string> {
  const headers: Record<string, string> = { [HEADER.PROTOCOL_VERSION]: revision, [HEADER.METHOD]: method }
  const name = nameOf(method, params)
  if (typeof name === 'string') headers[HEADER.NAME] = encodeHeaderText(name)
  if (method === 'tools/call' && headerParams?.length) {
    const args = params?.arguments
    for (const param of headerParams) {
      const value = valueAt(args, param.path)
      if (value === undefined || value === null) continue
      if (typeof value === 'string') headers[`${HEADER.PARAM_PREFIX}${param.name}`] = encodeHeaderText(value)
      else if (typeof value === 'boolean') headers[`${HEADER.PARAM_PREFIX}${param.name}`] = value ? 'true' : 'false'
      else if (typeof value === 'number' && Number.isSafeInteger(value)) headers[`${HEADER.PARAM_PREFIX}${param.name}`] = String(value)
    }
  }
  return headers
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root
  for (const key of path) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined
    node = (node as Record<string, unknown>)[key]
  }
  return node
}

// Plain values are visible ASCII plus inner space/tab; anything else, leading/trailing
// whitespace, or a sentinel look-alike travels base64-wrapped (streamable-http.mdx "Value Encoding").
const PLAIN = /^[\x20-\x7e\t]*$/
export function encodeHeaderText(text: string): string {
  const looksLikeSentinel = text.startsWith(BASE64_SENTINEL.PREFIX) && text.endsWith(BASE64_SENTINEL.SUFFIX)
  if (PLAIN.test(text) && !/^[ \t]|[ \t]$/.test(text) && !looksLikeSentinel) return text
  let binary = ''
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte)
  return `${BASE64_SENTINEL.PREFIX}${btoa(binary)}${BASE64_SENTINEL.SUFFIX}`
}
