/**
 * What hosts' model APIs take of a tool, which the hosts hand its name and input schema as a
 * function: the gateway's renamed surfaces show upstream tools so (hostSafeInputSchema, and
 * naming.ts rawName by tool-names.ts modelToolName), and `mcpx probe` tells a server's author what breaks
 * them (modelRuleProblems).
 *
 * Names: Claude Desktop, the Anthropic and OpenAI APIs and Codex accept only ^[A-Za-z0-9_-]{1,64}$
 * (SEP-986 also allows "." and "/"), and Claude Desktop then withholds every tool of the server.
 *
 * Input schemas: the Anthropic API (and Bedrock, Vertex, Azure OpenAI behind other hosts) refuses a tool
 * whose `input_schema` has `anyOf`, `oneOf` or `allOf` at its top level, and the host's whole
 * request fails with it, every other tool too. JSON Schema allows them there (2026-07-28
 * server/tools.mdx: any 2020-12 schema), so upstreams do publish them (a zod union, "give either
 * this or that").
 *
 * The host's copy keeps every property the branches name (`allOf` branches' `required` too) and
 * says the dropped rule in the description, in the schema's own words; mcpx still checks each
 * call against the upstream's whole schema (upstream.ts argumentsProblem), so nothing is accepted
 * that the upstream's schema refuses.
 *
 * The OpenAI API (Codex, and opencode, VS Code Copilot with its models) refuses an array schema
 * without `items`, at any depth, failing the host's request the same way: the host's copy says
 * `items: {}` there, which is what a missing `items` means.
 */
import { isRecord } from '../jsonrpc.ts'
import { SUBSCHEMA_LIST, SUBSCHEMA_MAP, SUBSCHEMA_ONE } from '../schema-keywords.ts'
import { modelToolName } from '../tool-names.ts'

type JsonObject = Record<string, unknown>

const TOP_LEVEL_REFUSED = ['anyOf', 'oneOf', 'allOf'] as const

/** The schema itself when hosts take it as it is; else a copy they take, with the rule it dropped. */
export function hostSafeInputSchema(schema: JsonObject): { schema: JsonObject; rule?: string } {
  const combined = withoutTopLevelCombinators(schema)
  return { ...combined, schema: withArrayItems(combined.schema) as JsonObject }
}

function withoutTopLevelCombinators(schema: JsonObject): { schema: JsonObject; rule?: string } {
  if (!TOP_LEVEL_REFUSED.some((keyword) => keyword in schema)) return { schema }
  const properties: JsonObject = isRecord(schema.properties) ? { ...schema.properties } : {}
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((name) => typeof name === 'string') : [])
  const dropped: JsonObject = {}
  const rest: JsonObject = {}
  for (const [key, value] of Object.entries(schema)) {
    if (!(TOP_LEVEL_REFUSED as readonly string[]).includes(key)) rest[key] = value
    else dropped[key] = value
  }
  for (const [keyword, branches] of Object.entries(dropped)) {
    if (!Array.isArray(branches)) continue
    for (const branch of branches) {
      if (!isRecord(branch)) continue
      if (isRecord(branch.properties)) for (const [name, property] of Object.entries(branch.properties)) properties[name] ??= property
      // Every allOf branch applies, so what it requires is required; of anyOf/oneOf only some do.
      if (keyword === 'allOf' && Array.isArray(branch.required))
        for (const name of branch.required) if (typeof name === 'string') required.add(name)
    }
  }
  return {
    schema: { ...rest, type: 'object', properties, ...(required.size > 0 && { required: [...required] }) },
    rule: JSON.stringify(dropped),
  }
}

/**
 * `items: {}` on every array schema without `items` or `prefixItems`, at any depth (bounded by
 * the JSON's own, maxJsonDepth). Returns the node itself when nothing under it changed.
 */
function withArrayItems(node: unknown): unknown {
  if (!isRecord(node)) return node
  let out: JsonObject | undefined
  const put = (key: string, value: unknown) => {
    if (value !== node[key]) (out ??= { ...node })[key] = value
  }
  const list = (value: unknown[]) => {
    const next = value.map(withArrayItems)
    return next.some((item, i) => item !== value[i]) ? next : value
  }
  for (const key of SUBSCHEMA_ONE) if (isRecord(node[key])) put(key, withArrayItems(node[key]))
  for (const key of SUBSCHEMA_LIST) if (Array.isArray(node[key])) put(key, list(node[key]))
  for (const key of ['properties', ...SUBSCHEMA_MAP]) {
    const map = node[key]
    if (!isRecord(map)) continue
    const next = Object.fromEntries(Object.entries(map).map(([name, sub]) => [name, withArrayItems(sub)]))
    put(key, Object.keys(map).some((name) => next[name] !== map[name]) ? next : map)
  }
  const type = node.type
  const array = type === 'array' || (Array.isArray(type) && type.includes('array'))
  if (array && !('items' in node) && !('prefixItems' in node)) (out ??= { ...node }).items = {}
  return out ?? node
}

/** The description with the dropped rule said at its end, for the model that fills the arguments. */
export function describedWithRule(description: unknown, rule: string): string {
  const said = `The arguments must also match this JSON Schema rule: ${rule}`
  return typeof description === 'string' && description !== '' ? `${description}\n\n${said}` : said
}

/** What of `tool` those APIs refuse, one line each (`mcpx probe`); mcpx's raw surface repairs each so. */
export function modelRuleProblems(tool: JsonObject): string[] {
  const problems: string[] = []
  if (typeof tool.name === 'string' && (tool.name === '' || modelToolName(tool.name) !== tool.name))
    problems.push(
      'its name is not 1–64 characters of A–Z, a–z, 0–9, "_" and "-", which Claude Desktop (it then withholds every tool of the server) and the Anthropic and OpenAI APIs require; mcpx\'s raw surface writes "_" for the others',
    )
  if (!isRecord(tool.inputSchema)) return problems
  const dropped = TOP_LEVEL_REFUSED.filter((keyword) => keyword in (tool.inputSchema as JsonObject))
  if (dropped.length > 0)
    problems.push(
      `\`inputSchema\` has ${dropped.join(', ')} at its top level, which the Anthropic API refuses; mcpx's raw surface offers the branches' properties and says the rule in the description`,
    )
  if (withArrayItems(tool.inputSchema) !== tool.inputSchema)
    problems.push("`inputSchema` has an array schema without `items`, which the OpenAI API refuses; mcpx's raw surface says `items: {}`")
  return problems
}
