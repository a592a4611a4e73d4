/**
 * `mcpx serve`: the stdio end a host spawns. It copies bytes between the host's stdin/stdout and
 * one stream channel to the daemon (channel.ts), where lib/server's stdio engine serves them — so
 * every stdio rule holds because the same engine that serves any stdio host serves this one.
 *
 * The shim frames lines and reads only each message's envelope (id, method: wire/envelope-scan.ts),
 * never re-serialising a body, to know what is in flight and to keep what a restart must restore:
 * the host's `initialize` and `notifications/initialized`, and the session state it set
 * (`resources/subscribe`, `logging/setLevel`; kept only once the daemon accepted them).
 *
 * When the channel is lost (daemon stopped, killed, restarted):
 *  - every request in flight gets a JSON-RPC error saying it may or may not have run; none is
 *    re-sent (a side effect must not happen twice);
 *  - nothing happens until the host's next message, so `mcpx daemon stop` is not undone by idle
 *    hosts; then the daemon is started, a new channel opened, the kept messages replayed under ids
 *    of the shim's own (their answers swallowed), the host told `notifications/{tools,prompts,
 *    resources}/list_changed` so it refreshes, and copying resumes with that message. A 2026-07-28
 *    host has no session to restore (basic/versioning.mdx): it just gets the new channel.
 * On host stdin EOF the channel is half-closed: the daemon answers what it already read (within
 * shutdownGraceMs), then ends the channel and the shim exits. EPIPE on stdout ends it quietly.
 * A 2025-03-26 batch (a JSON array) is copied like any line but not tracked: a batch in flight when
 * the channel breaks gets no error from the shim.
 *
 * This file copies and frames; the channel's opening is serve-shim-channel.ts's, the session kept
 * for a restart serve-shim-session.ts's, the requests in flight serve-shim-inflight.ts's.
 */
import type { HomeLayout } from '../config/index.ts'
import { McpxError } from '../errors/index.ts'
import { log } from '../log/index.ts'
import type { Settings } from '../settings/index.ts'
import { scanBatch, scanEnvelope, type Envelope } from '../wire/index.ts'
import type { ConnectRetry } from './connect.ts'
import { InFlight, unsentLine } from './serve-shim-inflight.ts'
import { NEWLINE, type ShimChannel, openShimChannel } from './serve-shim-channel.ts'
import { ShimSession } from './serve-shim-session.ts'

export interface ServeShimOptions {
  readonly settings: Settings
  readonly layout: HomeLayout
  /** The surface, sent once as the channel's opening line. */
  readonly surface: { readonly mode?: string; readonly passthrough?: string }
  /** Start the daemon when nothing listens (one starter at a time: DaemonClient). */
  readonly ensureDaemon: () => Promise<unknown>
  readonly connectRetry: ConnectRetry
  /** Told the config the daemon serves, on every channel opened. */
  readonly onOpened?: (answer: { pid: number; config: string | null }) => void
  readonly io?: { readonly input?: ReadableStream<Uint8Array>; readonly output?: { write(data: Uint8Array | string): unknown } }
}

export interface ServeShim {
  /** Settles once the host closed stdin (or stdout) and the daemon answered what it had, or the grace ran out. */
  readonly closed: Promise<{ readonly outputBroken: boolean }>
}

interface QueuedLine {
  readonly line: Uint8Array
  readonly envelope: Envelope | undefined
}

/** Open the first channel (a refusal throws: usage errors come before any stdout) and start copying. */
export async function runServeShim(options: ServeShimOptions): Promise<ServeShim> {
  const { settings } = options
  const output = options.io?.output ?? process.stdout
  const inflight = new InFlight()
  const session = new ShimSession()
  let queued: QueuedLine[] = []
  let state: 'open' | 'lost' | 'reconnecting' = 'reconnecting'
  let channel: ShimChannel | undefined
  let hostTail: Uint8Array | undefined
  let hostEnded = false
  let finished = false
  let resolveClosed!: (outcome: { outputBroken: boolean }) => void
  const closed = new Promise<{ outputBroken: boolean }>((resolve) => (resolveClosed = resolve))
  const channelHooks = { onBytes: onDaemonBytes, onLost: onChannelLost }

  // ---- host side -------------------------------------------------------------------------------

  let stdoutBroken = false
  const writeHost = (data: Uint8Array | string) => {
    if (stdoutBroken) return
    try {
      output.write(data)
    } catch (error) {
      onStdoutError(error)
    }
  }
  const onStdoutError = (error: unknown) => {
    if (stdoutBroken) return
    stdoutBroken = true
    if ((error as NodeJS.ErrnoException).code !== 'EPIPE') log.debug(`serve: stdout: ${(error as Error).message}`)
    // The host stopped reading: nothing more can reach it.
    channel?.socket?.end()
    finish()
  }
  if (output === process.stdout) process.stdout.on('error', onStdoutError)

  /** A host line is about to go to the daemon: note what it starts. */
  function noteHostLine(line: Uint8Array, envelope: Envelope | undefined): void {
    // A 2025-03-26 batch: its requests are in flight too (their answers come back as one array).
    if (envelope === undefined)
      for (const member of scanBatch(line) ?? []) if (member.method !== undefined && member.id !== undefined) inflight.add(member.id)
    if (envelope?.method === undefined) return
    if (envelope.id !== undefined) {
      inflight.add(envelope.id)
      session.noteRequest(envelope.id, envelope.method, line)
    } else if (envelope.method === 'notifications/initialized') {
      session.noteInitialized(line)
    }
  }

  function onHostBytes(chunk: Uint8Array): void {
    let start = 0
    // Complete lines of this chunk not written yet: they go out in one write, exactly as sent.
    let runStart = 0
    for (let newline = chunk.indexOf(NEWLINE); newline >= 0; newline = chunk.indexOf(NEWLINE, start)) {
      const line = chunk.subarray(start, newline + 1)
      if (hostTail !== undefined) {
        const whole = concat(hostTail, line)
        hostTail = undefined
        if (hostLine(whole)) channel!.writer!.write(whole)
        runStart = newline + 1
      } else {
        hostLine(line)
      }
      start = newline + 1
    }
    if (state === 'open' && runStart < start) channel!.writer!.write(chunk.subarray(runStart, start))
    if (start < chunk.length) hostTail = hostTail === undefined ? chunk.slice(start) : concat(hostTail, chunk.subarray(start))
  }

  /** True when the line may go to the open channel now; otherwise it waits for the next one. */
  function hostLine(line: Uint8Array): boolean {
    const envelope = scanEnvelope(line)
    if (state === 'open') {
      noteHostLine(line, envelope)
      return true
    }
    // A copy: the chunk it came from is not ours to keep.
    queued.push({ line: line.slice(), envelope })
    if (state === 'lost') void reconnect()
    return false
  }

  function onHostEnd(): void {
    if (hostTail !== undefined) {
      // A last line without its newline: the engine's framer takes it at EOF, as stdio does.
      const line = hostTail
      hostTail = undefined
      if (hostLine(line)) channel!.writer!.write(line)
    }
    hostEnded = true
    if (state === 'open') halfClose()
    else if (state === 'lost') finish()
  }

  function halfClose(): void {
    channel!.writer!.end(true)
    // The daemon answers within shutdownGraceMs, then ends the channel; the same again covers the
    // answers' way back, and then the shim exits whatever happened.
    setTimeout(finish, 2 * settings.shutdownGraceMs).unref()
  }

  // ---- daemon side -----------------------------------------------------------------------------

  function onDaemonBytes(chan: ShimChannel, chunk: Uint8Array): void {
    let start = 0
    // Complete lines of this chunk the host gets, not written yet (one write unless a line is swallowed).
    let runStart = 0
    for (let newline = chunk.indexOf(NEWLINE); newline >= 0; newline = chunk.indexOf(NEWLINE, start)) {
      const line = chunk.subarray(start, newline + 1)
      if (chan.tail !== undefined) {
        const whole = concat(chan.tail, line)
        chan.tail = undefined
        if (daemonLine(whole)) writeHost(whole)
        runStart = newline + 1
      } else if (!daemonLine(line)) {
        if (runStart < start) writeHost(chunk.subarray(runStart, start))
        runStart = newline + 1
      }
      start = newline + 1
    }
    if (runStart < start) writeHost(chunk.subarray(runStart, start))
    if (start < chunk.length) chan.tail = chan.tail === undefined ? chunk.slice(start) : concat(chan.tail, chunk.subarray(start))
  }

  /** A line from the daemon: settle what it answers; false when the host must not see it (a replay's answer). */
  function daemonLine(line: Uint8Array): boolean {
    const envelope = scanEnvelope(line)
    if (envelope === undefined)
      for (const member of scanBatch(line) ?? []) if (member.id !== undefined && member.response) inflight.settle(member.id)
    if (envelope?.id === undefined || !envelope.response || envelope.method !== undefined) return true
    if (session.takeReplayAnswer(envelope.id)) return false
    inflight.settle(envelope.id)
    session.settle(envelope.id, Boolean(envelope.error))
    return true
  }

  function onChannelLost(chan: ShimChannel): void {
    if (chan.lost) return
    chan.lost = true
    if (chan !== channel) return
    inflight.failAll(writeHost)
    session.channelLost()
    if (state === 'open') {
      state = 'lost'
      if (hostEnded) finish()
      else if (queued.length > 0) void reconnect()
    }
  }

  // ---- channels --------------------------------------------------------------------------------

  let reconnecting: Promise<void> | undefined
  function reconnect(): Promise<void> {
    reconnecting ??= (async () => {
      state = 'reconnecting'
      try {
        const chan = await openShimChannel(options, channelHooks)
        channel = chan
        await session.replay(chan, writeHost)
        if (chan.lost) throw new McpxError('CONNECT', 'the mcpx daemon closed the channel while it was being restored')
        state = 'open'
        const lines = queued
        queued = []
        for (const { line, envelope } of lines) {
          noteHostLine(line, envelope)
          chan.writer!.write(line)
        }
        if (hostEnded) halfClose()
      } catch (error) {
        state = 'lost'
        const lines = queued
        queued = []
        const reason = (error as Error).message
        log.warn(`serve: could not reach the mcpx daemon: ${reason}`)
        for (const { envelope } of lines) {
          if (envelope?.id !== undefined && envelope.method !== undefined) writeHost(unsentLine(envelope.id, reason))
        }
        if (hostEnded) finish()
      }
    })().finally(() => (reconnecting = undefined))
    return reconnecting
  }

  function finish(): void {
    if (finished) return
    finished = true
    channel?.socket?.end()
    resolveClosed({ outputBroken: stdoutBroken })
  }

  // The first channel: a refusal (unknown surface, daemon that cannot start) is the command's error.
  channel = await openShimChannel(options, channelHooks)
  state = 'open'

  void (async () => {
    const reader = (options.io?.input ?? (Bun.stdin.stream() as ReadableStream<Uint8Array>)).getReader()
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done || finished) break
        onHostBytes(value)
      }
    } catch (error) {
      log.debug(`serve: stdin: ${(error as Error).message}`)
    }
    onHostEnd()
  })()

  return { closed }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length)
  out.set(a, 0)
  out.set(b, a.length)
  return out
}
