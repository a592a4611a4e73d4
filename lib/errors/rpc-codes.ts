/**
 * JSON-RPC error codes used by MCP. Cited from the spec; the era-specific ones are chosen by the
 * wire codec for the peer's revision, never hard-coded at a call site.
 */
export const RPC = {
  /** JSON-RPC 2.0 section 5.1 */
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** Resource not found, 2024-11-05…2025-11-25 (2025-11-25/server/resources.mdx). Reserved in 2026. */
  RESOURCE_NOT_FOUND_LEGACY: -32002,
  /** URLElicitationRequiredError, 2025-11-25 only (2025-11-25 schema.ts). */
  URL_ELICITATION_REQUIRED: -32042,
  /** HeaderMismatch, 2026-07-28 (basic/transports/streamable-http.mdx). */
  HEADER_MISMATCH: -32020,
  /** MissingRequiredClientCapability, 2026-07-28 (basic/index.mdx). */
  MISSING_CLIENT_CAPABILITY: -32021,
  /** UnsupportedProtocolVersion, 2026-07-28 (basic/versioning.mdx). */
  UNSUPPORTED_PROTOCOL_VERSION: -32022,
} as const

export type RpcCode = (typeof RPC)[keyof typeof RPC]
