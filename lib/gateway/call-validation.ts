/**
 * A call through an upstream checked against the tool's schemas: its arguments against
 * inputSchema before the call (a USAGE error: the caller's to fix), its structuredContent against
 * outputSchema after it (a PROTOCOL error: the upstream broke its own listing; 2025-06-18
 * server/tools.mdx: clients SHOULD validate structured results). The validator is the daemon's
 * (ReDoS-safe, size-capped: upstream schemas are untrusted); none set means nothing is checked.
 */
import type { JsonObject } from '../client/index.ts'
import { McpxError } from '../errors/index.ts'
import type { SchemaValidator } from '../schema/index.ts'

/**
 * Why `value` does not fit `tool`'s schema for `direction`; undefined when it fits or nothing validates.
 * `name`: the tool as the caller knows it (`server.tool` for mcpx_call and the CLI, `server_tool` on the raw surface).
 */
export function schemaProblem(
  validator: SchemaValidator | undefined,
  server: string,
  direction: 'input' | 'output',
  tool: JsonObject,
  value: unknown,
  name = `${server}.${String(tool.name)}`,
): McpxError | undefined {
  if (validator === undefined) return undefined
  const verdict = direction === 'input' ? validator.validateInput(tool, value) : validator.validateOutput(tool, value)
  if (verdict.ok) return undefined
  const issues = verdict.errors.map((e) => `${e.path || '(root)'}: ${e.message}`).join('; ')
  if (direction === 'input')
    return new McpxError('USAGE', `arguments for ${name} do not match its inputSchema: ${issues}`, {
      server,
      tool: tool.name,
      errors: verdict.errors,
    })
  return new McpxError('PROTOCOL', `${name} returned structuredContent that does not match its outputSchema: ${issues}`, {
    server,
    tool: tool.name,
    errors: verdict.errors,
  })
}
