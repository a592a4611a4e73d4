/**
 * Replicas behind a round-robin load balancer (scripts/cluster.ts): a 2026 call whose upstream
 * asked a question stays parked on the replica that made it (its upstream connection lives there),
 * and the requestState that replica minted names it (sealed, request-state.ts). A retry that lands
 * elsewhere is forwarded to the owner over HTTP with the caller's own credentials, which the owner
 * checks again. Legacy sessions likewise: their sealed ids name the owning replica, so a plain
 * round-robin balancer works for them too, and so do tasks (their ids name the replica holding
 * them, tasks.ts). A forwarded request is never forwarded twice (SEP-2322 lets any instance continue
 * a round; this one continues it by handing it to the instance that can).
 *
 * When a session's owner refuses connections (it died or restarts), its heir takes the session:
 * the next replica after the owner, in the order of their ids, that accepts a connection. Every
 * replica walks the same order, so a session lands on one heir, which rebuilds it from the sealed
 * id (session-id.ts) — no new initialize. Ended sessions stay ended: each replica remembers the ids
 * it ended, and with Redis (shared-state.ts) every replica knows them.
 */
import { McpxError, RPC } from '../errors/index.ts'
import { acceptsConnections } from '../transport/index.ts'
import { HTTP_STATUS, MIME } from '../wire/index.ts'
import {
  keyRingFor,
  openSession,
  requestStateOwner,
  type SealedSession,
  sealedSessionIds,
  type SessionSeed,
  streaming,
  taskOwner,
} from '../server/index.ts'
import type { Settings } from '../settings/index.ts'
import { jsonResponse } from './api-routes.ts'
import type { SharedState } from './shared-state.ts'

const FORWARDED = 'mcpx-forwarded-by'

export interface ReplicaForwarder {
  /** The owner's (or heir's) answer when `request` names a legacy session of another replica; undefined to serve it here. */
  forward(request: Request, url: URL): Promise<Response | undefined> | undefined
  /** HttpHandlerOptions.forwardModern: a 2026 retry or tasks/* request another replica holds goes there. */
  forwardModern(request: Request, body: string, params: Record<string, unknown>, method: string): Promise<Response | undefined>
  /** Mints this replica's legacy session ids (sealed, naming it and holding the session's seed). */
  readonly newSessionId: (seed: SessionSeed) => string
  /** A sealed session this replica did not open, when it may be rebuilt here (HttpHandlerOptions.adoptSession). */
  adoptSession(id: string): Promise<SessionSeed | undefined>
  /** With Redis: whether another replica ended a session rebuilt here. */
  readonly sessionRevoked?: (id: string) => Promise<boolean>
  /** A session ended here (DELETE, idle, eviction): recorded in the shared revocation list, if any. */
  sessionEnded(id: string): void
}

/** SEP-2663: the statuses a task does not leave. */
const TERMINAL = new Set(['completed', 'failed', 'cancelled'])

/**
 * tasks/get | tasks/update | tasks/cancel for a task whose replica refuses connections, answered from
 * its shared record: a finished task as it ended (result included); one still running when its
 * replica went away has lost its work, so it ends now — cancelled when that is what was asked,
 * failed otherwise — and the record says so for every replica after.
 */
async function taskFromRecord(
  shared: SharedState,
  owner: string,
  method: string,
  taskId: string,
  id: unknown,
  ifFinished = false,
): Promise<Response | undefined> {
  const record = await shared.loadTask(taskId)
  if (record === undefined) return undefined
  let current = record
  if (!TERMINAL.has(String(record.status))) {
    // Whether its owner is gone is not known yet: a running task is not ended on a guess.
    if (ifFinished) return undefined
    const { inputRequests: _asked, ...rest } = record
    const lastUpdatedAt = new Date().toISOString()
    current =
      method === 'tasks/cancel'
        ? { ...rest, status: 'cancelled', lastUpdatedAt }
        : {
            ...rest,
            status: 'failed',
            lastUpdatedAt,
            error: { code: RPC.INTERNAL_ERROR, message: `replica ${owner} stopped while the task ran; its work is lost` },
          }
    await shared.saveTask(current as { taskId: string }, typeof record.ttlMs === 'number' ? record.ttlMs : 0)
  }
  if (method === 'tasks/get') return jsonResponse({ jsonrpc: '2.0', id, result: current }, HTTP_STATUS.OK)
  if (method === 'tasks/cancel') return jsonResponse({ jsonrpc: '2.0', id, result: {} }, HTTP_STATUS.OK)
  return jsonResponse(
    {
      jsonrpc: '2.0',
      id,
      error: { code: RPC.INVALID_PARAMS, message: `task ${taskId} is ${String(current.status)}: it takes no more input` },
    },
    HTTP_STATUS.OK,
  )
}

function idOf(body: string | undefined): unknown {
  try {
    return (JSON.parse(body ?? 'null') as { id?: unknown } | null)?.id ?? null
  } catch {
    return null
  }
}

/** Bun's fetch error code when nothing listens at the address: the request was never sent. */
const REFUSED = 'ECONNREFUSED'

export function parsePeers(value: string): Map<string, string> {
  const peers = new Map<string, string>()
  for (const item of value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const eq = item.indexOf('=')
    const id = item.slice(0, eq).trim()
    const url = item.slice(eq + 1).trim()
    if (eq <= 0 || !/^https?:\/\/[^/]+$/.test(url))
      throw new McpxError('CONFIG', `setting replicaPeers: "${item}" is not id=http://host:port`, { setting: 'replicaPeers' })
    peers.set(id, url)
  }
  return peers
}

export function createReplicaForwarder(settings: Settings, shared?: SharedState): ReplicaForwarder | undefined {
  const self = settings.replicaId.trim()
  const peers = parsePeers(settings.replicaPeers)
  if (self === '' || peers.size === 0) return undefined
  const ring = keyRingFor(settings.sealKeyFile)
  /** Every replica's id in one order all replicas agree on: a session's heirs follow its owner in it. */
  const order = [...new Set([self, ...peers.keys()])].sort()
  const heirs = (owner: string): string[] => {
    const at = order.indexOf(owner)
    return at < 0 ? [self] : [...order.slice(at), ...order.slice(0, at)]
  }
  /** The peer's answer, or 'refused' when nothing listens there (so the request never reached it). */
  const hop = async (peer: string, request: Request, url: URL, body?: string): Promise<Response | 'refused'> => {
    const headers = new Headers(request.headers)
    headers.delete('host')
    headers.delete('content-length')
    headers.set(FORWARDED, self)
    try {
      const answer = await fetch(`${peer}${url.pathname}${url.search}`, {
        method: request.method,
        headers,
        ...(body !== undefined && { body }),
        signal: request.signal,
      })
      // A relayed stream keeps its host's connection as the peer's own stream would (idle timeout lifted).
      return (answer.headers.get('content-type') ?? '').startsWith(MIME.SSE) ? streaming(answer) : answer
    } catch (error) {
      if ((error as { code?: unknown }).code === REFUSED) return 'refused'
      throw error
    }
  }
  /** A request the peer took but never answered (it died meanwhile): JSON-RPC 2.0 error, the request's id when it has one. */
  const cut = (owner: string, error: unknown, body: string | undefined, message: string): Response => {
    return jsonResponse(
      {
        jsonrpc: '2.0',
        id: idOf(body),
        error: { code: RPC.INTERNAL_ERROR, message: `replica ${owner} stopped while answering (${(error as Error).message}): ${message}` },
      },
      HTTP_STATUS.BAD_GATEWAY,
    )
  }
  // Every request of a session asks whose it is: what one AES-GCM open of an id gives is kept per id
  // (an id always says the same), at most maxSessions of them, so a session's requests open nothing
  // after its first here (bench/seal.ts: under 1 µs per request). Expiry and revocation are not kept: they
  // are checked again on every adoption (adoptSession), and a rebuilt session's revocation per request.
  const opened = new Map<string, SealedSession | undefined>()
  const openOnce = (id: string): SealedSession | undefined => {
    if (opened.has(id)) return opened.get(id)
    const sealed = openSession(ring, id)
    if (opened.size >= settings.maxSessions) opened.clear()
    opened.set(id, sealed)
    return sealed
  }
  const maxAgeMs = settings.replicaSessionMaxAgeMs
  const startedMs = Date.now()
  return {
    newSessionId: sealedSessionIds(ring, self),
    async adoptSession(id) {
      const sealed = openOnce(id)
      if (sealed === undefined || Date.now() - sealed.mintedMs > maxAgeMs) return undefined
      // An id this very process minted and no longer knows has ended here (its memory of ended ids is bounded): 404.
      // One a previous run of this replica minted is rebuilt like any other (the replica restarted).
      if (sealed.owner === self && sealed.mintedMs >= startedMs) return undefined
      if (shared && (await shared.sessionRevoked(id))) return undefined
      return sealed
    },
    ...(shared && { sessionRevoked: (id: string) => shared.sessionRevoked(id) }),
    sessionEnded(id) {
      const sealed = shared && openOnce(id)
      if (sealed) void shared!.revokeSession(id, sealed.mintedMs + maxAgeMs - Date.now())
    },
    forward(request, url) {
      // A legacy session (any method: POST, the GET stream, DELETE) lives with the replica that minted its id, else its heir.
      const session = request.headers.get('mcp-session-id')
      if (session === null || request.headers.has(FORWARDED)) return undefined
      const owner = openOnce(session)?.owner
      if (owner === undefined || owner === self) return undefined
      return (async () => {
        let body: string | undefined
        for (const replica of heirs(owner)) {
          if (replica === self) return undefined
          body ??= request.method === 'POST' ? await request.clone().text() : undefined
          try {
            const answer = await hop(peers.get(replica)!, request, url, body)
            if (answer !== 'refused') return answer
          } catch (error) {
            return cut(replica, error, body, 'the request may or may not have run; the session is kept, send it again')
          }
        }
        return undefined
      })()
    },
    async forwardModern(request, text, params, method) {
      const url = new URL(request.url)
      if (request.headers.has(FORWARDED)) return undefined
      const owner = params.requestState !== undefined ? requestStateOwner(ring, params.requestState) : taskOwner(params.taskId)
      const peer = owner === undefined ? undefined : peers.get(owner)
      if (owner === undefined || peer === undefined) return undefined
      const lost = 'the call or task it held is lost; a call can be sent again without requestState'
      const isTaskRequest = params.requestState === undefined && typeof params.taskId === 'string'
      try {
        let answer: Response | 'refused'
        try {
          answer = await hop(peer, request, url, text)
        } catch (error) {
          // The owner stopped while answering. tasks/* change nothing when sent twice (a key already
          // answered is ignored), so a task request goes once more if something still listens at the
          // owner's address, asked on a socket of its own: fetch may hand back another connection it kept
          // to the dead owner, reset too. Nothing listening: the owner is gone, and its record answers.
          // A call (requestState) is not resent: it may have run.
          if (!isTaskRequest) throw error
          // A finished task's record says all there is, whether or not its owner is still there (a
          // dying process can hold its listening socket for a few more milliseconds).
          const finished = shared && (await taskFromRecord(shared, owner, method, params.taskId as string, idOf(text), true))
          if (finished) return finished
          answer = (await acceptsConnections(peer)) ? await hop(peer, request, url, text) : 'refused'
        }
        if (answer !== 'refused') return answer
        // With Redis, a task of a replica that is gone is still read (and ended) from its record.
        if (shared && isTaskRequest) {
          const fromRecord = await taskFromRecord(shared, owner, method, params.taskId as string, idOf(text))
          if (fromRecord) return fromRecord
        }
        // JSON-RPC 2.0: the request was not answered; the host sends the call again from the start.
        return jsonResponse(
          { jsonrpc: '2.0', id: idOf(text), error: { code: RPC.INTERNAL_ERROR, message: `replica ${owner} is unreachable: ${lost}` } },
          HTTP_STATUS.BAD_GATEWAY,
        )
      } catch (error) {
        return cut(owner, error, text, lost)
      }
    },
  }
}
