/**
 * The per-connection facts every outgoing message is shaped from: era, revision, transport kind,
 * the client's capabilities and identity, and the `x-mcp-header` map of listed tools. One object
 * shared by the Peer's header hook and the client, so a renegotiation changes every later message.
 */
import type { TransportKind } from '../transport/index.ts'
import {
  hasFeature,
  type Era,
  HEADER,
  type HeaderTool,
  type JsonRpcMessage,
  META,
  type Revision,
  isRequest,
  requestHeaders,
} from '../wire/index.ts'
import type { ClientHandlers, Implementation, JsonObject } from './connect-options.ts'

export interface WireState {
  era?: Era
  revision?: Revision
  transport: TransportKind
  clientInfo: Implementation
  handlers: ClientHandlers
  extraCapabilities?: JsonObject
  /** Listed tools by name (modern HTTP), whose `x-mcp-header` annotations become Mcp-Param-* headers. */
  tools: Map<string, HeaderTool>
}

/** Client capabilities as the given era/revision spells them. */
export function clientCapabilities(state: WireState, era: Era, revision?: Revision): JsonObject {
  const caps: JsonObject = {}
  const { onElicit, onSample, onListRoots, elicitUrl } = state.handlers
  if (onElicit) {
    // 2025-06-18 knows only `elicitation: {}`; 2025-11-25 and 2026 name the modes (empty = form only).
    if (revision !== undefined && !hasFeature(revision, 'urlElicitation')) caps.elicitation = {}
    else caps.elicitation = elicitUrl ? { form: {}, url: {} } : { form: {} }
  }
  if (onSample) caps.sampling = {}
  // 2026 drops roots.listChanged (2026-07-28 schema/schema.json ClientCapabilities); legacy clients may announce it.
  if (onListRoots) caps.roots = era === 'modern' ? {} : { listChanged: true }
  return { ...caps, ...state.extraCapabilities }
}

/** Per-request `_meta` of the modern era (2026-07-28 basic/index.mdx "_meta"). */
function modernMeta(state: WireState, revision: Revision): JsonObject {
  return {
    [META.PROTOCOL_VERSION]: revision,
    [META.CLIENT_CAPABILITIES]: clientCapabilities(state, 'modern', revision),
    [META.CLIENT_INFO]: state.clientInfo,
  }
}

/** Params with the modern `_meta` merged in (caller-set keys such as progressToken kept). */
export function withModernMeta(state: WireState, params: JsonObject | undefined, revision: Revision): JsonObject {
  const own = (params?._meta as JsonObject | undefined) ?? {}
  return { ...(params ?? {}), _meta: { ...own, ...modernMeta(state, revision) } }
}

/** The Peer's header hook: HTTP headers for each outgoing message (lib/wire requestHeaders). */
export function headersFor(state: WireState, message: JsonRpcMessage): Record<string, string> | undefined {
  if (state.transport === 'stdio' || !state.revision) return undefined
  if ('method' in message) {
    const params = message.params
    const tool =
      isRequest(message) && message.method === 'tools/call' && typeof params?.name === 'string' ? state.tools.get(params.name) : undefined
    // Legacy 2025-06-18+: MCP-Protocol-Version, the negotiated version, on everything after initialize
    // (2025-11-25 basic/transports.mdx "Protocol Version Header"); 2026: + Mcp-Method/Name/Param-*.
    return requestHeaders(state.revision, message.method, params, tool)
  }
  // A response POSTed back to a legacy server still carries the negotiated version.
  return state.revision !== undefined && hasFeature(state.revision, 'protocolVersionHeader')
    ? { [HEADER.PROTOCOL_VERSION]: state.revision }
    : undefined
}
