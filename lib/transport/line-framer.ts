/**
 * Newline-delimited JSON framing over a byte stream (stdio, and any byte-stream transport:
 * 2026-07-28 basic/transports/stdio.mdx: one message per line, no embedded newlines). Works on bytes, so a UTF-8 sequence split across
 * chunks is never mis-decoded (0x0A never occurs inside a multi-byte sequence), and a line longer
 * than `maxFrameBytes` is counted and skipped without ever being held whole (no revision sets a maximum message
 * size, so the limit is ours, and an oversized line must not kill the connection).
 */

/** How much of an oversized line is kept for the error message. */
const OVERSIZE_HEAD_BYTES = 256
const NEWLINE = 0x0a
const CARRIAGE_RETURN = 0x0d

export interface OversizeFrame {
  /** Bytes in the skipped line (without its newline); at least `maxFrameBytes + 1`. */
  bytes: number
  maxFrameBytes: number
  /** The line's first bytes, decoded, for diagnostics. */
  head: string
  /** False when the stream ended before the line did. */
  terminated: boolean
}

export interface LineFramerOptions {
  maxFrameBytes: number
  /** One complete line, decoded as UTF-8, `\r\n` tolerated; blank lines are not reported. */
  onLine(line: string): void
  /** A line over the cap, reported once after it ends (or the stream ends). Framing continues. */
  onOversize(frame: OversizeFrame): void
  /**
   * A line that is not valid UTF-8 (given: the server side refuses it with -32700, as HTTP does).
   * Without it such a line is decoded with U+FFFD replacements and delivered.
   */
  onInvalidUtf8?(head: string): void
}

export interface LineFramer {
  /** Feed the next chunk of the stream. */
  push(chunk: Uint8Array): void
  /** The stream ended: a trailing unterminated line is delivered (or reported if oversized). */
  end(): void
}

export function createLineFramer(options: LineFramerOptions): LineFramer {
  const { maxFrameBytes, onLine, onOversize } = options
  const decoder = new TextDecoder('utf-8')
  const strict = options.onInvalidUtf8 ? new TextDecoder('utf-8', { fatal: true }) : undefined
  let pending: Uint8Array[] = []
  let pendingBytes = 0
  // While > 0 the current line is being skipped; counts its bytes so far.
  let skippedBytes = 0
  let skippedHead: Uint8Array[] = []
  let skippedHeadBytes = 0

  function startSkipping(extra: Uint8Array): void {
    skippedHead = []
    skippedHeadBytes = 0
    for (const part of pending) keepHead(part)
    keepHead(extra)
    skippedBytes = pendingBytes + extra.length
    pending = []
    pendingBytes = 0
  }

  function keepHead(part: Uint8Array): void {
    if (skippedHeadBytes >= OVERSIZE_HEAD_BYTES) return
    const piece = part.slice(0, OVERSIZE_HEAD_BYTES - skippedHeadBytes)
    skippedHead.push(piece)
    skippedHeadBytes += piece.length
  }

  /**
   * A chunk that is exactly one line and its newline, delivered as finishLine would deliver it: the
   * newline decodes to the last character (0x0A is never part of a multi-byte sequence). False,
   * with nothing done, for a `\r\n` ending or bytes the strict decoder refuses: finishLine decides.
   */
  function wholeLine(chunk: Uint8Array): boolean {
    const last = chunk.length - 1
    if (last > 0 && chunk[last - 1] === CARRIAGE_RETURN) return false
    let text: string
    try {
      text = (strict ?? decoder).decode(chunk)
    } catch {
      return false
    }
    const line = text.slice(0, -1)
    if (line.trim() !== '') onLine(line)
    return true
  }

  function finishLine(tail: Uint8Array, terminated: boolean): void {
    if (skippedBytes > 0) {
      const bytes = skippedBytes + tail.length
      keepHead(tail)
      const head = decoder.decode(concat(skippedHead, skippedHeadBytes))
      skippedBytes = 0
      skippedHead = []
      onOversize({ bytes, maxFrameBytes, head, terminated })
      return
    }
    const total = pendingBytes + tail.length
    if (total > maxFrameBytes) {
      const head = decoder.decode((pendingBytes > 0 ? concat(pending, pendingBytes) : tail).subarray(0, OVERSIZE_HEAD_BYTES))
      pending = []
      pendingBytes = 0
      onOversize({ bytes: total, maxFrameBytes, head, terminated })
      return
    }
    let bytes = pendingBytes === 0 ? tail : concat([...pending, tail], total)
    pending = []
    pendingBytes = 0
    if (bytes.length > 0 && bytes[bytes.length - 1] === CARRIAGE_RETURN) bytes = bytes.subarray(0, bytes.length - 1)
    let line: string
    if (strict) {
      try {
        line = strict.decode(bytes)
      } catch {
        options.onInvalidUtf8!(decoder.decode(bytes.subarray(0, OVERSIZE_HEAD_BYTES)))
        return
      }
    } else line = decoder.decode(bytes)
    if (line.trim() !== '') onLine(line)
  }

  return {
    push(chunk) {
      let start = 0
      let newline = chunk.indexOf(NEWLINE)
      // Most chunks are one whole line: decoded as they are, no view of the line made first.
      if (newline === chunk.length - 1 && pendingBytes === 0 && skippedBytes === 0 && newline <= maxFrameBytes && wholeLine(chunk)) return
      while (start < chunk.length) {
        if (newline === -1) {
          const rest = chunk.subarray(start)
          if (skippedBytes > 0) {
            skippedBytes += rest.length
            keepHead(rest)
          } else if (pendingBytes + rest.length > maxFrameBytes) startSkipping(rest)
          else {
            // Copy: the producer may reuse its buffer after push() returns.
            pending.push(rest.slice())
            pendingBytes += rest.length
          }
          return
        }
        finishLine(chunk.subarray(start, newline), true)
        start = newline + 1
        newline = chunk.indexOf(NEWLINE, start)
      }
    },
    end() {
      if (skippedBytes > 0 || pendingBytes > 0) finishLine(new Uint8Array(0), false)
    },
  }
}

/** One message as a frame: compact JSON (which never contains a raw newline) plus `\n`. */
export function encodeFrame(message: unknown): string {
  return `${JSON.stringify(message)}\n`
}

function concat(parts: Uint8Array[], total: number): Uint8Array {
  if (parts.length === 1) return parts[0]!
  const out = new Uint8Array(total)
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}

/**
 * The JSON-RPC `id` of a message from the first bytes of its line, when it is a top-level member
 * written before the line was cut (`{"jsonrpc":"2.0","id":7,"result":...`): how an oversized
 * line is attributed to its request. Undefined when it cannot be read from `head`.
 */
export function leadingId(head: string): string | number | undefined {
  let depth = 0
  let i = 0
  const n = head.length
  while (i < n) {
    const c = head[i]!
    if (c === '"') {
      const end = stringEnd(head, i)
      if (end < 0) return undefined
      if (depth === 1 && head.slice(i, end + 1) === '"id"') {
        const value = /^\s*:\s*(-?\d+(?=[\s,}])|"(?:[^"\\]|\\.)*")/.exec(head.slice(end + 1))
        if (!value) return undefined
        return value[1]!.startsWith('"') ? (JSON.parse(value[1]!) as string) : Number(value[1])
      }
      i = end + 1
      continue
    }
    if (c === '{' || c === '[') depth++
    else if (c === '}' || c === ']') depth--
    i++
  }
  return undefined
}

/** Index of the quote closing the string that opens at `start`, or -1 when the head ends first. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++
    else if (text[i] === '"') return i
  }
  return -1
}
