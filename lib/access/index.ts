/**
 * The access room: /mcp as an OAuth 2.1 resource server (token verification, Protected Resource
 * Metadata, Bearer challenges), the principal a request runs as, the per-principal policy of the
 * config's `access` section, and the audit log. The upstream OAuth client is lib/auth, not here.
 */
export { OWNER, type Principal } from './principal.ts'
export { createResourceServer, scopeList, type AuthOutcome, type ResourceServer, type ResourceServerOptions } from './resource-server.ts'
export { PRM_PATH, resourceMetadataUrl, type ResourceMetadata } from './metadata.ts'
export { AccessPolicySchema, OPEN_POLICY, PolicyEvaluator, globMatch, type AccessPolicy, type AccessRule, type Decision } from './policy.ts'
export { createAuditLog, type AuditEntry, type AuditLog, type AuditOutcome } from './audit.ts'
export { createAccessView, type AccessView } from './view.ts'
