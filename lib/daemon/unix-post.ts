/**
 * One HTTP/1.1 POST to the daemon's own Unix socket on this thread, answered as a standard
 * Response (status, headers, a body stream). A warm `mcpx call` makes exactly one request, and
 * Bun's fetch hands each one to its HTTP client thread and back: starting that thread and the two
 * hand-offs cost the one-shot CLI process more than the request itself (README "Start-up and
 * memory"). The peer is always this build's daemon (Bun.serve), so the answer is one of the two
 * framings it writes: Content-Length, or chunked for a streamed body (RFC 9112 sections 6–7); the
 * connection is closed after it (`Connection: close`), never reused.
 */

const CRLF = '\r\n'
const HEAD_END = '\r\n\r\n'

/** Decodes a chunked body (RFC 9112 section 7.1) as bytes arrive; extensions and trailers are skipped. */
export class ChunkedBody {
  #pending = new Uint8Array(0)
  /** Bytes still to read of the current chunk's data, then its CRLF; undefined: a size line is next. */
  #left: number | undefined
  done = false

  constructor(readonly emit: (bytes: Uint8Array) => void) {}

  push(bytes: Uint8Array): void {
    const buffer = this.#pending.length === 0 ? bytes : concat(this.#pending, bytes)
    let at = 0
    while (!this.done) {
      if (this.#left === undefined) {
        const end = indexOfCrlf(buffer, at)
        if (end < 0) break
        const size = Number.parseInt(new TextDecoder().decode(buffer.subarray(at, end)).split(';')[0]!, 16)
        if (!Number.isInteger(size) || size < 0) throw new Error('the daemon sent a malformed chunk size')
        at = end + 2
        if (size === 0) this.done = true
        else this.#left = size
        continue
      }
      if (this.#left > 0) {
        const take = Math.min(this.#left, buffer.length - at)
        if (take === 0) break
        this.emit(buffer.slice(at, at + take))
        at += take
        this.#left -= take
        if (this.#left > 0) break
      }
      // The CRLF that ends the chunk's data.
      if (buffer.length - at < 2) break
      at += 2
      this.#left = undefined
    }
    this.#pending = buffer.slice(at)
  }
}

function indexOfCrlf(bytes: Uint8Array, from: number): number {
  for (let i = from; i + 1 < bytes.length; i++) if (bytes[i] === 13 && bytes[i + 1] === 10) return i
  return -1
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}

/**
 * POST `body` (JSON) to `path` on the Unix socket at `socket`. Rejects with the connect error
 * itself (its `code`: ENOENT, ECONNREFUSED…) when nobody listens, as fetch does, so the caller's
 * connect-failure rules (connect.ts) apply unchanged.
 */
export function postOverUnix(socket: string, path: string, body: string): Promise<Response> {
  const payload = new TextEncoder().encode(body)
  const head = `POST ${path} HTTP/1.1${CRLF}Host: localhost${CRLF}Content-Type: application/json${CRLF}Content-Length: ${payload.length}${CRLF}Connection: close${HEAD_END}`
  // One write: head and body in two would cost the daemon a second read before it can parse the request.
  const request = concat(new TextEncoder().encode(head), payload)
  return new Promise<Response>((resolve, reject) => {
    let received: Uint8Array = new Uint8Array(0)
    let answered = false
    let controller!: ReadableStreamDefaultController<Uint8Array>
    const stream = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) })
    let feed: ((bytes: Uint8Array) => void) | undefined
    // An answer cut short (the daemon went away, a reset) ends its body where it was cut: the
    // reader sees the body end without its last line, as its caller's own rule for that expects.
    let ended = false
    const finish = () => {
      if (ended) return
      ended = true
      controller.close()
    }
    const fail = (error: unknown) => {
      if (!answered) reject(error)
      else finish()
    }
    const onHead = (bytes: Uint8Array) => {
      received = received.length === 0 ? bytes : concat(received, bytes)
      const text = new TextDecoder('latin1').decode(received)
      const end = text.indexOf(HEAD_END)
      if (end < 0) return
      const [statusLine, ...lines] = text.slice(0, end).split(CRLF)
      const status = Number(statusLine!.split(' ')[1])
      const headers = new Headers()
      for (const line of lines) {
        const colon = line.indexOf(':')
        if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim())
      }
      const rest = received.subarray(end + HEAD_END.length)
      const emit = (chunk: Uint8Array) => controller.enqueue(chunk)
      if (headers.get('transfer-encoding')?.toLowerCase().includes('chunked')) {
        const chunked = new ChunkedBody(emit)
        feed = (chunk) => {
          chunked.push(chunk)
          if (chunked.done) finish()
        }
      } else {
        let left = Number(headers.get('content-length') ?? Number.POSITIVE_INFINITY)
        feed = (chunk) => {
          const take = chunk.subarray(0, Math.min(chunk.length, left))
          if (take.length > 0) emit(take.slice())
          left -= take.length
          if (left === 0) finish()
        }
      }
      answered = true
      resolve(new Response(stream, { status, headers }))
      if (rest.length > 0 || headers.get('content-length') === '0') feed(rest)
    }
    let unsent = request
    const send = (s: { write(data: Uint8Array): number }) => {
      if (unsent.length === 0) return
      const written = s.write(unsent)
      if (written > 0) unsent = unsent.subarray(written)
    }
    Bun.connect({
      unix: socket,
      socket: {
        // A socket takes what its buffer holds; the rest goes out as it drains (a large `key=@file` argument).
        open: (s) => send(s),
        drain: (s) => send(s),
        data: (_s, bytes) => {
          try {
            if (feed === undefined) onHead(new Uint8Array(bytes))
            else feed(new Uint8Array(bytes))
          } catch (error) {
            fail(error)
          }
        },
        close: () => {
          // As a reset reads through fetch: the request may have run, so it is never sent again (daemon-endpoint.ts).
          if (!answered) reject(Object.assign(new Error('the daemon closed the connection before answering'), { code: 'ECONNRESET' }))
          else finish()
        },
        error: (_s, error) => fail(error),
      },
    }).catch(reject)
  })
}
