/**
 * The `mcpx_<op>` tools of the MCP surface, derived from the /v1 operation table (operations.ts) so
 * the CLI, /v1 and MCP cannot drift. Left out: `call` and `catalog` (the gateway's own mcpx_call and
 * mcpx_catalog are richer), streams (`events`), `shutdown` (a model must not stop the daemon every
 * host depends on), `operations` (the tool list already is that), and `request`/`answer` (the CLI's
 * host plumbing: an MCP host reaches prompts and resources through the surface itself), `memory` (a
 * full garbage collection on demand is an operator's diagnostic, not a model's tool).
 */
import type { ToolDef } from '../server/index.ts'
import type { Operation, OperationContext } from './operation-contract.ts'
import { OPERATIONS, paramsJsonSchema } from './operations.ts'

const NOT_TOOLS = new Set(['call', 'catalog', 'search', 'types', 'exec', 'events', 'shutdown', 'operations', 'request', 'answer', 'memory'])

export function operationTools(context: (signal: AbortSignal) => OperationContext): ToolDef[] {
  return OPERATIONS.filter((op) => !op.stream && !NOT_TOOLS.has(op.name)).map((op) => toolFor(op, context))
}

function toolFor(operation: Operation, context: (signal: AbortSignal) => OperationContext): ToolDef {
  return {
    name: `mcpx_${operation.name}`,
    description: operation.description,
    inputSchema: paramsJsonSchema(operation),
    annotations: { readOnlyHint: operation.method === 'GET' },
    handler: async (args, ctx) => {
      const value = await operation.handler(args, context(ctx.signal))
      const structured =
        value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value }
      return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: structured }
    },
  }
}
