/**
 * Calls made for a principal (lib/access): the policy decides before anything reaches the upstream,
 * a refusal is a JSON-RPC error naming the rule, and every call — refused, failed or answered — is
 * one line in the audit log.
 */
import type { AccessView, AuditOutcome } from '../access/index.ts'
import type { JsonObject } from '../client/index.ts'
import { RPC, RpcError } from '../errors/index.ts'

function accessDenied(view: AccessView, what: string, reason: string, rule?: string): RpcError {
  // -32602 like an unknown tool: to this caller the item does not exist; data names the rule.
  return new RpcError(RPC.INVALID_PARAMS, `access denied: ${view.principal.subject} may not use ${what}: ${reason}`, {
    mcpxCode: 'AUTH',
    principal: view.principal.subject,
    ...(rule !== undefined && { rule }),
  })
}

export async function guardedCall(
  view: AccessView,
  server: string,
  tool: string,
  args: Record<string, unknown>,
  call: () => Promise<JsonObject>,
): Promise<JsonObject> {
  const decision = view.item(server, tool)
  const started = performance.now()
  const audit = (outcome: AuditOutcome, error?: string) =>
    view.audit?.write({
      principal: view.principal.id,
      server,
      tool,
      outcome,
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
      ...(decision.rule !== undefined && { rule: decision.rule }),
      ...(error !== undefined && { error }),
      ...(view.audit.withArguments && { arguments: args }),
    })
  if (!decision.allowed) {
    audit('denied', decision.reason)
    throw accessDenied(view, `${server}.${tool}`, decision.reason, decision.rule)
  }
  let result: JsonObject
  try {
    result = await call()
  } catch (error) {
    audit('error', error instanceof Error ? error.message : String(error))
    throw error
  }
  audit(result.isError === true ? 'tool_error' : 'ok')
  return result
}

/** prompts/get is decided by the prompt's name, resources/* by the server (policy.ts). */
export function checkRequest(view: AccessView, server: string, method: string, params: JsonObject): void {
  if (method === 'prompts/get') {
    const decision = view.item(server, String(params.name))
    if (!decision.allowed) throw accessDenied(view, `prompt ${server}.${String(params.name)}`, decision.reason, decision.rule)
  } else if (!view.server(server)) {
    throw accessDenied(view, `server ${server}`, 'no access rule allows any of it')
  }
}
