/**
 * The text an agent reads about the mcpx_exec environment (for the tool's description or a
 * prompt): what is in scope, how names are aliased, and the limits in force. Kept beside the
 * prelude so the words match what the sandbox really provides.
 */
import type { Settings } from '../settings/index.ts'

type DescribeSettings = Pick<
  Settings,
  | 'codemodeTimeoutMs'
  | 'codemodeCpuSliceMs'
  | 'codemodeMemoryMb'
  | 'codemodeMaxToolCalls'
  | 'codemodeMaxConcurrentCalls'
  | 'codemodeMaxResultBytes'
  | 'codemodeMaxLogLines'
>

/** Markdown describing the sandbox a script runs in, with the current limits. */
export function describeSandbox(settings: DescribeSettings): string {
  return `Runs JavaScript or TypeScript (types are stripped) in an isolated QuickJS sandbox. Top-level \`await\` and \`return\` work; the returned value (JSON) is the result.

In scope:
- One object per upstream server with one async function per tool: \`await github.search_issues({ q: "bug" })\`. Names that are not JavaScript identifiers are aliased: every character other than letters, digits, \`_\` and \`$\` becomes \`_\`, a leading digit gets a \`_\` prefix, reserved words get a \`_\` suffix (\`get-weather\` → \`get_weather\`, \`delete\` → \`delete_\`), a clash gets \`_2\`, \`_3\`…, and a server named like a global (\`console\`, \`JSON\`, \`mcpx\`…) gets a \`_\` suffix.
- \`mcpx.call("server.tool", args)\` calls any tool by its MCP name; \`mcpx.search(query, { server?, limit? })\` ranks tools; \`mcpx.namespaces\` lists server → tool names.
- A failed tool call throws \`ToolError\` (\`message\`, \`code\`, \`rpcCode\`, \`data\`); catch it like any error.
- \`console.log/info/warn/error/debug\`: lines come back with the result (first ${settings.codemodeMaxLogLines} kept).

Not available: filesystem, network (\`fetch\`), \`process\`, \`require\`/\`import\`, timers.

Limits: ${settings.codemodeTimeoutMs} ms wall clock; ${settings.codemodeCpuSliceMs} ms of computation between awaits; ${settings.codemodeMemoryMb} MiB heap; ${settings.codemodeMaxToolCalls} tool calls and searches, ${settings.codemodeMaxConcurrentCalls} in flight at once (more simply wait); ${settings.codemodeMaxResultBytes} bytes of result.`
}
