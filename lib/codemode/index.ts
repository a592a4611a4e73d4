/**
 * Code mode: the mcpx_exec sandbox (QuickJS in warm child processes), TypeScript declarations for
 * upstream tools, and JSON Schema validation of tool inputs and outputs. The only door of the room.
 */
export { type ExecBridge, type ExecResult, type SandboxPool, type SandboxPoolOptions, type SandboxPoolStats, createSandboxPool, execLimits } from './pool.ts'
export { SandboxError } from './errors.ts'
export type { ExecLimits, ExecStats, SandboxFailureReason } from './protocol.ts'
export { runSandboxChild } from './child.ts'
export { isCompiledBinary, sandboxChildCommand } from './child-command.ts'
export { type NamespaceAlias, type ToolAlias, aliasNamespaces, isIdentifier, sanitizeIdentifier } from './identifiers.ts'
export { type RenderTypesOptions, type ToolTypeSource, renderDeclarationsFor, renderToolDeclarations } from './render-types.ts'
export { type SchemaValidator, type SkipReason, type ValidationIssue, type ValidationResult, createSchemaValidator } from './validate.ts'
export { type LatencySummary, echoBridge, measureExecStart, measureToolCalls, summarize } from './bench.ts'
