/**
 * The schema room: JSON Schema checking for both kinds of schema mcpx meets, below server and
 * gateway. `trustedProblems` for a server's own tools; `createSchemaValidator` for upstream schemas
 * (untrusted: size and depth caps, ReDoS guards, an LRU of compiled schemas); one dialect table
 * (dialect.ts); the fast accept-check both try first (accept.ts).
 */
export { compileAccept, type Accept } from './accept.ts'
export { DEFAULT_DRAFT, dialectOf, type Draft } from './dialect.ts'
export { trustedProblems } from './trusted.ts'
export { type SchemaValidator, type SkipReason, type ValidationIssue, type ValidationResult, createSchemaValidator } from './untrusted.ts'
