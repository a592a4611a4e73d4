/**
 * A tool as one line for `mcpx tools`: its parameters typed as `mcpx types` renders them, and its marks.
 * Apart from cli/render.ts so a call's result renders without code mode's type renderer.
 */
import { inlineTypeText } from '../lib/codemode/index.ts'

type JsonObject = Record<string, unknown>

/**
 * A compact signature: `name(required: type, [optional: type])  [marks]  description`, with types
 * rendered as `mcpx types` renders them (`string[]`, `"a" | "b"`). Marks: `task-only` for
 * execution.taskSupport "required" (2025-11-25 basic/utilities/tasks.mdx), `app-only` for
 * `_meta.ui.visibility: ["app"]` (MCP Apps: the model never sees it).
 */
export function renderToolSignature(tool: JsonObject): string {
  const schema = (tool.inputSchema ?? {}) as JsonObject
  const properties = (schema.properties ?? {}) as Record<string, JsonObject>
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : [])
  const params = Object.entries(properties)
    .sort(([a], [b]) => Number(required.has(b)) - Number(required.has(a)))
    .map(([name, p]) => (required.has(name) ? `${name}: ${inlineTypeText(p, schema)}` : `[${name}: ${inlineTypeText(p, schema)}]`))
  const marks = toolMarks(tool)
  const description = typeof tool.description === 'string' ? `  ${tool.description.split('\n')[0]}` : ''
  return `${String(tool.name)}(${params.join(', ')})${marks.length ? `  [${marks.join(', ')}]` : ''}${description}`
}

export function toolMarks(tool: JsonObject): string[] {
  const marks: string[] = []
  const execution = tool.execution as { taskSupport?: unknown } | undefined
  if (execution?.taskSupport === 'required') marks.push('task-only')
  const ui = ((tool._meta ?? {}) as { ui?: { visibility?: unknown } }).ui
  if (Array.isArray(ui?.visibility) && ui.visibility.length > 0 && !ui.visibility.includes('model')) marks.push('app-only')
  return marks
}

/**
 * One tool in full for `mcpx tools server.tool`: its signature line (named `label`), its whole
 * description, then a line per parameter (type, required or default, description).
 */
export function renderToolDetail(label: string, tool: JsonObject): string[] {
  const schema = (tool.inputSchema ?? {}) as JsonObject
  const properties = (schema.properties ?? {}) as Record<string, JsonObject>
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : [])
  const signature = renderToolSignature({ ...tool, description: undefined })
  const lines = [`${label}.${signature}`]
  if (typeof tool.description === 'string') for (const line of tool.description.trim().split('\n')) lines.push(`  ${line}`.trimEnd())
  const params = Object.entries(properties)
  if (params.length > 0) lines.push('  parameters:')
  for (const [name, property] of params) {
    const how = required.has(name) ? 'required' : 'default' in property ? `default ${JSON.stringify(property.default)}` : 'optional'
    const about = typeof property.description === 'string' ? `  ${property.description.split('\n')[0]}` : ''
    lines.push(`    ${name}: ${inlineTypeText(property, schema)}  (${how})${about}`)
  }
  return lines
}
