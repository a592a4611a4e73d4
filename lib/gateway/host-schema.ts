/**
 * An upstream tool's input schema as the renamed surfaces show it to hosts, which hand it to model
 * APIs: the Anthropic API (and Bedrock, Vertex, Azure OpenAI behind other hosts) refuses a tool
 * whose `input_schema` has `anyOf`, `oneOf` or `allOf` at its top level, and the host's whole
 * request fails with it, every other tool too. JSON Schema allows them there (2026-07-28
 * server/tools.mdx: any 2020-12 schema), so upstreams do publish them (a zod union, "give either
 * this or that").
 *
 * The host's copy keeps every property the branches name (`allOf` branches' `required` too) and
 * says the dropped rule in the description, in the schema's own words; mcpx still checks each
 * call against the upstream's whole schema (upstream.ts argumentsProblem), so nothing is accepted
 * that the upstream's schema refuses.
 */
import { isRecord } from '../wire/index.ts'

type JsonObject = Record<string, unknown>

const TOP_LEVEL_REFUSED = ['anyOf', 'oneOf', 'allOf'] as const

/** The schema unchanged when it has none of them at its top level; else a copy without them. */
export function hostSafeInputSchema(schema: JsonObject): { schema: JsonObject; rule?: string } {
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

/** The description with the dropped rule said at its end, for the model that fills the arguments. */
export function describedWithRule(description: unknown, rule: string): string {
  const said = `The arguments must also match this JSON Schema rule: ${rule}`
  return typeof description === 'string' && description !== '' ? `${description}\n\n${said}` : said
}
