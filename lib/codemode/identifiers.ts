/**
 * Script-side names for upstream servers and tools. MCP names may be any string (`get-weather`,
 * `2fa.verify`); inside mcpx_exec each server is a global object and each tool a method, so both
 * need identifier aliases. The sandbox prelude and the type renderer both call `aliasNamespaces`,
 * so the names a script calls are exactly the names its declarations show.
 */

/** Words that cannot be bare identifiers (ES2023 reserved words plus strict-mode ones). */
const RESERVED_WORDS = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for function if ' +
    'import in instanceof new null return super switch this throw true try typeof var void while with yield let static ' +
    'implements interface package private protected public await arguments eval undefined NaN Infinity'
  ).split(' '),
)

/** Globals a server alias must not shadow inside the sandbox (the script still needs them). */
const SANDBOX_GLOBALS = new Set(
  (
    'mcpx console globalThis Object Function Array Number Boolean String Symbol BigInt Math JSON Date RegExp Error ' +
    'TypeError RangeError SyntaxError ReferenceError EvalError URIError AggregateError InternalError Promise Proxy Reflect ' +
    'Map Set WeakMap WeakSet WeakRef FinalizationRegistry ArrayBuffer SharedArrayBuffer DataView Atomics Int8Array ' +
    'Uint8Array Uint8ClampedArray Int16Array Uint16Array Int32Array Uint32Array Float32Array Float64Array BigInt64Array ' +
    'BigUint64Array Iterator parseInt parseFloat isNaN isFinite encodeURI decodeURI encodeURIComponent decodeURIComponent ' +
    'escape unescape ToolError __mcpx_run __mcpx_host'
  ).split(' '),
)

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/** True when `name` can be written as a bare JavaScript identifier. */
export function isIdentifier(name: string): boolean {
  return IDENTIFIER.test(name) && !RESERVED_WORDS.has(name)
}

/** `get-weather` → `get_weather`, `2fa` → `_2fa`, `delete` → `delete_`. Never empty. */
export function sanitizeIdentifier(name: string): string {
  let id = name.replace(/[^A-Za-z0-9_$]/g, '_')
  if (id === '') id = '_'
  if (/^[0-9]/.test(id)) id = `_${id}`
  if (RESERVED_WORDS.has(id)) id = `${id}_`
  return id
}

export interface ToolAlias {
  /** The MCP tool name, as the upstream spells it. */
  readonly name: string
  /** The method name inside the namespace object. */
  readonly alias: string
}

export interface NamespaceAlias {
  /** The upstream server name (the `ns` of `ns.tool`). */
  readonly server: string
  /** The global object name inside the sandbox. */
  readonly alias: string
  readonly tools: readonly ToolAlias[]
}

/**
 * Aliases for every server and tool, stable for a given input: servers and tools keep their given
 * order, and a clash after sanitising gets `_2`, `_3`… in that order. A server alias that would
 * shadow a sandbox global (`console`, `JSON`, `mcpx`…) gets a trailing `_`.
 */
export function aliasNamespaces(namespaces: Readonly<Record<string, readonly string[]>>): NamespaceAlias[] {
  const usedServers = new Set<string>(SANDBOX_GLOBALS)
  return Object.entries(namespaces).map(([server, tools]) => {
    let base = sanitizeIdentifier(server)
    if (SANDBOX_GLOBALS.has(base)) base = `${base}_`
    const alias = unique(base, usedServers)
    const usedTools = new Set<string>()
    return { server, alias, tools: tools.map((name) => ({ name, alias: unique(sanitizeIdentifier(name), usedTools) })) }
  })
}

function unique(base: string, used: Set<string>): string {
  let id = base
  for (let n = 2; used.has(id); n++) id = `${base}_${n}`
  used.add(id)
  return id
}
