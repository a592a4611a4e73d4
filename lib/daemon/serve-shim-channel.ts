/**
 * Opening the `mcpx serve` shim's stream channel to the daemon (channel.ts serves the other end):
 * connect to the channel socket (starting the daemon when nothing listens), send the opening line,
 * and read the daemon's one-line answer before any MCP byte. A refused opening (an unknown surface,
 * a daemon that cannot start) is thrown, so the command's usage errors come before any stdout.
 */
import type { Socket } from 'bun'
import { McpxError } from '../errors/index.ts'
import { log } from '../log/index.ts'
import { CHANNEL_VERSION, type ChannelAnswer, type ChannelOpening } from './channel.ts'
import { connectFailure, retryWhileBusy } from './connect.ts'
import type { ServeShimOptions } from './serve-shim.ts'
import { SocketWriter } from './socket-writer.ts'

/** The channel frames one message a line, as stdio does. */
export const NEWLINE = 0x0a

/** One channel to the daemon and what the shim keeps about it. */
export interface ShimChannel {
  socket?: Socket<ShimChannel>
  writer?: SocketWriter
  /** Until the daemon's answer line arrived: its bytes so far. */
  answer?: Uint8Array[]
  onAnswer?: (line: string) => void
  onClosedUnanswered?: () => void
  /** A line from the daemon not complete yet (the shim's framing). */
  tail?: Uint8Array
  lost: boolean
}

export type ShimChannelOptions = Pick<ServeShimOptions, 'settings' | 'layout' | 'surface' | 'ensureDaemon' | 'connectRetry' | 'onOpened'>

/** What the shim does with the channel once it is open: the daemon's bytes after the answer line, and its loss. */
export interface ShimChannelHooks {
  readonly onBytes: (chan: ShimChannel, chunk: Uint8Array) => void
  readonly onLost: (chan: ShimChannel) => void
}

/** A channel the daemon accepted the opening of. */
export async function openShimChannel(options: ShimChannelOptions, hooks: ShimChannelHooks): Promise<ShimChannel> {
  const { settings, layout } = options
  const opening: ChannelOpening = { channel: CHANNEL_VERSION, ...options.surface }
  let chan: ShimChannel
  try {
    chan = await connect(options, hooks)
  } catch (error) {
    if (connectFailure(error, layout, layout.channelSocket) !== 'absent') throw error
    await options.ensureDaemon()
    try {
      chan = await connect(options, hooks)
    } catch (again) {
      if (connectFailure(again, layout, layout.channelSocket) !== 'absent') throw again
      throw new McpxError(
        'CONNECT',
        `the mcpx daemon answers on ${layout.socket} but not on its channel ${layout.channelSocket} (an older mcpx?); \`mcpx daemon stop\` and retry`,
        { socket: layout.channelSocket },
        { cause: again },
      )
    }
  }
  const answered = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      chan.socket!.end()
      reject(new McpxError('TIMEOUT', `the mcpx daemon did not answer the channel opening within ${settings.daemonStartTimeoutMs} ms`))
    }, settings.daemonStartTimeoutMs)
    chan.onAnswer = (line) => {
      clearTimeout(timer)
      resolve(line)
    }
    chan.onClosedUnanswered = () => {
      clearTimeout(timer)
      reject(new McpxError('CONNECT', 'the mcpx daemon closed the channel before answering its opening line'))
    }
  })
  chan.writer!.write(`${JSON.stringify(opening)}\n`)
  const answer = JSON.parse(await answered) as ChannelAnswer
  if ('error' in answer) {
    chan.socket!.end()
    throw new McpxError(answer.error.code as McpxError['code'], answer.error.message, answer.error.data)
  }
  options.onOpened?.(answer)
  return chan
}

function connect(options: ShimChannelOptions, hooks: ShimChannelHooks): Promise<ShimChannel> {
  const { layout } = options
  return retryWhileBusy(
    async () => {
      const chan: ShimChannel = { answer: [], lost: false }
      chan.socket = await Bun.connect<ShimChannel>({
        unix: layout.channelSocket,
        allowHalfOpen: true,
        data: chan,
        socket: {
          binaryType: 'uint8array',
          data(socket, chunk) {
            const c = socket.data
            if (c.answer === undefined) return hooks.onBytes(c, chunk)
            const newline = chunk.indexOf(NEWLINE)
            if (newline < 0) return void c.answer.push(chunk)
            c.answer.push(chunk.subarray(0, newline))
            const line = Buffer.concat(c.answer).toString('utf8')
            c.answer = undefined
            c.onAnswer?.(line)
            if (newline + 1 < chunk.length) hooks.onBytes(c, chunk.subarray(newline + 1))
          },
          drain(socket) {
            socket.data.writer?.flush()
          },
          end(socket) {
            socket.end()
          },
          close(socket) {
            const c = socket.data
            if (c.writer) c.writer.closed = true
            if (c.answer !== undefined) c.onClosedUnanswered?.()
            hooks.onLost(c)
          },
          error(_socket, error) {
            log.debug(`serve: channel: ${error.message}`)
          },
        },
      })
      chan.writer = new SocketWriter(chan.socket)
      return chan
    },
    layout,
    layout.channelSocket,
    options.connectRetry,
  )
}
