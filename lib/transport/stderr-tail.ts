/**
 * Continuous drain of an upstream's stderr: a chatty server must never stall on a full pipe
 * Keeps only the last `maxBytes` for error messages and hands each line to a logger.
 * stderr is logging, any level, never an error signal (2025-11-25 basic/transports.mdx "stdio": clients SHOULD NOT
 * treat it as an error indicator).
 */

/** A single stderr "line" longer than this is logged in pieces rather than buffered. */
const MAX_LOG_LINE_CHARS = 4096

export interface StderrTail {
  /** Read the stream to its end; never rejects. */
  drain(stream: ReadableStream<Uint8Array>): Promise<void>
  /** The retained tail, decoded; with `since` (a mark()), only what was written after it. */
  text(since?: number): string
  /** A position in the stream: bytes written so far. */
  mark(): number
}

export function createStderrTail(maxBytes: number, onLine: (line: string) => void): StderrTail {
  const chunks: Uint8Array[] = []
  let bytes = 0
  /** Bytes ever written (the retained tail is the last `bytes` of them). */
  let total = 0
  let partial = ''
  const lineDecoder = new TextDecoder()

  function keep(chunk: Uint8Array): void {
    total += chunk.length
    if (maxBytes === 0) return
    const piece = chunk.length > maxBytes ? chunk.slice(chunk.length - maxBytes) : chunk.slice()
    chunks.push(piece)
    bytes += piece.length
    while (bytes - chunks[0]!.length >= maxBytes) bytes -= chunks.shift()!.length
  }

  function logLines(text: string): void {
    partial += text
    let newline = partial.indexOf('\n')
    while (newline !== -1) {
      onLine(partial.slice(0, newline).replace(/\r$/, ''))
      partial = partial.slice(newline + 1)
      newline = partial.indexOf('\n')
    }
    if (partial.length > MAX_LOG_LINE_CHARS) {
      onLine(partial)
      partial = ''
    }
  }

  return {
    async drain(stream) {
      try {
        const reader = stream.getReader()
        for (let next = await reader.read(); !next.done; next = await reader.read()) {
          keep(next.value)
          logLines(lineDecoder.decode(next.value, { stream: true }))
        }
      } catch {
        // A broken pipe ends the drain; the tail so far stays available.
      }
      logLines(lineDecoder.decode())
      if (partial !== '') onLine(partial)
      partial = ''
    },
    text(since = 0) {
      const all = new Uint8Array(bytes)
      let offset = 0
      for (const chunk of chunks) {
        all.set(chunk, offset)
        offset += chunk.length
      }
      const unseen = Math.max(0, bytes - (total - since))
      // The cut may fall inside a UTF-8 sequence: drop the replacement character it leaves.
      return new TextDecoder().decode(all.subarray(Math.max(0, bytes - maxBytes, unseen))).replace(/^\uFFFD+/, '')
    },
    mark: () => total,
  }
}
