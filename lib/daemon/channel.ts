/**
 * The stream channel: how `mcpx serve` reaches the daemon. A second Unix socket in the same 0700
 * run directory, served with `Bun.listen` (plain bytes: `Bun.serve` upgrades only to WebSocket,
 * which is framed). Each connection is one stdio host:
 *
 *   shim → daemon   one opening line `{"channel":1,"mode":"raw"}` (or `"passthrough":"name"`, or
 *                   neither for the default surface): the surface is chosen once, here, never per message;
 *   daemon → shim   one answer line `{"ok":true,"pid":…,"config":…}` or `{"error":{code,message,data}}`;
 *   then both ways  the host's own newline-delimited JSON-RPC, served by lib/server's stdio engine
 *                   (serveStdio) — the same code as any stdio server, so every stdio rule of every
 *                   revision holds (2025-11-25 basic/transports.mdx "stdio"; 2026-07-28
 *                   basic/transports/stdio.mdx): messages before the initialize answer, pipelining, no
 *                   reply to a notification, answers flushed before the connection closes on EOF.
 *
 * The shim half-closes its side when the host closes stdin; the engine answers what it already read
 * (within shutdownGraceMs) and then the daemon ends the connection. An open channel holds the
 * daemon open (no idle exit while a host is connected).
 */
import { rmSync } from 'node:fs'
import type { UnixSocketListener } from 'bun'
import { McpxError, asMcpxError } from '../errors/index.ts'
import { log } from '../log/index.ts'
import { type Engine, serveStdio, type StdioServer, type StdioSessionEvent } from '../server/index.ts'
import type { Settings } from '../settings/index.ts'
import type { ByteSource } from '../transport/index.ts'
import { SocketWriter } from './socket-writer.ts'

export const CHANNEL_VERSION = 1

/** The first line a shim sends: which surface this stream is served by. */
export interface ChannelOpening {
  readonly channel: number
  readonly mode?: string
  readonly passthrough?: string
}

/** The daemon's answer to the opening line. */
export type ChannelAnswer =
  | { readonly ok: true; readonly pid: number; readonly config: string | null }
  | { readonly error: { code: string; message: string; data?: Record<string, unknown> } }

export interface ChannelOptions {
  readonly path: string
  readonly settings: Settings
  /** The engine serving a channel opened with `opening`; throws (an McpxError) to refuse it. */
  open(opening: ChannelOpening): Promise<Engine>
  /** Counts the channel as activity for the daemon's idle exit until the release is called. */
  hold(): () => void
  /** Told when bytes arrive, so an open but quiet channel still lets the daemon trim its memory (idle-trim.ts). */
  noteActivity?(): void
  answer(): { pid: number; config: string | null }
  /** Told when a host's session on a channel opens and closes (the daemon log's session lines). */
  onSession?(opening: ChannelOpening, event: StdioSessionEvent): void
}

export interface ChannelListener {
  /** Stop accepting and end every channel (their shims fail what was in flight). */
  close(): void
}

interface Conn {
  /** Bytes of the opening line until its newline arrives; undefined once it was read. */
  opening?: Uint8Array[]
  openingBytes: number
  /** Bytes after the opening line that arrived before the engine was attached. */
  early: Uint8Array[]
  /** The engine's input, once attached: bytes are framed and dispatched inside the data callback. */
  input?: { push(chunk: Uint8Array): void; end(): void }
  ended: boolean
  closed: boolean
  writer: SocketWriter
  server?: StdioServer
  release: () => void
}

const NEWLINE = 0x0a

export function listenChannel(options: ChannelOptions): ChannelListener {
  // The daemon holds its lock, so a socket file left here belongs to a dead daemon.
  rmSync(options.path, { force: true })
  const listener: UnixSocketListener<Conn> = Bun.listen<Conn>({
    unix: options.path,
    allowHalfOpen: true,
    socket: {
      binaryType: 'uint8array',
      open(socket) {
        socket.data = {
          opening: [],
          openingBytes: 0,
          early: [],
          ended: false,
          closed: false,
          writer: new SocketWriter(socket),
          release: options.hold(),
        }
      },
      data(socket, chunk) {
        const conn = socket.data
        options.noteActivity?.()
        // Bun hands every data callback a fresh buffer (measured on 1.4.5), so it can be queued as is.
        const bytes = chunk
        if (conn.opening === undefined) {
          if (conn.input) conn.input.push(bytes)
          else conn.early.push(bytes)
          return
        }
        const newline = bytes.indexOf(NEWLINE)
        if (newline < 0) {
          conn.opening.push(bytes)
          conn.openingBytes += bytes.length
          if (conn.openingBytes > options.settings.maxFrameBytes)
            refuse(conn, new McpxError('USAGE', 'channel opening line exceeds maxFrameBytes'))
          return
        }
        conn.opening.push(bytes.subarray(0, newline))
        const line = Buffer.concat(conn.opening).toString('utf8')
        conn.opening = undefined
        if (newline + 1 < bytes.length) conn.early.push(bytes.subarray(newline + 1))
        void begin(conn, line)
      },
      drain(socket) {
        socket.data.writer.flush()
      },
      end(socket) {
        const conn = socket.data
        conn.ended = true
        if (conn.input) conn.input.end()
        else if (conn.opening !== undefined) conn.writer.end()
      },
      close(socket) {
        const conn = socket.data
        if (conn.closed) return
        conn.closed = true
        conn.writer.closed = true
        conn.release()
        if (conn.input && !conn.ended) {
          conn.ended = true
          conn.input.end()
        }
      },
      error(_socket, error) {
        log.debug(`channel: ${error.message}`)
      },
    },
  })

  async function begin(conn: Conn, line: string): Promise<void> {
    let engine: Engine
    let opening: ChannelOpening
    try {
      opening = JSON.parse(line) as ChannelOpening
      if (opening === null || typeof opening !== 'object' || opening.channel !== CHANNEL_VERSION) {
        throw new McpxError(
          'USAGE',
          `not an mcpx channel opening line (expected {"channel":${CHANNEL_VERSION},…}); is this shim from another mcpx version?`,
        )
      }
      engine = await options.open(opening)
    } catch (error) {
      return refuse(conn, error)
    }
    if (conn.closed) return
    conn.writer.write(`${JSON.stringify({ ok: true, ...options.answer() } satisfies ChannelAnswer)}\n`)
    const input: ByteSource = {
      start(sink) {
        for (const bytes of conn.early) sink.push(bytes)
        conn.early = []
        if (conn.ended) sink.end()
        else conn.input = sink
      },
    }
    const onSession = options.onSession
    conn.server = serveStdio(
      engine,
      options.settings,
      { input, output: conn.writer },
      onSession ? { onSession: (event) => onSession(opening, event) } : {},
    )
    // The engine answered what it had read: end our side once those answers are flushed.
    void conn.server.closed.then(() => conn.writer.end())
  }

  function refuse(conn: Conn, error: unknown): void {
    const { code, message, data } = asMcpxError(error).toJSON()
    conn.writer.write(`${JSON.stringify({ error: { code, message, ...(data && { data }) } } satisfies ChannelAnswer)}\n`)
    conn.opening = undefined
    conn.writer.end()
  }

  return {
    close() {
      rmSync(options.path, { force: true })
      listener.stop(true)
    },
  }
}
