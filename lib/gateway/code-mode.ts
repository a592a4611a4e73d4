/**
 * Code mode over the pool: the search index, built by the first search and then kept in step with
 * upstream catalogs (rebuilt per server when it connects or announces list_changed), TypeScript
 * declarations of the same names the sandbox exposes, and `exec` of agent code in the QuickJS
 * sandbox whose every tool call comes back through the pool (arguments validated, allowed/blocked
 * lists applied, questions brokered).
 * The sandbox holds no credential: it only sees what a call returns.
 */
import type { AccessView } from '../access/index.ts'
import { type ExecResult, type SandboxPool, type ToolTypeSource, createSandboxPool } from '../codemode/index.ts'
import { McpxError } from '../errors/index.ts'
import { log } from '../log/index.ts'
import { appOf, appResourceUri, isAppResourceUri } from './apps.ts'
import type { SearchHit, ToolIndex } from '../search/index.ts'
import type { Settings } from '../settings/index.ts'
import type { DownstreamAsker } from './broker.ts'
import { splitQualified } from './naming.ts'
import type { UpstreamPool } from './upstream-pool.ts'

export interface CodeModeOptions {
  /** argv of a sandbox child (default: this program's hidden `sandbox-child` command). */
  readonly sandboxCommand?: string[]
}

export interface TypesQuery {
  /** The principal asking: only tools its policy allows are rendered. */
  readonly view?: AccessView
  readonly server?: string
  /** Qualified names (`server.tool`). */
  readonly tools?: readonly string[]
  /** Render the hits of this search. */
  readonly query?: string
}

export class CodeMode {
  /** Built by the first search (#ensureIndexed), with the code that builds it (code-mode-catalog.ts). */
  #index?: ToolIndex
  #sandbox?: SandboxPool
  #indexed?: Promise<ToolIndex>
  readonly #stop: () => void

  constructor(
    private readonly pool: UpstreamPool,
    private readonly settings: Settings,
    private readonly options: CodeModeOptions = {},
  ) {
    this.#stop = pool.on((type, data) => {
      const server = (data as { server?: string }).server
      // Only an index some search has built is kept in step: until the first search the daemon holds none
      // (a raw surface never searches), and that search indexes every catalog as it is then.
      if (server && this.#indexed && (type === 'catalog.changed' || type === 'server.ready')) void this.#reindex(server)
      if (type === 'servers.changed') {
        const { removed, changed } = data as { removed: string[]; changed: string[] }
        for (const name of [...removed, ...changed]) this.#index?.removeServer(name)
      }
    })
  }

  async search(query: string, options: { server?: string; limit?: number; view?: AccessView } = {}): Promise<SearchHit[]> {
    const index = await this.#ensureIndexed()
    const { view, ...rest } = options
    return index.search(query, view ? { ...rest, accept: (server, name) => view.item(server, name).allowed } : rest)
  }

  /** The ui:// URI (as the gateway surfaces serve it) of the MCP App that renders this tool, if any. */
  async appOf(server: string, tool: string): Promise<string | undefined> {
    const catalog = await this.pool.catalog(server).catch(() => undefined)
    const definition = catalog?.tools.find((t) => t.name === tool)
    const uri = definition && appOf(definition)
    return uri !== undefined && isAppResourceUri(uri) ? appResourceUri(server, uri) : undefined
  }

  async types(query: TypesQuery): Promise<string> {
    const { view } = query
    const namespaces = await this.namespaces(view)
    const entries: { server: string; tool: ToolTypeSource }[] = []
    const add = async (server: string, names?: readonly string[]) => {
      const catalog = await this.pool.catalog(server)
      for (const tool of catalog.tools) {
        const name = String(tool.name)
        if ((!names || names.includes(name)) && (!view || view.item(server, name).allowed))
          entries.push({ server, tool: tool as unknown as ToolTypeSource })
      }
    }
    if (query.tools?.length) {
      const byServer = new Map<string, string[]>()
      for (const name of query.tools) {
        const { server, tool } = splitQualified(name)
        byServer.set(server, [...(byServer.get(server) ?? []), tool])
      }
      for (const [server, names] of byServer) await add(server, names)
    } else if (query.query !== undefined) {
      const hits = await this.search(query.query, { ...(query.server !== undefined && { server: query.server }), ...(view && { view }) })
      const byServer = new Map<string, string[]>()
      for (const hit of hits) byServer.set(hit.server, [...(byServer.get(hit.server) ?? []), hit.name])
      for (const [server, names] of byServer) await add(server, names)
    } else if (query.server !== undefined) await add(query.server)
    else for (const server of Object.keys(namespaces)) await add(server)
    const { renderDeclarationsFor } = await import('./code-mode-catalog.ts')
    return renderDeclarationsFor(entries, {
      maxDepth: this.settings.typesMaxDepth,
      maxSchemaBytes: this.settings.schemaMaxBytes,
      namespaces,
    })
  }

  /** Run agent code; `asker` receives the questions upstreams ask during its calls. */
  async exec(
    code: string,
    options: {
      asker?: DownstreamAsker
      signal?: AbortSignal
      onCall?: (qualifiedName: string) => void
      onLog?: (line: string) => void
      view?: AccessView
    } = {},
  ): Promise<ExecResult> {
    const { view } = options
    const namespaces = await this.namespaces(view, { unreachable: true })
    const sandbox = (this.#sandbox ??= createSandboxPool(
      this.settings,
      this.options.sandboxCommand ? { command: this.options.sandboxCommand } : {},
    ))
    return sandbox.exec(
      code,
      {
        namespaces,
        ...(options.onLog && { log: options.onLog }),
        call: async (qualifiedName, args, callOptions) => {
          const { server, tool } = splitQualified(qualifiedName)
          options.onCall?.(qualifiedName)
          const signal = callOptions?.signal ?? options.signal
          const result = await this.pool.call(server, tool, args, {
            ...(options.asker && { asker: options.asker }),
            ...(signal && { signal }),
            ...(view && { view }),
          })
          if (result.isError === true) throw new McpxError('TOOL', toolErrorText(result), { server, tool, result })
          return result.structuredContent ?? unwrapContent(result)
        },
        search: async (query, searchOptions) =>
          this.search(query, { ...((searchOptions ?? {}) as { server?: string; limit?: number }), ...(view && { view }) }),
      },
      options.signal ? { signal: options.signal } : {},
    )
  }

  /**
   * server → allowed tool names (for `view`, what its policy allows), for the sandbox's namespace
   * objects and the declarations. `unreachable`: a server that cannot be reached now (not started,
   * failed) is listed too, with no tools, after the others (so their aliases stay as declared): a
   * script's call on it then fails as a ToolError saying why, not as "'name' is not defined".
   */
  async namespaces(view?: AccessView, options: { unreachable?: boolean } = {}): Promise<Record<string, string[]>> {
    const { catalogs, failures } = await this.pool.catalogs()
    const entries = catalogs.map(
      (c) => [c.server, c.tools.map((t) => String(t.name)).filter((name) => !view || view.item(c.server, name).allowed)] as const,
    )
    const namespaces = Object.fromEntries(view ? entries.filter(([, names]) => names.length > 0) : entries)
    if (options.unreachable) for (const { server } of failures) if (!view || view.server(server)) namespaces[server] = []
    return namespaces
  }

  /** Start the sandbox processes now (the daemon does this at start so the first exec is warm). */
  async warm(): Promise<void> {
    await (this.#sandbox ??= createSandboxPool(
      this.settings,
      this.options.sandboxCommand ? { command: this.options.sandboxCommand } : {},
    )).warm()
  }

  /**
   * End the sandbox processes if no script runs or waits (the daemon's long idle, idle-trim.ts); the
   * next exec starts a new pool, with one process on demand.
   */
  releaseIdleSandboxes(): Promise<void> {
    const closing = this.#sandbox?.closeIfIdle()
    if (!closing) return Promise.resolve()
    // Before any await: an exec from now on makes a new pool instead of finding this closed one.
    this.#sandbox = undefined
    return closing
  }

  async close(): Promise<void> {
    this.#stop()
    await this.#sandbox?.close()
  }

  #ensureIndexed(): Promise<ToolIndex> {
    return (this.#indexed ??= import('./code-mode-catalog.ts').then(async ({ createToolIndex }) => {
      // Set before the catalogs are read, so servers removed meanwhile are removed from it too.
      const index = (this.#index = createToolIndex(this.settings))
      const { catalogs } = await this.pool.catalogs()
      for (const c of catalogs) index.setServer(c.server, c.tools as never)
      return index
    }))
  }

  async #reindex(server: string): Promise<void> {
    try {
      const [index, catalog] = await Promise.all([this.#ensureIndexed(), this.pool.catalog(server)])
      index.setServer(server, catalog.tools as never)
    } catch (error) {
      log.debug(`[${server}] search index not updated: ${(error as Error).message}`)
    }
  }
}

/** A tool result as the script sees it: text content joined (JSON-parsed when it is JSON). */
function unwrapContent(result: Record<string, unknown>): unknown {
  const content = Array.isArray(result.content) ? (result.content as Record<string, unknown>[]) : []
  if (content.length === 1 && content[0]!.type === 'text') {
    const text = String(content[0]!.text)
    try {
      return JSON.parse(text)
    } catch {
      return text
    }
  }
  return content
}

function toolErrorText(result: Record<string, unknown>): string {
  const content = Array.isArray(result.content) ? (result.content as Record<string, unknown>[]) : []
  return content.map((c) => (c.type === 'text' ? String(c.text) : `[${String(c.type)}]`)).join('\n') || 'tool returned isError'
}
