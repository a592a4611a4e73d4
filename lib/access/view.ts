/**
 * One principal's view of the gateway: what the policy lets it use, and where its calls are
 * audited. The gateway filters every listing through `item`/`server` and checks every call with
 * `item`, so what a principal sees is exactly what it may call.
 */
import type { AuditLog } from './audit.ts'
import { type AccessPolicy, type Decision, PolicyEvaluator } from './policy.ts'
import type { Principal } from './principal.ts'

export interface AccessView {
  readonly principal: Principal
  item(server: string, item: string): Decision
  server(server: string): boolean
  readonly audit?: AuditLog
}

export function createAccessView(principal: Principal, policy: AccessPolicy, audit?: AuditLog): AccessView {
  const evaluator = new PolicyEvaluator(policy, principal)
  return {
    principal,
    item: (server, item) => evaluator.item(server, item),
    server: (server) => evaluator.server(server),
    ...(audit && { audit }),
  }
}
