/**
 * The two ways a conversation starts: the legacy `initialize` handshake (2025-11-25
 * basic/lifecycle.mdx: offer one version, accept a counter-offer we speak, then
 * `notifications/initialized`) and the modern `server/discover` (2026-07-28 server/discover.mdx),
 * including the -32022 renegotiation within the server's `supported` list (2026-07-28 basic/versioning.mdx "Protocol Version Negotiation").
 */
import { McpxError, RPC, RpcError } from '../errors/index.ts'
import type { Peer } from '../session/index.ts'
import {
  LATEST_LEGACY,
  LATEST_MODERN,
  LEGACY_REVISIONS,
  META,
  MODERN_REVISIONS,
  type Revision,
  isLegacyRevision,
  isModernRevision,
} from '../wire/index.ts'
import type { Implementation, JsonObject, ServerIdentity } from './connect-options.ts'
import { type WireState, clientCapabilities, withModernMeta } from './wire-state.ts'

/** JSON-RPC errors only a modern server sends: seeing one means "modern, fix the request". */
const MODERN_ERROR_CODES: ReadonlySet<number> = new Set([
  RPC.UNSUPPORTED_PROTOCOL_VERSION,
  RPC.MISSING_CLIENT_CAPABILITY,
  RPC.HEADER_MISMATCH,
])

export function isModernError(error: unknown): error is RpcError {
  return error instanceof RpcError && MODERN_ERROR_CODES.has(error.rpcCode)
}

/** The newest modern revision both sides speak, from a -32022 `data.supported` or DiscoverResult. */
export function pickModern(supported: unknown, pinned?: Revision): Revision | undefined {
  if (!Array.isArray(supported)) return undefined
  const ours = pinned ? [pinned] : [...MODERN_REVISIONS].reverse()
  return ours.find((rev) => supported.includes(rev) && isModernRevision(rev))
}

export async function initializeLegacy(
  peer: Peer,
  state: WireState,
  offer: Revision,
  options: { pinned?: boolean; timeoutMs?: number } = {},
): Promise<ServerIdentity> {
  let offered: Revision = isLegacyRevision(offer) ? offer : LATEST_LEGACY
  state.era = undefined
  state.revision = undefined
  const ask = () =>
    peer.request(
      'initialize',
      { protocolVersion: offered, capabilities: clientCapabilities(state, 'legacy', offered), clientInfo: state.clientInfo },
      // The client MUST NOT cancel initialize (2025-11-25 basic/utilities/cancellation.mdx).
      { cancel: 'none', timeoutMs: options.timeoutMs },
    )
  let result: JsonObject
  try {
    result = await ask()
  } catch (error) {
    // Some servers refuse an unknown version with an error naming `data.supported` instead of
    // counter-offering (2025-11-25 basic/lifecycle.mdx "Error Handling"): offer the newest one we share, once.
    const supported = error instanceof RpcError ? (error.rpcData as JsonObject | undefined)?.supported : undefined
    const shared =
      Array.isArray(supported) && !options.pinned
        ? [...LEGACY_REVISIONS].reverse().find((rev) => rev !== offered && supported.includes(rev))
        : undefined
    if (!shared) throw error
    offered = shared
    result = await ask()
  }
  const version = result.protocolVersion
  // Any legacy revision from 2024-11-05 up is fine; a pinned offer must be echoed.
  if (!isLegacyRevision(version) || (options.pinned && version !== offered)) {
    throw new McpxError(
      'ERA',
      `server answered initialize with protocol version ${JSON.stringify(version)}, which mcpx does not speak${options.pinned ? ` (pinned ${offered})` : ''}`,
      {
        offered,
        answered: version,
      },
    )
  }
  state.era = 'legacy'
  state.revision = version
  await peer.notify('notifications/initialized')
  return {
    era: 'legacy',
    revision: version,
    transport: state.transport,
    supportedVersions: [version],
    serverInfo: result.serverInfo as Implementation | undefined,
    capabilities: (result.capabilities as JsonObject | undefined) ?? {},
    instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
  }
}

/**
 * `server/discover` under the preferred modern revision; a -32022 naming another modern revision
 * we speak is retried once under it. Throws the peer's error otherwise (the caller decides
 * whether that means legacy).
 */
export async function discoverModern(
  peer: Peer,
  state: WireState,
  options: { pinned?: Revision; timeoutMs?: number } = {},
): Promise<ServerIdentity> {
  let revision: Revision = options.pinned ?? LATEST_MODERN
  for (let attempt = 0; ; attempt++) {
    state.era = 'modern'
    state.revision = revision
    try {
      const result = await peer.request('server/discover', withModernMeta(state, {}, revision), {
        // An era probe must not cancel: a legacy server has not been initialized yet.
        cancel: 'none',
        timeoutMs: options.timeoutMs,
      })
      const supported = Array.isArray(result.supportedVersions) ? result.supportedVersions.map(String) : [revision]
      if (!supported.includes(revision)) {
        const other = pickModern(supported, options.pinned)
        if (other && attempt === 0) {
          revision = other
          continue
        }
      }
      const meta = (result._meta as JsonObject | undefined) ?? {}
      const serverInfo = (meta[META.SERVER_INFO] ?? result.serverInfo) as Implementation | undefined
      return {
        era: 'modern',
        revision,
        transport: state.transport,
        supportedVersions: supported,
        serverInfo,
        capabilities: (result.capabilities as JsonObject | undefined) ?? {},
        instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
      }
    } catch (error) {
      if (error instanceof RpcError && error.rpcCode === RPC.UNSUPPORTED_PROTOCOL_VERSION && attempt === 0) {
        const next = pickModern((error.rpcData as JsonObject | undefined)?.supported, options.pinned)
        if (next) {
          revision = next
          continue
        }
        throw new McpxError(
          'ERA',
          `server supports none of mcpx's modern revisions (it named ${JSON.stringify((error.rpcData as JsonObject | undefined)?.supported)})`,
          {
            supported: (error.rpcData as JsonObject | undefined)?.supported,
            legacyOnly: true,
          },
        )
      }
      state.era = undefined
      state.revision = undefined
      throw error
    }
  }
}
