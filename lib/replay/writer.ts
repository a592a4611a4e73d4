/**
 * Writes a recording line by line as traffic happens (append-only, one synchronous write per line,
 * so a crash loses at most the line being written). Redaction runs before the write. The era and
 * revision are learned from the traffic itself (an `initialize` result → legacy + its
 * protocolVersion; a request carrying a modern protocolVersion in `_meta`, once answered with a
 * result → modern) and written as `negotiated` lines when negotiation ends.
 */
import { McpxError } from '../errors/index.ts'
import { closeSync, openSync, writeSync } from 'node:fs'
import type { TransportKind } from '../transport/index.ts'
import { META, isModernRevision, isRecord, type Era } from '../wire/index.ts'
import { FORMAT_NAME, FORMAT_VERSION, type Direction, type HttpFraming, type Peer, type RecordingHeader } from './format.ts'
import { describeRules, redactHeaders, redactMessage, redactionRules, type RedactionRules } from './redact.ts'

/** Where lines go: a file, or memory in tests. */
export interface RecordingSink {
  write(line: string): void
  close?(): void
}

export interface RecorderOptions {
  readonly sink: RecordingSink
  readonly mcpxVersion: string
  /** `client`: mcpx called the server; `server`: mcpx was the server being called. */
  readonly role: 'client' | 'server'
  readonly transport: TransportKind
  readonly era?: Era | null
  readonly revision?: string | null
  readonly peer?: Peer
  readonly rules?: RedactionRules
  /** ms clock; injectable for tests. */
  readonly now?: () => number
}

/** A sink appending to `path` (created or truncated). */
export function fileSink(path: string): RecordingSink {
  let fd: number
  try {
    fd = openSync(path, 'w')
  } catch (error) {
    // A recording path is the user's (config `record`, --record, `mcpx record FILE`): a usage problem.
    throw new McpxError(
      'CONFIG',
      `cannot write the recording ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'its directory does not exist' : (error as Error).message}`,
      { path },
      { cause: error },
    )
  }
  let open = true
  return {
    write(line) {
      if (open) writeSync(fd, line)
    },
    close() {
      if (!open) return
      open = false
      closeSync(fd)
    },
  }
}

/** A sink collecting lines in memory. */
export function memorySink(): RecordingSink & { readonly text: () => string } {
  const lines: string[] = []
  return { write: (line) => void lines.push(line), text: () => lines.join('') }
}

export class Recorder {
  readonly #options: RecorderOptions
  readonly #rules: RedactionRules
  readonly #now: () => number
  readonly #start: number
  readonly #initializeIds = new Set<unknown>()
  /** Requests sent with a modern protocolVersion, by id: the revision they offer and the caller's clientInfo. */
  readonly #modernOffers = new Map<unknown, { revision: string; clientInfo?: Peer }>()
  #seq = 0
  #era: Era | null
  #revision: string | null
  #closed = false
  #peerKnown: boolean

  constructor(options: RecorderOptions) {
    this.#options = options
    this.#rules = options.rules ?? redactionRules()
    this.#now = options.now ?? Date.now
    this.#start = this.#now()
    this.#era = options.era ?? null
    this.#revision = options.revision ?? null
    this.#peerKnown = options.peer?.name !== undefined
    const header: RecordingHeader = {
      type: 'header',
      format: FORMAT_NAME,
      formatVersion: FORMAT_VERSION,
      mcpxVersion: options.mcpxVersion,
      createdAt: new Date(this.#start).toISOString(),
      role: options.role,
      transport: options.transport,
      era: this.#era,
      revision: this.#revision,
      ...(options.peer !== undefined && { peer: options.peer }),
      redaction: describeRules(this.#rules),
    }
    this.#line(header)
  }

  /** Record one message crossing the wire, with its HTTP framing when there is one. */
  message(direction: Direction, message: object, http?: HttpFraming): void {
    if (this.#closed) return
    const { message: clean, redacted } = redactMessage(message, this.#rules)
    let framing = http
    if (http?.headers !== undefined) {
      const headers = redactHeaders(http.headers, this.#rules)
      framing = { ...http, headers: headers.headers }
      redacted.push(...headers.redacted)
    }
    this.#line({
      type: 'message',
      seq: ++this.#seq,
      t: this.#elapsed(),
      direction,
      message: clean,
      ...(framing !== undefined && { http: framing }),
      ...(redacted.length > 0 && { redacted }),
    })
    this.#learn(direction, message as Record<string, unknown>)
  }

  /** Record HTTP framing that carried no message (GET/DELETE, 202 Accepted, an empty-bodied error). */
  http(direction: Direction, http: HttpFraming): void {
    if (this.#closed) return
    let framing = http
    const redacted: string[] = []
    if (http.headers !== undefined) {
      const headers = redactHeaders(http.headers, this.#rules)
      framing = { ...http, headers: headers.headers }
      redacted.push(...headers.redacted)
    }
    this.#line({ type: 'http', t: this.#elapsed(), direction, http: framing, ...(redacted.length > 0 && { redacted }) })
  }

  /** Record the era and revision (and peer) once known; repeated values are not rewritten. */
  negotiated(era: Era, revision: string, peer?: Peer): void {
    const newPeer = peer !== undefined && !this.#peerKnown
    if (this.#closed || (era === this.#era && revision === this.#revision && !newPeer)) return
    this.#era = era
    this.#revision = revision
    if (newPeer) this.#peerKnown = true
    this.#line({ type: 'negotiated', t: this.#elapsed(), era, revision, ...(newPeer && { peer }) })
  }

  /** Write the close line and release the sink. */
  close(reason?: string): void {
    if (this.#closed) return
    this.#line({ type: 'close', t: this.#elapsed(), ...(reason !== undefined && { reason }) })
    this.#closed = true
    this.#options.sink.close?.()
  }

  #learn(direction: Direction, message: Record<string, unknown>): void {
    const params = isRecord(message.params) ? message.params : undefined
    if (direction === 'to-server' && message.method === 'initialize' && 'id' in message) this.#initializeIds.add(message.id)
    if (direction === 'to-server' && typeof message.method === 'string' && 'id' in message) {
      const version = isRecord(params?._meta) ? params._meta[META.PROTOCOL_VERSION] : undefined
      // Only offered here: negotiation ends when the server answers it with a result (a legacy
      // server's -32601 to server/discover is followed by initialize, 2026-07-28 basic/versioning.mdx).
      if (isModernRevision(version)) {
        const clientInfo = this.#options.role === 'server' && isRecord(params?._meta) ? params._meta[META.CLIENT_INFO] : undefined
        this.#modernOffers.set(message.id, { revision: version, ...(isRecord(clientInfo) && { clientInfo: peerOf(clientInfo) }) })
      }
    }
    const offer = direction === 'to-client' && 'id' in message ? this.#modernOffers.get(message.id) : undefined
    if (offer !== undefined) {
      this.#modernOffers.delete(message.id)
      if (isRecord(message.result)) {
        const meta = message.result._meta
        const serverInfo = this.#options.role === 'client' && isRecord(meta) ? meta[META.SERVER_INFO] : undefined
        this.negotiated('modern', offer.revision, isRecord(serverInfo) ? peerOf(serverInfo) : offer.clientInfo)
      }
    }
    if (direction === 'to-client' && 'id' in message && this.#initializeIds.has(message.id) && isRecord(message.result)) {
      const result = message.result
      const info = this.#options.role === 'client' ? result.serverInfo : undefined
      if (typeof result.protocolVersion === 'string')
        this.negotiated('legacy', result.protocolVersion, isRecord(info) ? peerOf(info) : undefined)
    }
    if (direction === 'to-client' && this.#options.role === 'client' && isRecord(message.result)) {
      const meta = message.result._meta
      const info = isRecord(meta) ? meta[META.SERVER_INFO] : undefined
      if (isRecord(info) && this.#era === 'modern' && this.#revision !== null) this.negotiated('modern', this.#revision, peerOf(info))
    }
  }

  #elapsed(): number {
    return Math.max(0, this.#now() - this.#start)
  }

  #line(value: object): void {
    this.#options.sink.write(`${JSON.stringify(value)}\n`)
  }
}

function peerOf(info: Record<string, unknown>): Peer {
  return {
    ...(typeof info.name === 'string' && { name: info.name }),
    ...(typeof info.version === 'string' && { version: info.version }),
  }
}
