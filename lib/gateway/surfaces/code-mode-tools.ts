/**
 * The code-mode tools: mcpx_exec (agent code next to the servers), mcpx_search (find tools by what
 * they do) and mcpx_types (TypeScript declarations of the namespace objects exec provides). The
 * descriptions are the model's manual, so they say what is inside exec and show one example.
 */
import type { AccessView } from '../../access/index.ts'
import { SandboxError } from '../../codemode/index.ts'
import type { JsonObject, ToolDef } from '../../server/index.ts'
import type { CodeMode } from '../code-mode.ts'
import { brokeredCall } from './brokered-call.ts'
import type { ParkingLot } from './parking.ts'

export interface CodeModeToolsOptions {
  readonly codeMode: CodeMode
  readonly parking: ParkingLot
  /** Reactive surface: names that calls and searches mention join the working set. */
  readonly onNamed?: (qualifiedNames: string[]) => void
  /** The principal this surface serves: search, types and exec see only what it may call. */
  readonly view?: AccessView
}

const EXEC_DESCRIPTION = [
  'Run JavaScript/TypeScript next to the MCP servers; return only what you need (top-level await and return work).',
  'Inside: one object per server, a function per tool (`await github.search_issues({query: "bug"})`; odd names are',
  'sanitised, see mcpx_types), `mcpx.call("server.tool", args)`, `mcpx.search(query)`, console.log (lines come back).',
  'A tool returns its structuredContent, else its text (JSON-parsed if possible); tool errors are catchable.',
  'No filesystem, network or process; time, memory and calls are limited.',
  'Example: const r = await github.search_issues({query: "crash"}); return r.items.slice(0, 3).map(i => i.title)',
].join(' ')

export function codeModeTools(options: CodeModeToolsOptions): ToolDef[] {
  const { codeMode, parking, view } = options
  return [
    {
      name: 'mcpx_exec',
      title: 'Run code that calls tools',
      description: EXEC_DESCRIPTION,
      inputSchema: {
        type: 'object',
        properties: { code: { type: 'string', description: 'The program (JavaScript or TypeScript)' } },
        required: ['code'],
        additionalProperties: false,
      },
      annotations: { openWorldHint: true },
      handler: async (args, ctx) => {
        try {
          const result = await brokeredCall(ctx, parking, async (asker, signal) => {
            const run = await codeMode.exec(String(args.code), {
              asker,
              signal,
              onCall: (name) => options.onNamed?.([name]),
              ...(view && { view }),
            })
            return { value: run.value, logs: run.logs, stats: run.stats } as JsonObject
          })
          return execResult(result.value, result.logs as string[], false)
        } catch (error) {
          if (error instanceof SandboxError)
            return execResult(
              { error: error.reason, message: error.message, ...(error.line !== undefined && { line: error.line }) },
              error.logs,
              true,
            )
          throw error
        }
      },
    },
    {
      name: 'mcpx_search',
      title: 'Find upstream tools',
      description:
        'Search every upstream tool by what it does (names, descriptions, parameters). Returns "server.tool" names to use with mcpx_types, mcpx_exec or mcpx_call.',
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'What you want to do, in a few words' },
          server: { type: 'string', description: 'Only this server' },
          limit: { type: 'integer', minimum: 1, description: 'Most hits to return' },
        },
        required: ['query'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true },
      handler: async (args) => {
        const hits = await codeMode.search(String(args.query), {
          ...(typeof args.server === 'string' && { server: args.server }),
          ...(typeof args.limit === 'number' && { limit: args.limit }),
          ...(view && { view }),
        })
        options.onNamed?.(hits.map((h) => h.qualifiedName))
        // MCP Apps: a hit whose tool renders a UI names it (the ui:// URI this surface serves).
        const apps = await Promise.all(hits.map((h) => codeMode.appOf(h.server, h.name)))
        const text = hits
          .map((h, i) => `${h.qualifiedName}${apps[i] ? ' [app]' : ''}${h.description ? ` — ${h.description}` : ''}`)
          .join('\n')
        const structured = hits.map(({ score: _s, ...hit }, i) => (apps[i] ? { ...hit, app: apps[i] } : hit))
        return { content: [{ type: 'text', text: text || 'no matching tools' }], structuredContent: { hits: structured } }
      },
    },
    {
      name: 'mcpx_types',
      title: 'TypeScript API of upstream tools',
      description:
        'TypeScript declarations of the namespace objects mcpx_exec provides, for the tools you name ("server.tool"), one server, or the hits of a search.',
      inputSchema: {
        type: 'object',
        properties: {
          tools: { type: 'array', items: { type: 'string' }, description: 'Qualified names: server.tool' },
          server: { type: 'string', description: 'Every tool of this server' },
          query: { type: 'string', description: 'The tools a search for this finds' },
        },
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true },
      handler: async (args) => {
        const text = await codeMode.types({
          ...(Array.isArray(args.tools) && { tools: args.tools.map(String) }),
          ...(typeof args.server === 'string' && { server: args.server }),
          ...(typeof args.query === 'string' && { query: args.query }),
          ...(view && { view }),
        })
        return { content: [{ type: 'text', text }] }
      },
    },
  ]
}

function execResult(value: unknown, logs: readonly string[], isError: boolean): JsonObject {
  const text = [logs.length ? `logs:\n${logs.join('\n')}` : '', `${isError ? 'error' : 'result'}: ${JSON.stringify(value, null, 2)}`]
    .filter(Boolean)
    .join('\n\n')
  return {
    content: [{ type: 'text', text }],
    structuredContent: { [isError ? 'error' : 'result']: value ?? null, logs },
    ...(isError && { isError: true }),
  }
}
