/**
 * Code mode: the mcpx_exec sandbox (QuickJS in warm child processes of this same program) and
 * TypeScript declarations for upstream tools (JSON Schema validation is lib/schema's). The only
 * door of the room.
 */

/** The exec engine: `createSandboxPool(settings).exec(code, bridge, {signal}) → {value, logs, stats}`. */
export {
  type ExecBridge,
  type ExecResult,
  type SandboxPool,
  type SandboxPoolOptions,
  type SandboxPoolStats,
  createSandboxPool,
} from './sandbox-pool.ts'
/** How an exec fails: `reason` (syntax, runtime, deadline, cpu, memory, stalled, limit, crash, cancelled), logs, stats. */
export { SandboxError } from './errors.ts'
export type { ExecLimits, ExecStats, SandboxFailureReason } from './protocol.ts'
/** Body of the hidden `mcpx sandbox-child` command. */
export { runSandboxChild } from './child.ts'
/** argv of a sandbox child of this program (compiled binary or `bun cli/main.ts`). */
export { isCompiledBinary, sandboxChildCommand } from './child-command.ts'
/** Script-side names of servers and tools (`get-weather` → `get_weather`), shared by sandbox and types. */
export { type NamespaceAlias, type ToolAlias, aliasNamespaces, isIdentifier, sanitizeIdentifier } from './identifiers.ts'
/** JSON Schema → TypeScript declarations, per server or per search hit. */
export { inlineTypeText } from './schema-to-ts.ts'
export { type RenderTypesOptions, type ToolTypeSource, renderDeclarationsFor, renderToolDeclarations } from './render-types.ts'
/** Tool input/output validation against untrusted upstream schemas. */
/** Benchmark helpers for scripts/bench.ts. */
export { type LatencySummary, echoBridge, measureExecStart, measureToolCalls, summarize } from './bench.ts'
/** What an agent should read about the mcpx_exec environment (names, globals, limits). */
export { describeSandbox } from './describe.ts'
