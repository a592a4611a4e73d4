/**
 * TypeScript declarations of what an mcpx_exec script can call: one `declare namespace` per
 * upstream server (named exactly like the sandbox's namespace object, via aliasNamespaces), one
 * function per tool typed from its inputSchema and outputSchema, plus `mcpx`, `ToolError` and
 * `console`. Render per server or per search hit rather than everything: 2000 tools come to ~180 K
 * tokens. The output passes `tsc --strict` (pinned by test/lib/codemode/render-types.test.ts).
 */
import { aliasNamespaces } from './identifiers.ts'
import { jsDoc, renderRootType } from './schema-to-ts.ts'

/** What the renderer needs of an MCP Tool. */
export interface ToolTypeSource {
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly inputSchema?: unknown
  readonly outputSchema?: unknown
}

export interface RenderTypesOptions {
  /** Nesting rendered before falling back to unknown (settings.typesMaxDepth). */
  readonly maxDepth: number
  /** Schemas whose JSON is larger are rendered as unknown (settings.schemaMaxBytes). */
  readonly maxSchemaBytes: number
  /**
   * Every server's full tool-name list, as handed to the sandbox (bridge.namespaces). Aliases
   * (`get-weather` → `get_weather`, clashes → `_2`) depend on the whole list, so pass it when
   * rendering a subset (e.g. search hits) to get the names the script will really see.
   */
  readonly namespaces?: Readonly<Record<string, readonly string[]>>
  /** Include the `mcpx` / `ToolError` / `console` declarations (default true). */
  readonly withGlobals?: boolean
}

/** Declarations for `servers` (server → tools). */
export function renderToolDeclarations(servers: Readonly<Record<string, readonly ToolTypeSource[]>>, options: RenderTypesOptions): string {
  const namespaces =
    options.namespaces ?? Object.fromEntries(Object.entries(servers).map(([server, tools]) => [server, tools.map((t) => t.name)]))
  const aliases = new Map(aliasNamespaces(namespaces).map((ns) => [ns.server, ns]))
  const blocks: string[] = options.withGlobals === false ? [] : [GLOBALS]
  for (const [server, tools] of Object.entries(servers)) {
    const ns = aliases.get(server) ?? aliasNamespaces({ [server]: tools.map((t) => t.name) })[0]!
    const toolAlias = new Map(ns.tools.map((t) => [t.name, t.alias]))
    const taken = new Set<string>()
    const body: string[] = []
    for (const tool of tools) {
      const alias = toolAlias.get(tool.name) ?? aliasNamespaces({ _: [tool.name] })[0]!.tools[0]!.alias
      body.push(renderTool(server, tool, alias, taken, options))
    }
    const header = ns.alias === server ? '' : `/** MCP server "${escapeDoc(server)}". */\n`
    blocks.push(`${header}declare namespace ${ns.alias} {\n${body.join('\n\n')}\n}`)
  }
  return `${blocks.join('\n\n')}\n`
}

/** Declarations for a list of `{server, tool}` pairs (e.g. the tools behind search hits), grouped by server. */
export function renderDeclarationsFor(
  entries: ReadonlyArray<{ server: string; tool: ToolTypeSource }>,
  options: RenderTypesOptions,
): string {
  const servers: Record<string, ToolTypeSource[]> = {}
  for (const { server, tool } of entries) (servers[server] ??= []).push(tool)
  return renderToolDeclarations(servers, options)
}

function renderTool(server: string, tool: ToolTypeSource, alias: string, taken: Set<string>, options: RenderTypesOptions): string {
  const named = new Map<string, string>()
  const context = (prefix: string, root: unknown) => ({
    prefix,
    root: fits(root, options.maxSchemaBytes) ? root : true,
    maxDepth: options.maxDepth,
    named,
    taken,
  })
  const input = renderRootType(context(`${alias}_Input`, tool.inputSchema ?? { type: 'object' }))
  const output = tool.outputSchema === undefined ? 'unknown' : renderRootType(context(`${alias}_Output`, tool.outputSchema))
  const notes: string[] = []
  if (tool.title) notes.push(tool.title)
  if (tool.description) notes.push(tool.description.trim())
  // The sandbox also answers to the exact name (prelude.ts): both spellings are shown.
  if (alias !== tool.name)
    notes.push(`(MCP name: ${server}.${tool.name}; also callable as ["${tool.name}"](args) or .call("${tool.name}", args))`)
  notes.push(`@see mcpx.call(${JSON.stringify(`${server}.${tool.name}`)}, args)`)
  const types = [...named].map(([name, type]) => `  type ${name} = ${type};`)
  const argsOptional = !requiresSome(tool.inputSchema) ? '?' : ''
  const fn = `${jsDoc(undefined, '  ', notes)}  function ${alias}(args${argsOptional}: ${input}): Promise<${output}>;`
  return [...types, fn].join('\n')
}

/**
 * Whether `{}` misses a property the schema requires: directly, in an allOf branch, or in every
 * anyOf/oneOf branch ("give this or that"). Only then are the arguments not optional.
 */
function requiresSome(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false
  const { required, allOf, anyOf, oneOf } = schema as Record<string, unknown>
  if (Array.isArray(required) && required.length > 0) return true
  if (Array.isArray(allOf) && allOf.some(requiresSome)) return true
  return [anyOf, oneOf].some((branches) => Array.isArray(branches) && branches.length > 0 && branches.every(requiresSome))
}

function fits(schema: unknown, maxBytes: number): boolean {
  try {
    return (JSON.stringify(schema) ?? '').length <= maxBytes
  } catch {
    return false
  }
}

function escapeDoc(text: string): string {
  return text.replace(/\*\//g, '*\\/')
}

/** The sandbox's own globals (see prelude.ts). */
const GLOBALS = `/** A tool failed: \`code\` is mcpx's stable error code, \`rpcCode\` the upstream JSON-RPC code when there was one. */
declare class ToolError extends Error {
  readonly code: string;
  readonly rpcCode?: number;
  readonly data?: unknown;
}

interface McpxSearchHit {
  server: string;
  name: string;
  /** "server.tool", the name mcpx.call takes. */
  qualifiedName: string;
  title?: string;
  description: string;
  score: number;
}

declare const mcpx: {
  /** Call any tool by "server.tool" name. */
  call(name: string, args?: Record<string, unknown>): Promise<unknown>;
  /** Ranked tool search over every connected server. */
  search(query: string, options?: { server?: string | string[]; limit?: number }): Promise<McpxSearchHit[]>;
  /** server → tool names. */
  readonly namespaces: Readonly<Record<string, readonly string[]>>;
};

/** Lines come back with the result (capped). */
declare const console: {
  log(...values: unknown[]): void;
  info(...values: unknown[]): void;
  debug(...values: unknown[]): void;
  warn(...values: unknown[]): void;
  error(...values: unknown[]): void;
};`
