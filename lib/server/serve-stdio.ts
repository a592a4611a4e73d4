/**
 * Serve an engine on stdio: one connection for the process (an `initialize` makes it legacy; a
 * request with modern `_meta` is served statelessly: 2026-07-28 basic/versioning.mdx "dual-era").
 * Every request is dispatched at once, so a long call never blocks ping or cancellation (TR-05).
 * 2025-03-26 batches are answered with one array; other revisions refuse them with -32600.
 */
import { RPC, RpcError } from '../errors/index.ts'
import type { Settings } from '../settings/index.ts'
import { createStdioServerTransport, type StdioServerOptions } from '../transport/index.ts'
import { makeError, parseMessage, recoverId, type JsonRpcResponse } from '../wire/index.ts'
import type { Outlet } from './connection.ts'
import type { Engine } from './engine.ts'

export interface StdioServer {
  /** Resolves when stdin reached EOF (or close() was called) and the connection ended. */
  readonly closed: Promise<void>
  close(): Promise<void>
}

export function serveStdio(engine: Engine, settings: Settings, io: Pick<StdioServerOptions, 'input' | 'output'> = {}): StdioServer {
  const connection = engine.connect('stdio')
  let resolveClosed!: () => void
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve))
  const transport = createStdioServerTransport({
    maxFrameBytes: settings.maxFrameBytes,
    ...io,
    onBatch(items) {
      track(batch(items))
    },
  })
  const outlet: Outlet = { send: (m) => void transport.send(m) }
  connection.unsolicited = outlet
  /** Requests read but not answered yet: stdin EOF waits for them (bounded by shutdownGraceMs). */
  const inflight = new Set<Promise<unknown>>()
  const track = (work: Promise<unknown>) => {
    inflight.add(work)
    void work.finally(() => inflight.delete(work))
  }

  async function batch(items: unknown[]): Promise<void> {
    // 2025-03-26 basic/index.mdx: MUST receive batches; removed in 2025-06-18 (TR-09).
    if (connection.legacy?.revision !== '2025-03-26') {
      return transport.sendRaw(makeError(null, new RpcError(RPC.INVALID_REQUEST, 'Invalid Request: JSON-RPC batches are only allowed in 2025-03-26').toRpc()))
    }
    if (items.length === 0 || items.length > settings.maxBatchLength) {
      return transport.sendRaw(makeError(null, new RpcError(RPC.INVALID_REQUEST, `Invalid Request: a batch must hold 1..${settings.maxBatchLength} messages`).toRpc()))
    }
    const answers = await Promise.all(
      items.map(async (item): Promise<JsonRpcResponse | undefined> => {
        try {
          const message = parseMessage(item)
          if ('method' in message && message.method === 'initialize') throw new RpcError(RPC.INVALID_REQUEST, 'Invalid Request: initialize must not be part of a batch')
          return await engine.handle(message, { connection, outlet })
        } catch (error) {
          return makeError(recoverId(item), (error instanceof RpcError ? error : new RpcError(RPC.INVALID_REQUEST, String(error))).toRpc())
        }
      }),
    )
    const responses = answers.filter((a) => a !== undefined)
    if (responses.length > 0) await transport.sendRaw(responses)
  }

  void transport.start({
    onMessage(message) {
      track(
        engine.handle(message, { connection, outlet }).then((response) => {
          if (response) void transport.send(response)
        }),
      )
    },
    onClose() {
      // The client closed stdin (lifecycle.mdx "Shutdown"; 2026-07-28 basic/transports/stdio.mdx asks
      // servers to exit promptly): answer what was read within shutdownGraceMs, then fail the rest
      // with an error (never silence), then end.
      void engine.drain(settings.shutdownGraceMs, 'stdin closed', connection).then(async () => {
        await Promise.allSettled([...inflight])
        engine.disconnect(connection)
        await transport.close()
        resolveClosed()
      })
    },
  })
  return {
    closed,
    async close() {
      await transport.close()
      await closed
    },
  }
}
