/**
 * The HTTP request headers mcpx must add when it relays or re-sends raw messages to a Streamable
 * HTTP server (the client engine normally does this): `MCP-Protocol-Version` after a legacy
 * handshake (2025-06-18+), and in 2026 `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` for the tools it
 * has seen listed (2026-07-28 basic/transports/streamable-http.mdx "Request Metadata").
 */
import {
  META,
  isModernRevision,
  isRequest,
  isResponse,
  isRevision,
  requestHeaders,
  type HeaderTool,
  type JsonRpcMessage,
  type Revision,
} from '../wire/index.ts'

export class HeaderMirror {
  readonly #tools = new Map<string, HeaderTool>()
  readonly #pending = new Map<string, string>()
  #legacyRevision: Revision | undefined

  constructor(legacyRevision?: Revision) {
    this.#legacyRevision = legacyRevision
  }

  /** Note an outgoing message (to pair responses with their methods). */
  sent(message: JsonRpcMessage): void {
    if (isRequest(message)) this.#pending.set(JSON.stringify(message.id), message.method)
  }

  /** Learn the negotiated revision and the tools' x-mcp-header annotations from responses. */
  received(message: JsonRpcMessage): void {
    if (!isResponse(message) || !('result' in message)) return
    const method = this.#pending.get(JSON.stringify(message.id))
    this.#pending.delete(JSON.stringify(message.id))
    const result = message.result as Record<string, unknown>
    if (method === 'initialize' && isRevision(result.protocolVersion)) this.#legacyRevision = result.protocolVersion
    if (method === 'tools/list' && Array.isArray(result.tools)) {
      for (const tool of result.tools as HeaderTool[]) if (typeof tool?.name === 'string') this.#tools.set(tool.name, tool)
    }
  }

  /** Headers for `message`, or undefined when none are due. */
  headersFor(message: JsonRpcMessage): Record<string, string> | undefined {
    const method = 'method' in message ? message.method : ''
    const params = 'params' in message ? message.params : undefined
    const modern = (params?._meta as Record<string, unknown> | undefined)?.[META.PROTOCOL_VERSION]
    const revision = isModernRevision(modern) ? modern : this.#legacyRevision
    if (revision === undefined) return undefined
    const name = method === 'tools/call' ? params?.name : undefined
    try {
      return requestHeaders(revision, method, params, typeof name === 'string' ? this.#tools.get(name) : undefined)
    } catch {
      // A tool with invalid x-mcp-header annotations: send without Mcp-Param-* and let the server judge.
      return requestHeaders(revision, method, params)
    }
  }
}
