/**
 * The CLI's exit-code table and its one error reporter. This is the only place that sets
 * process.exitCode. A failure prints `mcpx: <message>` on stderr; with --json, or when stderr is not
 * a TTY, also one line `{"error":{"code","message","data"}}` so scripts can branch on the code.
 */
import { type ErrorCode, McpxError, asMcpxError } from '../lib/errors/index.ts'

/** Documented in README "Exit codes". */
export const EXIT = {
  OK: 0,
  /** The tool ran and returned isError. */
  TOOL: 1,
  /** Bad command line or configuration. */
  USAGE: 2,
  /** Could not spawn/reach the server, or a deadline passed. */
  CONNECT: 3,
  /** Authentication or authorization failed. */
  AUTH: 4,
  /** The peer answered with a JSON-RPC error, broke the protocol, or no era/revision in common. */
  PEER: 5,
  /** Replay found a divergence from the recording. */
  DIVERGED: 6,
  /** A bug in mcpx (sysexits EX_SOFTWARE). */
  INTERNAL: 70,
} as const

const EXIT_BY_CODE: Record<ErrorCode, number> = {
  USAGE: EXIT.USAGE,
  CONFIG: EXIT.USAGE,
  NOT_FOUND: EXIT.USAGE,
  CONNECT: EXIT.CONNECT,
  TIMEOUT: EXIT.CONNECT,
  CANCELLED: EXIT.CONNECT,
  AUTH: EXIT.AUTH,
  PEER: EXIT.PEER,
  PROTOCOL: EXIT.PEER,
  ERA: EXIT.PEER,
  TOOL: EXIT.TOOL,
  SANDBOX: EXIT.TOOL,
  INTERNAL: EXIT.INTERNAL,
}

function exitCodeFor(error: McpxError): number {
  return EXIT_BY_CODE[error.code] ?? EXIT.INTERNAL
}

/** citty's CLIError is not exported; recognise it by name (`error.name === 'CLIError'`). */
function fromCitty(error: unknown): McpxError | undefined {
  if (error instanceof Error && error.name === 'CLIError') return new McpxError('USAGE', error.message.replace(/\u001b\[[0-9;]*m/g, ''))
  return undefined
}

/** Print the error on stderr (human line, plus JSON envelope when asked) and set the exit code. */
export function reportError(error: unknown, options: { json?: boolean } = {}): void {
  const mcpxError = fromCitty(error) ?? asMcpxError(error)
  const stderr = process.stderr
  stderr.write(`mcpx: ${mcpxError.message}\n`)
  if (options.json || !stderr.isTTY) stderr.write(`${JSON.stringify({ error: mcpxError.toJSON() })}\n`)
  if (mcpxError.code === 'INTERNAL' && mcpxError.cause instanceof Error && mcpxError.cause.stack) {
    stderr.write(`${mcpxError.cause.stack}\n`)
  }
  setExitCode(exitCodeFor(mcpxError))
}

export function setExitCode(code: number): void {
  process.exitCode = code
}
