/**
 * MCP Apps (extension `io.modelcontextprotocol/ui`, stable 2026-01-26; spec extensions/overview.mdx) through a gateway that
 * renames tools: a tool's `_meta.ui.resourceUri` (and the deprecated flat `_meta["ui/resourceUri"]`)
 * names a `ui://` resource of ITS server, so on the renamed surfaces it becomes
 * `ui://<server>/<the upstream URI without its scheme>`: still `ui://` (the scheme is reserved for
 * apps and hosts key on it), served by mcpx, and one to one per upstream (the server name is the
 * first segment, so two upstreams using the same URI never collide). Everything else in `_meta.ui`
 * (visibility, csp, permissions, domain, prefersBorder) is passed on untouched.
 */
import type { JsonObject } from '../client/index.ts'
import { MCP_APPS, isRecord } from '../wire/index.ts'

/** The `ui://` URI the renamed surfaces serve for `uri` of `server`. */
export function appResourceUri(server: string, uri: string): string {
  return `${MCP_APPS.SCHEME}${encodeURIComponent(server)}/${uri.slice(MCP_APPS.SCHEME.length)}`
}

/** The upstream and its own URI behind a URI made by appResourceUri (undefined when it is none). */
export function upstreamAppResource(uri: string): { server: string; uri: string } | undefined {
  if (!uri.startsWith(MCP_APPS.SCHEME)) return undefined
  const rest = uri.slice(MCP_APPS.SCHEME.length)
  const slash = rest.indexOf('/')
  if (slash <= 0) return undefined
  let server: string
  try {
    server = decodeURIComponent(rest.slice(0, slash))
  } catch {
    return undefined
  }
  return { server, uri: `${MCP_APPS.SCHEME}${rest.slice(slash + 1)}` }
}

export function isAppResourceUri(uri: string): boolean {
  return uri.startsWith(MCP_APPS.SCHEME)
}

/** The UI resource a tool links (either spelling), if any. */
export function appOf(tool: JsonObject): string | undefined {
  const meta = tool._meta
  if (!isRecord(meta)) return undefined
  const ui = meta[MCP_APPS.META_KEY]
  if (isRecord(ui) && typeof ui.resourceUri === 'string') return ui.resourceUri
  const flat = meta[MCP_APPS.FLAT_RESOURCE_URI]
  return typeof flat === 'string' ? flat : undefined
}

/** A tool's `_meta` with its UI resource links re-addressed to what mcpx serves for `server`. */
export function rewriteAppMeta(server: string, meta: JsonObject): JsonObject {
  const out: JsonObject = { ...meta }
  const ui = meta[MCP_APPS.META_KEY]
  if (isRecord(ui) && typeof ui.resourceUri === 'string' && isAppResourceUri(ui.resourceUri)) {
    out[MCP_APPS.META_KEY] = { ...ui, resourceUri: appResourceUri(server, ui.resourceUri) }
  }
  const flat = meta[MCP_APPS.FLAT_RESOURCE_URI]
  if (typeof flat === 'string' && isAppResourceUri(flat)) out[MCP_APPS.FLAT_RESOURCE_URI] = appResourceUri(server, flat)
  return out
}

/** What mcpx declares upstream: it can carry apps to hosts that render them (README "Brokering"). */
export const UI_EXTENSION_SETTINGS = { mimeTypes: [MCP_APPS.MIME_TYPE] }
