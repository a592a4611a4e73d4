/**
 * Human rendering of MCP results for the terminal. `--json` bypasses this and prints the result as
 * the spec shapes it; here content blocks become readable text and structured content pretty JSON.
 * Tool signatures, which need code mode's type renderer, are cli/signature.ts's: a warm `mcpx call`
 * prints its result without loading that.
 */
import type { ServerStatus } from '../lib/daemon/index.ts'
import { McpxError } from '../lib/errors/index.ts'

type JsonObject = Record<string, unknown>

/**
 * A CallToolResult as text: text blocks verbatim, other blocks summarised, structuredContent as
 * JSON. The first binary block (binaryContent) says how to get its bytes, or, with `out`, where
 * they were written.
 */
export function renderToolResult(result: JsonObject, options: { readonly out?: string } = {}): string {
  const lines: string[] = []
  const content = Array.isArray(result.content) ? (result.content as JsonObject[]) : []
  const binary = binaryContent(result)
  content.forEach((block, index) => {
    const text = renderContent(block)
    if (index !== binary?.index) return void lines.push(text)
    const note = options.out === undefined ? '--out FILE writes it' : `written to ${options.out}`
    lines.push(`${text.slice(0, -1)}; ${note}]`)
  })
  if (result.structuredContent !== undefined && !content.some((b) => b.type === 'text')) {
    lines.push(JSON.stringify(result.structuredContent, null, 2))
  }
  return lines.join('\n')
}

function renderContent(block: JsonObject): string {
  switch (block.type) {
    case 'text':
      return String(block.text ?? '')
    case 'image':
    case 'audio':
      return `[${block.type} ${String(block.mimeType ?? '')}, ${base64Size(String(block.data ?? ''))}]`
    case 'resource': {
      const resource = (block.resource ?? {}) as JsonObject
      return typeof resource.text === 'string'
        ? `[resource ${String(resource.uri)}]\n${resource.text}`
        : `[resource ${String(resource.uri)}, ${String(resource.mimeType ?? 'binary')}]`
    }
    case 'resource_link':
      return `[link ${String(block.uri)}${block.name ? ` ${String(block.name)}` : ''}]`
    default:
      return JSON.stringify(block)
  }
}

/** The first content block of a tool result that carries bytes: an image, audio, or an embedded binary resource. */
export function binaryContent(
  result: JsonObject,
): { readonly index: number; readonly base64: string; readonly mimeType: string } | undefined {
  const content = Array.isArray(result.content) ? (result.content as JsonObject[]) : []
  for (const [index, block] of content.entries()) {
    if ((block.type === 'image' || block.type === 'audio') && typeof block.data === 'string')
      return { index, base64: block.data, mimeType: String(block.mimeType ?? 'binary') }
    const resource = block.type === 'resource' ? ((block.resource ?? {}) as JsonObject) : undefined
    if (typeof resource?.blob === 'string') return { index, base64: resource.blob, mimeType: String(resource.mimeType ?? 'binary') }
  }
  return undefined
}

/**
 * Base64 as the schema's `format: "byte"` fields carry it (image and audio `data`, a resource's
 * `blob`): whole groups, then an optionally padded tail. Line breaks (RFC 2045 wrapping) are
 * ignored; the URL-safe alphabet is read too. Anything else is refused rather than decoded
 * leniently into bytes that are not the server's.
 */
const BASE64 = /^(?:[A-Za-z0-9+/_-]{4})*(?:[A-Za-z0-9+/_-]{2}(?:==)?|[A-Za-z0-9+/_-]{3}=?)?$/

/** `data` without the line breaks a base64 producer may wrap it with, when it is base64; else undefined. */
function compactBase64(data: string): string | undefined {
  const compact = data.replace(/\s+/g, '')
  return BASE64.test(compact) ? compact : undefined
}

/** The bytes of a result's base64 field, or a PROTOCOL error naming `what` (`image data`, `blob x://a`). */
export function decodeBase64(data: string, what: string): Buffer {
  const compact = compactBase64(data)
  if (compact === undefined) throw new McpxError('PROTOCOL', `the server sent ${what} that is not valid base64`, { what })
  return Buffer.from(compact, 'base64')
}

/**
 * `N bytes` for the base64 `data`, or that it is none (a summary line never refuses). Counted
 * from its length (four characters hold three bytes, less the padding), not decoded.
 */
export function base64Size(data: string): string {
  const compact = compactBase64(data)
  if (compact === undefined) return 'not valid base64'
  const padding = compact.endsWith('==') ? 2 : compact.endsWith('=') ? 1 : 0
  return `${Math.floor((compact.length * 3) / 4) - padding} bytes`
}

/**
 * An error's first line, for a table cell (the full text belongs to --verbose). A crashed server's
 * quoted stderr often opens with start-up chatter and names its error further down (a Node or
 * Python `SomethingError: …` line): that line is kept too, the last one when there are several.
 */
export function firstLine(text: string): string {
  const line = text.split('\n')[0]!.trim()
  if (line.length >= text.trim().length) return line
  const named = text
    .split('\n')
    .slice(1)
    .map((l) => l.trim())
    .findLast((l) => /^[\w.$]*(Error|Exception)\b[^:]*:/.test(l))
  return named ? `${line} … ${named}` : `${line} …`
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`)
}

/** `failed: REASON` / `unavailable: REASON`, else the bare state: the one rendering of a server state. */
export function stateText(server: { readonly state: string; readonly reason?: string; readonly retryInMs?: number }): string {
  // The next try goes before the reason: a reason quoting stderr runs over several lines.
  const retry = server.retryInMs === undefined ? '' : ` (next try in ${Math.max(1, Math.round(server.retryInMs / 1000))} s)`
  return server.reason !== undefined ? `${server.state}${retry}: ${server.reason}` : server.state
}

/**
 * The table of upstream servers `servers` and `status` print, one line each: name, state (its first
 * line unless `verbose`), transport, era and revision, endpoint, and an error no state explains.
 * Columns line up under the longest single-line state (a multi-line --verbose one cannot).
 */
export function serverTable(
  servers: readonly ServerStatus[],
  options: { readonly verbose?: boolean; readonly indent?: string } = {},
): string {
  const indent = options.indent ?? ''
  const width = Math.max(4, ...servers.map((s) => s.name.length))
  const states = servers.map((s) => (options.verbose ? stateText(s) : firstLine(stateText(s))))
  const stateWidth = Math.max(10, ...states.filter((state) => !state.includes('\n')).map((state) => state.length))
  return servers
    .map((s, i) => {
      const era = s.revision ? `${s.era} ${s.revision}` : ''
      const error = s.error && s.reason === undefined ? `  (${options.verbose ? s.error.message : firstLine(s.error.message)})` : ''
      return `${indent}${s.name.padEnd(width)}  ${states[i]!.padEnd(stateWidth)}  ${s.transport.padEnd(5)}  ${era.padEnd(17)}  ${s.endpoint}${error}\n`
    })
    .join('')
}
