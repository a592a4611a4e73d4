/**
 * Read only the envelope of one JSON-RPC line — its top-level `id` (as raw JSON text, byte-exact)
 * and `method`, and whether it is a response — without parsing or copying the body. A relay that
 * copies bytes (the `mcpx serve` shim) uses it to know which requests are in flight; the body
 * (params, result) is skipped by matching brackets and quotes, never decoded.
 * JSON-RPC 2.0 sections 4-5: a request has `method` and `id`, a notification `method` only, a response
 * `id` plus `result` or `error`.
 */

import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-bytes.ts'

export interface Envelope {
  /** The top-level `id` exactly as written (e.g. `7`, `"a-1"`, `9007199254740993`), when present. */
  readonly id?: string
  readonly method?: string
  /** A top-level `result` or `error` member: the line is a response. */
  readonly response: boolean
  /** A top-level `error` member: an error response. */
  readonly error: boolean
}

const decoder = new TextDecoder()

const isSpace = (c: number | undefined) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d

/**
 * The envelope of the JSON object in `bytes[start, end)`, or undefined when the line is not an
 * object (a batch array, or not JSON at all): the receiving server answers those itself.
 * Stops reading as soon as the kind and id are known.
 */
export function scanEnvelope(bytes: Uint8Array, start = 0, end = bytes.length): Envelope | undefined {
  let i = skipSpace(bytes, start, end)
  if (bytes[i] !== OPEN_BRACE) return undefined
  i++
  let id: string | undefined
  let method: string | undefined
  let response = false
  let failed = false
  while (i < end) {
    i = skipSpace(bytes, i, end)
    if (bytes[i] === CLOSE_BRACE) break
    if (bytes[i] !== QUOTE) return undefined
    const keyStart = i + 1
    i = skipString(bytes, i, end)
    const keyEnd = i - 1
    i = skipSpace(bytes, i, end)
    if (bytes[i] !== COLON) return undefined
    i = skipSpace(bytes, i + 1, end)
    const valueStart = i
    i = skipValue(bytes, i, end)
    if (i < 0) return undefined
    const key = keyName(bytes, keyStart, keyEnd)
    if (key === 'id') id = decoder.decode(bytes.subarray(valueStart, trimEnd(bytes, valueStart, i)))
    else if (key === 'method') method = readString(bytes, valueStart, i)
    else if (key === 'result') response = true
    else if (key === 'error') response = failed = true
    if (id !== undefined && (method !== undefined || response)) break
    i = skipSpace(bytes, i, end)
    if (bytes[i] === COMMA) i++
  }
  return { ...(id !== undefined && { id }), ...(method !== undefined && { method }), response, error: failed }
}

/**
 * The envelopes of a 2025-03-26 batch line (a JSON array of messages), member by member, or
 * undefined when the line is no array or its JSON is broken. A member that is no object has none.
 */
export function scanBatch(bytes: Uint8Array, start = 0, end = bytes.length): Envelope[] | undefined {
  let i = skipSpace(bytes, start, end)
  if (bytes[i] !== OPEN_BRACKET) return undefined
  const envelopes: Envelope[] = []
  for (i = skipSpace(bytes, i + 1, end); i < end && bytes[i] !== CLOSE_BRACKET; ) {
    const memberEnd = skipValue(bytes, i, end)
    // No value where a member goes (`[}`, `[1,,2]`): broken, and scanning on would not move.
    if (memberEnd <= i) return undefined
    const envelope = scanEnvelope(bytes, i, memberEnd)
    if (envelope !== undefined) envelopes.push(envelope)
    i = skipSpace(bytes, memberEnd, end)
    if (bytes[i] === COMMA) i = skipSpace(bytes, i + 1, end)
    else if (bytes[i] !== CLOSE_BRACKET) return undefined
  }
  return envelopes
}

/** The four member names that matter, compared as bytes (no decoding of other keys). */
function keyName(bytes: Uint8Array, start: number, end: number): 'id' | 'method' | 'result' | 'error' | undefined {
  const length = end - start
  if (length === 2 && bytes[start] === 0x69 && bytes[start + 1] === 0x64) return 'id'
  if (length === 6 && matches(bytes, start, 'method')) return 'method'
  if (length === 6 && matches(bytes, start, 'result')) return 'result'
  if (length === 5 && matches(bytes, start, 'error')) return 'error'
  return undefined
}

function matches(bytes: Uint8Array, start: number, word: string): boolean {
  for (let k = 0; k < word.length; k++) if (bytes[start + k] !== word.charCodeAt(k)) return false
  return true
}

function readString(bytes: Uint8Array, start: number, end: number): string | undefined {
  if (bytes[start] !== QUOTE) return undefined
  const inner = bytes.subarray(start + 1, end - 1)
  const text = decoder.decode(inner)
  if (!inner.includes(BACKSLASH)) return text
  try {
    return JSON.parse(`"${text}"`) as string
  } catch {
    // A broken escape: no method (the receiving server answers the line itself).
    return undefined
  }
}

function skipSpace(bytes: Uint8Array, i: number, end: number): number {
  while (i < end && isSpace(bytes[i])) i++
  return i
}

function trimEnd(bytes: Uint8Array, start: number, i: number): number {
  while (i > start && isSpace(bytes[i - 1])) i--
  return i
}

/** `i` at an opening quote: the index just past the closing one (end when unterminated). */
function skipString(bytes: Uint8Array, i: number, end: number): number {
  let j = i
  for (;;) {
    j = bytes.indexOf(QUOTE, j + 1)
    if (j < 0 || j >= end) return end
    let backslashes = 0
    while (bytes[j - 1 - backslashes] === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return j + 1
  }
}

/** `i` at a value: the index just past it, or -1 when the JSON is broken. */
function skipValue(bytes: Uint8Array, i: number, end: number): number {
  const first = bytes[i]
  if (first === QUOTE) return skipString(bytes, i, end)
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0
    while (i < end) {
      const c = bytes[i]
      if (c === QUOTE) {
        i = skipString(bytes, i, end)
        continue
      }
      if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++
      else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        depth--
        if (depth === 0) return i + 1
      }
      i++
    }
    return -1
  }
  // A number, true, false or null: up to the next delimiter.
  while (i < end) {
    const c = bytes[i]
    if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c)) break
    i++
  }
  return i
}
