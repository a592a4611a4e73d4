/**
 * Header value codec for the 2026-07-28 request metadata headers (`Mcp-Name`, `Mcp-Param-*`).
 * 2026-07-28 basic/transports/streamable-http.mdx "Value Encoding": plain values are visible ASCII,
 * space and tab; anything else (and anything that already looks like the sentinel) travels as
 * `=?base64?{base64 of UTF-8}?=`. Decoding is strict so a server can answer -32020 on garbage.
 */
import type { RpcError } from '../errors/index.ts'
import { BASE64_SENTINEL } from './constants.ts'
import { headerMismatch } from './rpc-errors.ts'

/** JavaScript's safe-integer bound; streamable-http.mdx "Schema Extension": integers MUST be within ±(2^53−1). */
export const MAX_HEADER_INTEGER = Number.MAX_SAFE_INTEGER

// RFC 9110 section 5.5 field-value characters: VCHAR (0x21-0x7E), SP and HTAB.
const FIELD_VALUE_CHARS = /^[\x20\x21-\x7e\t]*$/
const EDGE_WHITESPACE = /^[ \t]|[ \t]$/
const BASE64_BODY = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** True when `value` starts with `=?base64?` and ends with `?=` (the exact, lowercase markers). */
function looksLikeSentinel(value: string): boolean {
  return (
    value.length >= BASE64_SENTINEL.PREFIX.length + BASE64_SENTINEL.SUFFIX.length &&
    value.startsWith(BASE64_SENTINEL.PREFIX) &&
    value.endsWith(BASE64_SENTINEL.SUFFIX)
  )
}

/** True when `text` may be sent as a header value without the base64 sentinel. */
function isPlainHeaderSafe(text: string): boolean {
  return FIELD_VALUE_CHARS.test(text) && !EDGE_WHITESPACE.test(text) && !looksLikeSentinel(text)
}

/**
 * Type conversion then encoding (streamable-http.mdx "Value Encoding"): string as-is, integer as
 * decimal, boolean as "true"/"false". Throws RangeError on non-integers and unsafe integers, which
 * the spec does not allow in headers.
 */
export function encodeHeaderValue(value: string | number | boolean): string {
  const text = headerText(value)
  return isPlainHeaderSafe(text) ? text : `${BASE64_SENTINEL.PREFIX}${utf8ToBase64(text)}${BASE64_SENTINEL.SUFFIX}`
}

/**
 * Decode one received header value. Sentinel values must carry canonical, padded base64 of valid
 * UTF-8; plain values must be RFC 9110 field-value characters. Anything else is HeaderMismatch
 * (-32020, HTTP 400; streamable-http.mdx "Server Validation").
 */
export function decodeHeaderValue(raw: string): string {
  if (looksLikeSentinel(raw)) {
    const body = raw.slice(BASE64_SENTINEL.PREFIX.length, raw.length - BASE64_SENTINEL.SUFFIX.length)
    if (!BASE64_BODY.test(body)) throw headerError(`header value ${JSON.stringify(raw)} is not valid base64`)
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(atob(body), (c) => c.charCodeAt(0)))
    } catch {
      throw headerError(`header value ${JSON.stringify(raw)} does not decode to UTF-8`)
    }
  }
  if (!FIELD_VALUE_CHARS.test(raw))
    throw headerError(`header value ${JSON.stringify(raw)} contains characters outside RFC 9110 field-value`)
  return raw
}

/**
 * Does a received (still encoded) header value match the body value it mirrors? Integers compare
 * numerically so `42.0` equals `42` (streamable-http.mdx "Server Validation"); booleans by their
 * lowercase spelling; strings exactly (values are case-sensitive). Throws -32020 on undecodable input.
 */
export function headerMatchesValue(raw: string, bodyValue: unknown): boolean {
  const decoded = decodeHeaderValue(raw)
  if (typeof bodyValue === 'string') return decoded === bodyValue
  if (typeof bodyValue === 'boolean') return decoded === String(bodyValue)
  if (typeof bodyValue === 'number') return decoded.trim() !== '' && Number(decoded) === bodyValue
  return false
}

function headerText(value: string | number | boolean): string {
  if (typeof value === 'string') return value
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  if (!Number.isInteger(value) || Math.abs(value) > MAX_HEADER_INTEGER) {
    throw new RangeError(`header value ${value} is not an integer within ±(2^53−1)`)
  }
  return String(value)
}

function utf8ToBase64(text: string): string {
  let binary = ''
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte)
  return btoa(binary)
}

function headerError(message: string): RpcError {
  return headerMismatch(message)
}
