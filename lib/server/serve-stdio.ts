/**
 * Serve an engine on stdio: one connection for the process (an `initialize` makes it legacy; a
 * request with modern `_meta` is served statelessly: 2026-07-28 basic/versioning.mdx "dual-era").
 * Every request is dispatched at once, so a long call never blocks ping, notifications/cancelled or any other request.
 * 2025-03-26 batches are answered with one array; other revisions refuse them with -32600.
 */
import { RPC, RpcError } from '../errors/index.ts'
import { log } from '../log/index.ts'
import type { Settings } from '../settings/index.ts'
import { createStdioServerTransport, type StdioServerOptions } from '../transport/index.ts'
import { hasFeature, isRecord, META, makeError, parseMessage, recoverId, type JsonRpcMessage, type JsonRpcResponse } from '../wire/index.ts'
import type { Outlet } from './connection.ts'
import type { Engine } from './engine.ts'

/** A stdio client's session as the daemon log reports it (opened after initialize, closed at EOF). */
export interface StdioSessionEvent {
  /** `discovered`: a stateless (2026-07-28) client's server/discover, the closest it has to a session start. */
  readonly state: 'opened' | 'closed' | 'discovered'
  readonly revision: string
  readonly client?: { readonly name: string; readonly version: string }
}

export interface StdioServer {
  /** Resolves when stdin reached EOF (or close() was called) and the connection ended. */
  readonly closed: Promise<void>
  close(): Promise<void>
}

export function serveStdio(
  engine: Engine,
  settings: Settings,
  io: Pick<StdioServerOptions, 'input' | 'output'> = {},
  hooks: { readonly onSession?: (event: StdioSessionEvent) => void } = {},
): StdioServer {
  const connection = engine.connect('stdio')
  let opened = false
  const sessionEvent = (message: JsonRpcMessage) => {
    if (!hooks.onSession) return
    const legacy = connection.legacy
    if (!opened && legacy !== undefined) {
      opened = true
      hooks.onSession({ state: 'opened', revision: legacy.revision, ...clientOf(legacy.clientInfo) })
    } else if (legacy === undefined && 'method' in message && message.method === 'server/discover') {
      const info = (message.params as { _meta?: Record<string, unknown> } | undefined)?._meta?.[META.CLIENT_INFO]
      const revision = (message.params as { _meta?: Record<string, unknown> } | undefined)?._meta?.[META.PROTOCOL_VERSION]
      hooks.onSession({ state: 'discovered', revision: String(revision ?? 'unknown'), ...clientOf(info) })
    }
  }
  let resolveClosed!: () => void
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve))
  const transport = createStdioServerTransport({
    maxFrameBytes: settings.maxFrameBytes,
    maxJsonDepth: settings.maxJsonDepth,
    ...io,
    // Revisions before 2025-11-25 require an id on every error response (their schema.json).
    unnamedErrors: () => (connection.legacy !== undefined && !hasFeature(connection.legacy.revision, 'idlessErrors') ? 'log' : 'omit-id'),
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
    // 2025-03-26 basic/index.mdx: MUST receive batches; 2025-06-18 removed batching from schema and prose.
    if (connection.legacy === undefined || !hasFeature(connection.legacy.revision, 'batching')) {
      // A revision without batches reads no array: each request in it gets its own error line.
      const refusal = new RpcError(
        RPC.INVALID_REQUEST,
        'Invalid Request: JSON-RPC batches are only allowed in 2025-03-26 (send each message on a line of its own)',
      )
      const answers = refusalsOf(items, refusal)
      if (answers.length === 0) return transport.refuseUnnamed(refusal)
      for (const answer of answers) void transport.send(answer)
      return
    }
    if (items.length === 0 || items.length > settings.maxBatchLength) {
      const refusal = new RpcError(RPC.INVALID_REQUEST, `Invalid Request: a batch must hold 1..${settings.maxBatchLength} messages`)
      const answers = refusalsOf(items, refusal)
      return answers.length === 0 ? transport.refuseUnnamed(refusal) : void transport.sendRaw(answers)
    }
    const answers = await Promise.all(
      items.map(async (item): Promise<JsonRpcResponse | undefined> => {
        try {
          const message = parseMessage(item)
          if ('method' in message && message.method === 'initialize')
            throw new RpcError(RPC.INVALID_REQUEST, 'Invalid Request: initialize must not be part of a batch')
          return await engine.handle(message, { connection, outlet })
        } catch (error) {
          // A malformed notification in the batch gets no answer; other items' errors name their id when it can be read.
          if (typeof item === 'object' && item !== null && 'method' in item && !('id' in item)) return undefined
          const id = recoverId(item)
          const rpc = (error instanceof RpcError ? error : new RpcError(RPC.INVALID_REQUEST, String(error))).toRpc()
          // Batches exist only under 2025-03-26, whose schema requires an id on every error: logged instead.
          if (id === null) return void log.warn(`stdio: batch member refused without an id to answer: ${rpc.message}`)
          return makeError(id, rpc)
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
          sessionEvent(message)
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
        if (opened && connection.legacy !== undefined)
          hooks.onSession?.({ state: 'closed', revision: connection.legacy.revision, ...clientOf(connection.legacy.clientInfo) })
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

function clientOf(info: unknown): { client?: { name: string; version: string } } {
  if (info === null || typeof info !== 'object') return {}
  const { name, version } = info as { name?: unknown; version?: unknown }
  return { client: { name: String(name), version: String(version) } }
}

/** An error for each request of a refused batch (every request gets one answer); notifications get none. */
function refusalsOf(items: readonly unknown[], refusal: RpcError): JsonRpcResponse[] {
  const answers: JsonRpcResponse[] = []
  for (const item of items) {
    if (!isRecord(item) || !('method' in item)) continue
    const id = recoverId(item)
    if (id !== null) answers.push(makeError(id, refusal.toRpc()))
  }
  return answers
}
