/**
 * The providers of a server: tools, prompts, resources and templates by name/uri, in definition
 * order (2026-07-28 server/tools.mdx: deterministic list order). Mutations fire list_changed
 * through the engine's notifier, so a gateway can swap upstream-backed providers at run time.
 */
import { McpxError } from '../errors/index.ts'
import type { HandlerContext, JsonObject, PromptDef, ResourceDef, ServerDefinition, TemplateDef, ToolDef } from './server-definition.ts'

type Kind = 'tools' | 'prompts' | 'resources'

/** Handlers for names not in the registry (see Registry.unknown); each one absent keeps the engine's own error. */
export interface UnknownNames {
  callTool?(name: string, args: JsonObject, ctx: HandlerContext): Promise<JsonObject>
  getPrompt?(name: string, args: Record<string, string>, ctx: HandlerContext): Promise<JsonObject>
  readResource?(uri: string, ctx: HandlerContext): Promise<JsonObject>
}

export class Registry {
  private readonly tools = new Map<string, ToolDef>()
  private readonly prompts = new Map<string, PromptDef>()
  private readonly resources = new Map<string, ResourceDef>()
  private templates: TemplateDef[] = []
  /** Set by the engine: called after every mutation of a list. */
  onChange: (kind: Kind) => void = () => {}
  /**
   * Where requests for names this registry does not hold go instead of -32602 / resource-not-found
   * (a gateway's pass-through surface forwards them upstream, whose answer is the one relayed).
   */
  unknown?: UnknownNames

  constructor(def: Pick<ServerDefinition, 'tools' | 'prompts' | 'resources' | 'templates'>) {
    for (const t of def.tools ?? []) addUnique(this.tools, t.name, t, 'tool')
    for (const p of def.prompts ?? []) addUnique(this.prompts, p.name, p, 'prompt')
    for (const r of def.resources ?? []) addUnique(this.resources, r.uri, r, 'resource')
    this.templates = [...(def.templates ?? [])]
  }

  /** How many of each kind there are, without copying a list (capabilities are derived per request). */
  get toolCount(): number {
    return this.tools.size
  }
  get promptCount(): number {
    return this.prompts.size
  }
  get resourceCount(): number {
    return this.resources.size + this.templates.length
  }

  listTools(): ToolDef[] {
    return [...this.tools.values()]
  }
  tool(name: string): ToolDef | undefined {
    return this.tools.get(name)
  }
  listPrompts(): PromptDef[] {
    return [...this.prompts.values()]
  }
  prompt(name: string): PromptDef | undefined {
    return this.prompts.get(name)
  }
  listResources(): ResourceDef[] {
    return [...this.resources.values()]
  }
  resource(uri: string): ResourceDef | undefined {
    return this.resources.get(uri)
  }
  listTemplates(): TemplateDef[] {
    return this.templates
  }

  /** The first template whose `{var}` segments match `uri`, with the matched variables. */
  matchTemplate(uri: string): { template: TemplateDef; vars: Record<string, string> } | undefined {
    for (const template of this.templates) {
      const vars = matchUriTemplate(template.uriTemplate, uri)
      if (vars) return { template, vars }
    }
    return undefined
  }

  setTools(tools: ToolDef[]): void {
    replace(this.tools, tools, (t) => t.name, 'tool')
    this.onChange('tools')
  }
  setPrompts(prompts: PromptDef[]): void {
    replace(this.prompts, prompts, (p) => p.name, 'prompt')
    this.onChange('prompts')
  }
  setResources(resources: ResourceDef[], templates?: TemplateDef[]): void {
    replace(this.resources, resources, (r) => r.uri, 'resource')
    if (templates) this.templates = [...templates]
    this.onChange('resources')
  }
}

function addUnique<T>(map: Map<string, T>, key: string, value: T, what: string): void {
  if (map.has(key)) throw new McpxError('CONFIG', `duplicate ${what} '${key}'`, { [what]: key })
  map.set(key, value)
}

function replace<T>(map: Map<string, T>, values: T[], keyOf: (v: T) => string, what: string): void {
  const next = new Map<string, T>()
  for (const v of values) addUnique(next, keyOf(v), v, what)
  map.clear()
  for (const [k, v] of next) map.set(k, v)
}

/** RFC 6570 level 1: each `{name}` matches one or more characters other than `/`. */
function matchUriTemplate(template: string, uri: string): Record<string, string> | undefined {
  const names: string[] = []
  const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]+)\}/g, (_, name: string) => {
    names.push(name)
    return '([^/]+)'
  })
  const match = new RegExp(`^${pattern}$`).exec(uri)
  if (!match) return undefined
  const vars: Record<string, string> = {}
  names.forEach((name, i) => (vars[name] = decodeURIComponent(match[i + 1]!)))
  return vars
}

/**
 * The members of a ToolDef that are the tool on the wire: schema.json `Tool` of every revision
 * (2025-11-25 adds `execution`, spelled down at the edge). The others (handler, relay, the task
 * flags) are the engine's own and never listed.
 */
export const TOOL_WIRE_FIELDS = [
  'name',
  'title',
  'description',
  'inputSchema',
  'outputSchema',
  'annotations',
  'icons',
  'execution',
  '_meta',
] as const

/** A tool as tools/list gives it: its wire members only. */
export function describeTool(def: ToolDef): JsonObject {
  const out: JsonObject = {}
  for (const field of TOOL_WIRE_FIELDS) if (def[field] !== undefined) out[field] = def[field] as JsonObject[keyof JsonObject]
  return out
}

/** The wire description of a prompt, resource or template: every field except its functions. */
export function describe<T extends object>(def: T): JsonObject {
  const out: JsonObject = {}
  for (const [k, v] of Object.entries(def)) if (typeof v !== 'function' && v !== undefined) out[k] = v
  return out
}
