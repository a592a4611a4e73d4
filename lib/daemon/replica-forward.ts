/**
 * Replicas behind a round-robin load balancer (scripts/cluster.ts): a 2026 call whose upstream
 * asked a question stays parked on the replica that made it (its upstream connection lives there),
 * and the requestState that replica minted names it (sealed, request-state.ts). A retry that lands
 * elsewhere is forwarded to the owner over HTTP with the caller's own credentials, which the owner
 * checks again. Legacy sessions likewise: their sealed ids name the owning replica, so a plain
 * round-robin balancer works for them too, and so do tasks (their ids name the replica holding
 * them, tasks.ts). A forwarded request is never forwarded twice (SEP-2322 lets any instance continue
 * a round; this one continues it by handing it to the instance that can).
 */
import { McpxError, RPC } from '../errors/index.ts'
import { keyRingFor, requestStateOwner, sealedSessionIds, sessionOwner, taskOwner } from '../server/index.ts'
import type { Settings } from '../settings/index.ts'
import { jsonResponse } from './api-routes.ts'
import { HTTP_STATUS } from '../wire/index.ts'

const FORWARDED = 'mcpx-forwarded-by'

export interface ReplicaForwarder {
  /** The owner's answer when `request` belongs to another replica; undefined to serve it here. */
  forward(request: Request, url: URL): Promise<Response | undefined>
  /** Mints this replica's legacy session ids (sealed, naming it). */
  readonly newSessionId: () => string
}

export function parsePeers(value: string): Map<string, string> {
  const peers = new Map<string, string>()
  for (const item of value.split(',').map((s) => s.trim()).filter(Boolean)) {
    const eq = item.indexOf('=')
    const id = item.slice(0, eq).trim()
    const url = item.slice(eq + 1).trim()
    if (eq <= 0 || !/^https?:\/\/[^/]+$/.test(url)) throw new McpxError('CONFIG', `setting replicaPeers: "${item}" is not id=http://host:port`, { setting: 'replicaPeers' })
    peers.set(id, url)
  }
  return peers
}

export function createReplicaForwarder(settings: Settings): ReplicaForwarder | undefined {
  const self = settings.replicaId.trim()
  const peers = parsePeers(settings.replicaPeers)
  if (self === '' || peers.size === 0) return undefined
  const ring = keyRingFor(settings.sealKeyFile)
  const hop = async (peer: string, owner: string, session: boolean, request: Request, url: URL, body?: string): Promise<Response> => {
    const headers = new Headers(request.headers)
    headers.delete('host')
    headers.delete('content-length')
    headers.set(FORWARDED, self)
    try {
      return await fetch(`${peer}${url.pathname}${url.search}`, { method: request.method, headers, ...(body !== undefined && { body }), signal: request.signal })
    } catch (error) {
      const why = `replica ${owner} is unreachable (${(error as Error).message})`
      // 2025-11-25 basic/transports.mdx: a session that is gone is 404, and the client starts a new one.
      if (session) return jsonResponse({ jsonrpc: '2.0', id: null, error: { code: RPC.INVALID_REQUEST, message: `session not found: ${why}` } }, HTTP_STATUS.NOT_FOUND)
      // JSON-RPC 2.0 §5.1: id null, the request was not answered; the host sends the call again from the start.
      return jsonResponse({ jsonrpc: '2.0', id: null, error: { code: RPC.INTERNAL_ERROR, message: `the call or task is held by ${why}; a call can be sent again without requestState` } }, HTTP_STATUS.BAD_GATEWAY)
    }
  }
  return {
    newSessionId: sealedSessionIds(ring, self),
    async forward(request, url) {
      if (request.headers.has(FORWARDED)) return undefined
      // A legacy session (any method: POST, the GET stream, DELETE) lives with the replica that minted its id.
      const session = request.headers.get('mcp-session-id')
      if (session !== null) {
        const owner = sessionOwner(ring, session)
        const peer = owner === undefined ? undefined : peers.get(owner)
        if (owner === undefined || peer === undefined) return undefined
        return hop(peer, owner, true, request, url, request.method === 'POST' ? await request.text() : undefined)
      }
      if (request.method !== 'POST') return undefined
      const text = await request.clone().text()
      // Only a 2026 retry carries requestState, only tasks/* a taskId; anything else is served here without parsing.
      const hasState = text.includes('"requestState"')
      if (!hasState && !text.includes('"taskId"')) return undefined
      let params: { requestState?: unknown; taskId?: unknown } | undefined
      try {
        params = (JSON.parse(text) as { params?: { requestState?: unknown; taskId?: unknown } }).params
      } catch {
        return undefined
      }
      const owner = hasState ? requestStateOwner(ring, params?.requestState) : taskOwner(params?.taskId)
      const peer = owner === undefined ? undefined : peers.get(owner)
      if (owner === undefined || peer === undefined) return undefined
      return hop(peer, owner, false, request, url, text)
    },
  }
}
