/**
 * A gateway surface's initialize `instructions`: how to find and call tools on it, naming only the
 * tools it lists (the raw surface has no mcpx_* tools; code mode without a sandbox has no mcpx_exec).
 * Pass-through gives the upstream's own (surface.ts mirrorIdentity).
 */
import type { SurfaceMode } from './surface.ts'

export function surfaceInstructions(mode: SurfaceMode, codeMode: boolean): string | undefined {
  const gateway = 'mcpx is a gateway to several MCP servers.'
  const listed = "Each server's tools are listed here as <server>_<tool>."
  if (mode === 'passthrough') return undefined
  if (mode === 'raw') return `${gateway} ${listed}`
  const find = codeMode
    ? 'Find tools with mcpx_search or mcpx_catalog, learn their arguments with mcpx_types, and call one with mcpx_call ' +
      '("<server>.<tool>") or run a short program that calls several with mcpx_exec.'
    : 'Find tools with mcpx_catalog and call one with mcpx_call ("<server>.<tool>").'
  if (mode === 'code-mode') return `${gateway} ${find}`
  const joins = codeMode ? 'A tool you call or find with mcpx_search' : 'A tool you call'
  return `${gateway} ${find} ${joins} joins this list as <server>_<tool>, to be called directly.`
}
