/**
 * Stable string codes of the McpxError tree. Scripts, exit codes and `data.mcpxCode` on the wire
 * key on these, never on message text.
 */
export const ERROR_CODES = {
  USAGE: 'bad command line',
  CONFIG: 'bad configuration or setting',
  CONNECT: 'upstream could not be reached, spawned or kept alive',
  TIMEOUT: 'a deadline passed',
  CANCELLED: 'the caller cancelled the operation',
  AUTH: 'authentication or authorization failed',
  PEER: 'the peer answered with a JSON-RPC error',
  PROTOCOL: 'the peer broke the protocol (malformed frame, wrong shape)',
  ERA: 'no protocol era or revision in common',
  NOT_FOUND: 'no such server, tool, prompt, resource or recording entry',
  TOOL: 'the tool ran and reported isError',
  SANDBOX: 'agent code failed or broke a sandbox limit',
  INTERNAL: 'a bug in mcpx',
} as const

export type ErrorCode = keyof typeof ERROR_CODES
