/**
 * Turn an agent's script (JavaScript or TypeScript, top-level `await` and `return` allowed) into one
 * call expression QuickJS can evaluate. The script is wrapped BEFORE transpiling, so `return` and
 * `await` are legal, and the wrapper is a call (a bare function expression would be dropped as dead
 * code). Plain JavaScript is run as written so runtime error lines match the script; only code that
 * does not parse as JavaScript goes through Bun's TypeScript transpiler.
 */
import { scriptTranspiler } from './caches.ts'
import type { ScriptFailure } from './protocol.ts'

/** Guest function the wrapped script hands its promise to (defined by the prelude). */
export const RUN_HOOK = '__mcpx_run'
const PREFIX = `${RUN_HOOK}((async function () {`
const SUFFIX = '\n}).call(globalThis));'
/** Characters the wrapper adds before the script on its line 1 (error columns there are shifted by it). */
export const WRAPPER_PREFIX_CHARS = PREFIX.length

export type PreparedScript = { ok: true; source: string; typescript: boolean } | { ok: false; failure: ScriptFailure }

/** Wrap, and strip types when needed. Syntax errors come back with the script's own line numbers. */
export function prepareScript(code: string): PreparedScript {
  const imported = importLine(code)
  if (imported !== undefined) {
    return {
      ok: false,
      failure: {
        reason: 'syntax',
        name: 'SyntaxError',
        message: `import is not available in the mcpx sandbox (line ${imported}): tools are the global namespace objects (see mcpx types); there is no module loader, filesystem or network`,
        line: imported,
      },
    }
  }
  // Same line as the prefix: line N of the script is line N of the wrapped source.
  const wrapped = `${PREFIX}${code}${SUFFIX}`
  try {
    scriptTranspiler('js').scan(wrapped)
    return { ok: true, source: wrapped, typescript: false }
  } catch {
    // Not plain JavaScript: maybe TypeScript; that transpile decides whether it is a syntax error.
  }
  try {
    return { ok: true, source: scriptTranspiler('ts').transformSync(wrapped), typescript: true }
  } catch (error) {
    return { ok: false, failure: syntaxFailure(error, code.split('\n').length) }
  }
}

/** The line (1-based) of a static `import …` or `export …` statement, which the sandbox cannot honour. */
function importLine(code: string): number | undefined {
  const lines = code.split('\n')
  const index = lines.findIndex((line) => /^\s*(import\s*(?:[\w*{]|["'])|export\s)/.test(line))
  return index < 0 ? undefined : index + 1
}

interface BuildMessageLike {
  message?: unknown
  position?: { line?: number; column?: number; lineText?: string } | null
}

/** Bun throws a BuildMessage, or an AggregateError of them, for code that does not parse. */
function syntaxFailure(error: unknown, scriptLines: number): ScriptFailure {
  const first: BuildMessageLike =
    error instanceof AggregateError && error.errors.length > 0 ? (error.errors[0] as BuildMessageLike) : (error as BuildMessageLike)
  const message = typeof first?.message === 'string' ? first.message : String(error)
  const line = first?.position?.line
  const column = first?.position?.column
  if (typeof line !== 'number') return { reason: 'syntax', name: 'SyntaxError', message }
  // Past the last line means the wrapper's closing brace: the script ended too early.
  if (line > scriptLines)
    return {
      reason: 'syntax',
      name: 'SyntaxError',
      message: `${message} (unexpected end of script, line ${scriptLines})`,
      line: scriptLines,
    }
  // Column on line 1 includes the wrapper prefix.
  const col = typeof column === 'number' ? (line === 1 ? Math.max(0, column - PREFIX.length) : column) : undefined
  return {
    reason: 'syntax',
    name: 'SyntaxError',
    message: `${message} (line ${line})`,
    line,
    ...(col === undefined ? {} : { column: col }),
  }
}
