/**
 * Ways to produce a recording. `recordingTransports` wraps the client's transport factory so every
 * transport a connect() opens (probe, fallback) writes into one recording. `recordProxy` is
 * `mcpx record`: mcpx serves a host on stdio and relays each message unchanged to the upstream,
 * recording the upstream side; over HTTP it adds the request headers the revision needs
 * (MCP-Protocol-Version; 2026: Mcp-Method, Mcp-Name, Mcp-Param-* from the tools it has seen listed).
 */
import type { TransportFactory } from '../client/index.ts'
import type { McpxError } from '../errors/index.ts'
import type { Transport } from '../transport/index.ts'
import {
  META, isModernRevision, isRequest, isResponse, isRevision, requestHeaders, type HeaderTool, type JsonRpcMessage, type Revision,
} from '../wire/index.ts'
import { recordTransport } from './decorator.ts'
import type { Recorder } from './writer.ts'

/** A factory whose transports all record into `recorder` (close the recorder yourself). */
export function recordingTransports(base: TransportFactory, recorder: Recorder): TransportFactory {
  return {
    stdio: (target, settings) => recordTransport(base.stdio(target, settings), recorder, 'client', { closeRecorder: false }),
    http: (kind, target, settings, auth) => recordTransport(base.http(kind, target, settings, auth), recorder, 'client', { closeRecorder: false }),
  }
}

export interface RecordProxyOptions {
  /** The host's side: a stdio server transport. */
  readonly downstream: Transport
  /** The recorded server: already wrapped with recordTransport (role client). */
  readonly upstream: Transport
}

/**
 * Relay messages both ways until either side closes; resolves then (after closing the other side).
 * Rejects only if a transport fails to start.
 */
export async function recordProxy(options: RecordProxyOptions): Promise<McpxError | undefined> {
  const { downstream, upstream } = options
  const http = upstream.kind !== 'stdio'
  const tools = new Map<string, HeaderTool>()
  const pendingMethods = new Map<string, string>()
  let legacyRevision: Revision | undefined
  let finished!: (reason?: McpxError) => void
  const done = new Promise<McpxError | undefined>((resolve) => (finished = resolve))

  const headersFor = (message: JsonRpcMessage): Record<string, string> | undefined => {
    if (!http) return undefined
    const method = 'method' in message ? message.method : ''
    const params = 'params' in message ? message.params : undefined
    const modern = (params?._meta as Record<string, unknown> | undefined)?.[META.PROTOCOL_VERSION]
    const revision = isModernRevision(modern) ? modern : legacyRevision
    if (revision === undefined) return undefined
    const name = method === 'tools/call' ? params?.name : undefined
    try {
      return requestHeaders(revision, method, params, typeof name === 'string' ? tools.get(name) : undefined)
    } catch {
      // A tool with invalid x-mcp-header annotations: send without Mcp-Param-* and let the server judge.
      return requestHeaders(revision, method, params)
    }
  }

  const learn = (message: JsonRpcMessage): void => {
    if (!isResponse(message) || !('result' in message)) return
    const method = pendingMethods.get(JSON.stringify(message.id))
    pendingMethods.delete(JSON.stringify(message.id))
    const result = message.result as Record<string, unknown>
    if (method === 'initialize' && isRevision(result.protocolVersion)) legacyRevision = result.protocolVersion
    if (method === 'tools/list' && Array.isArray(result.tools)) {
      for (const tool of result.tools as HeaderTool[]) if (typeof tool?.name === 'string') tools.set(tool.name, tool)
    }
  }

  await upstream.start({
    onMessage(message) {
      learn(message)
      void downstream.send(message).catch(() => {})
    },
    onClose(reason) {
      void downstream.close()
      finished(reason)
    },
  })
  await downstream.start({
    onMessage(message) {
      if (isRequest(message)) pendingMethods.set(JSON.stringify(message.id), message.method)
      const headers = headersFor(message)
      void upstream.send(message, headers === undefined ? undefined : { headers }).catch(() => {})
    },
    onClose() {
      void upstream.close()
      finished()
    },
  })
  return done
}
