/**
 * The server end of stdio: newline-delimited JSON-RPC on stdin/stdout (every revision's
 * basic/transports "stdio"). stdout carries only MCP messages, one per line with no embedded newline; a bad line
 * (not JSON, not JSON-RPC, over `maxFrameBytes`, our own limit since the spec sets none) is answered with the matching JSON-RPC
 * error and reading goes on; stdin EOF reports onClose exactly once, while writes continue until
 * close() so answers to requests already read still reach the client.
 */
import type { McpxError } from '../errors/index.ts'
import { RPC, RpcError } from '../errors/index.ts'
import { log } from '../log/index.ts'
import {
  JSONRPC_VERSION,
  isRecord,
  keepRawIds,
  makeError,
  restoreRawIds,
  parseJson,
  parseMessage,
  recoverId,
  type JsonRpcMessage,
} from '../wire/index.ts'
import { createLineFramer, encodeFrame } from './line-framer.ts'
import type { SendOptions, Transport, TransportHandlers } from './contract.ts'

/**
 * Bytes pushed by their producer (a socket's data callback) instead of pulled from a stream: no
 * promise per chunk, and a message is framed and dispatched inside the callback that brought it.
 */
export interface ByteSource {
  start(sink: { push(chunk: Uint8Array): void; end(): void }): void
  /** Stop delivering (close() was called). */
  cancel?(): void
}

export interface StdioServerOptions {
  maxFrameBytes: number
  /** settings.maxJsonDepth (0 = unbounded). */
  maxJsonDepth?: number
  /** Default: the process's stdin. */
  input?: ReadableStream<Uint8Array> | ByteSource
  /** Default: the process's stdout. */
  output?: { write(text: string): unknown }
  /**
   * A JSON array arrived (a 2025-03-26 batch). Without a handler it is refused with -32600;
   * the handler decides by the negotiated revision and answers with `sendRaw`.
   */
  onBatch?(items: unknown[]): void
  /**
   * How an error that cannot name its request is written (a line that is not JSON, a refused
   * batch): 'omit-id' sends it without an `id` member (2025-11-25 and 2026-07-28 schema.json make
   * it optional; the SDKs refuse `"id": null`); 'log' only logs it, for a connection that
   * negotiated an older revision, whose schema requires an id. Default 'omit-id'.
   */
  unnamedErrors?(): 'omit-id' | 'log'
}

export interface StdioServerTransport extends Transport {
  /** Write any JSON value as one line (a batch response array). */
  sendRaw(value: unknown): Promise<void>
  /** Write an error that cannot name a request, as `unnamedErrors` says. */
  refuseUnnamed(error: RpcError): void
}

export function createStdioServerTransport(options: StdioServerOptions): StdioServerTransport {
  const output = options.output ?? process.stdout
  let handlers: TransportHandlers | undefined
  // stdin EOF ends input (onClose); output stays open until close(), so in-flight answers still go out.
  let closed = false
  let outputClosed = false
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined

  const write = (value: unknown) => {
    if (!outputClosed) output.write(restoreRawIds(encodeFrame(value)))
  }
  const refuse = (id: ReturnType<typeof recoverId>, error: RpcError) => {
    if (id !== null) return write(makeError(id, error.toRpc()))
    if ((options.unnamedErrors?.() ?? 'omit-id') === 'log')
      return log.warn(`stdio: refused a message that names no request: ${error.message}`)
    write({ jsonrpc: JSONRPC_VERSION, error: error.toRpc() })
  }

  const framer = createLineFramer({
    maxFrameBytes: options.maxFrameBytes,
    onLine(line) {
      let value: unknown
      try {
        value = keepRawIds(line, parseJson(line, options.maxJsonDepth ?? 0))
      } catch (error) {
        return refuse(null, error as RpcError)
      }
      if (Array.isArray(value)) {
        if (options.onBatch) return options.onBatch(value)
        return refuse(null, new RpcError(RPC.INVALID_REQUEST, 'Invalid Request: JSON-RPC batches are not supported'))
      }
      let message: JsonRpcMessage
      try {
        message = parseMessage(value)
      } catch (error) {
        // A malformed notification (a method, no id) gets no reply either (JSON-RPC 2.0 section 4.1).
        if (isRecord(value) && 'method' in value && !('id' in value))
          return log.warn(`stdio: ignored a malformed notification: ${(error as RpcError).message}`)
        return refuse(recoverId(value), error as RpcError)
      }
      handlers?.onMessage(message)
    },
    onInvalidUtf8() {
      refuse(null, new RpcError(RPC.PARSE_ERROR, 'Parse error: line is not valid UTF-8'))
    },
    onOversize(frame) {
      refuse(
        null,
        new RpcError(RPC.INVALID_REQUEST, `Invalid Request: frame of ${frame.bytes} bytes exceeds ${frame.maxFrameBytes} (maxFrameBytes)`, {
          maxFrameBytes: frame.maxFrameBytes,
        }),
      )
    },
  })

  const finish = (reason?: McpxError) => {
    if (closed) return
    closed = true
    handlers?.onClose(reason)
  }

  async function pump(input: ReadableStream<Uint8Array>): Promise<void> {
    reader = input.getReader()
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        framer.push(value)
      }
      framer.end()
    } catch {
      // A broken stdin ends the connection like EOF does.
    }
    finish()
  }

  function subscribe(source: ByteSource): void {
    source.start({
      push: (chunk) => {
        if (!closed) framer.push(chunk)
      },
      end: () => {
        if (closed) return
        framer.end()
        finish()
      },
    })
  }

  return {
    kind: 'stdio',
    async start(h) {
      handlers = h
      const input = options.input ?? (Bun.stdin.stream() as ReadableStream<Uint8Array>)
      if ('start' in input) subscribe(input)
      else void pump(input)
    },
    async send(message: JsonRpcMessage, _options?: SendOptions) {
      write(message)
    },
    async sendRaw(value) {
      write(value)
    },
    refuseUnnamed(error) {
      refuse(null, error)
    },
    async close() {
      outputClosed = true
      await reader?.cancel().catch(() => {})
      if (options.input && 'start' in options.input) options.input.cancel?.()
      finish()
    },
  }
}
