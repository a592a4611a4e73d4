/**
 * State replicas share through Redis when `settings.redisUrl` is set (Bun's built-in RedisClient;
 * nothing here is needed on one machine): the revocation list of ended legacy sessions, so a session
 * DELETEd, idle-expired or evicted on one replica is 404 on every replica that could rebuild it from
 * its sealed id (2025-11-25 basic/transports.mdx: a terminated session's id answers 404). Keys hold
 * a digest of the id, never the id, and expire when the id could no longer be rebuilt anyway.
 * And task records: the DetailedTask of every task at each status change, so a task whose replica
 * died can still be read (its result, if it finished) through any replica (SEP-2663 tasks/get).
 * And each legacy session's SSE event buffer (the last sseEventBufferLength events), so the replica
 * that rebuilds a session replays what its host missed (2025-11-25 basic/transports.mdx
 * "Resumability and Redelivery": only events of the stream the Last-Event-ID names).
 */
import { RedisClient } from 'bun'
import { log } from '../log/index.ts'
import type { SharedEvents } from '../server/index.ts'
import { parseEventId } from '../server/index.ts'
import type { Settings } from '../settings/index.ts'

export interface SharedState extends SharedEvents {
  /** Record that a session ended; `ttlMs`: how long its id could still be presented. */
  revokeSession(id: string, ttlMs: number): Promise<void>
  /** True when some replica ended the session; an unreachable Redis counts as ended (fail closed). */
  sessionRevoked(id: string): Promise<boolean>
  /** Keep a task's DetailedTask for `ttlMs` (its ttl after it ends; the longest a task may live while it runs). */
  saveTask(detailedTask: { taskId: string }, ttlMs: number): Promise<void>
  /** The last DetailedTask saved for a task id, if any. */
  loadTask(taskId: string): Promise<Record<string, unknown> | undefined>
  close(): void
}

export function createSharedState(settings: Settings): SharedState | undefined {
  const url = settings.redisUrl.trim()
  if (url === '') return undefined
  const client = new RedisClient(url)
  const eventsKey = (sessionId: string) =>
    `${settings.redisKeyPrefix}events:${new Bun.CryptoHasher('sha256').update(sessionId).digest('base64url')}`
  // An idle session ends after sessionIdleMs, and its buffer with it; a session that never idles lives as long as it can move.
  const eventsTtlMs = String(settings.sessionIdleMs > 0 ? settings.sessionIdleMs : settings.replicaSessionMaxAgeMs)
  const taskKey = (taskId: string) => `${settings.redisKeyPrefix}task:${taskId}`
  const key = (id: string) => `${settings.redisKeyPrefix}session-ended:${new Bun.CryptoHasher('sha256').update(id).digest('base64url')}`
  return {
    async revokeSession(id, ttlMs) {
      if (ttlMs <= 0) return
      try {
        await client.send('SET', [key(id), '1', 'PX', String(Math.ceil(ttlMs))])
      } catch (error) {
        log.warn(`redis: could not record an ended session (${(error as Error).message}); other replicas may still rebuild it`)
      }
    },
    async sessionRevoked(id) {
      try {
        return (await client.exists(key(id))) === true
      } catch (error) {
        log.warn(`redis: could not check the revocation list (${(error as Error).message}); the session is treated as ended`)
        return true
      }
    },
    async saveTask(detailed, ttlMs) {
      if (ttlMs <= 0) return
      try {
        await client.send('SET', [taskKey(detailed.taskId), JSON.stringify(detailed), 'PX', String(Math.ceil(ttlMs))])
      } catch (error) {
        log.warn(
          `redis: could not record task ${detailed.taskId} (${(error as Error).message}); other replicas cannot read it if this one stops`,
        )
      }
    },
    async loadTask(taskId) {
      try {
        const text = await client.get(taskKey(taskId))
        return text === null ? undefined : (JSON.parse(text) as Record<string, unknown>)
      } catch (error) {
        log.warn(`redis: could not read task ${taskId} (${(error as Error).message})`)
        return undefined
      }
    },
    append(sessionId, event) {
      const key = eventsKey(sessionId)
      // Fire and forget, in order (Bun pipelines the commands of one client): RPUSH, trim to the newest, refresh the expiry.
      const failed = (error: Error) => log.warn(`redis: could not copy an SSE event (${error.message}); another replica cannot replay it`)
      client.send('RPUSH', [key, JSON.stringify(event)]).catch(failed)
      client.send('LTRIM', [key, String(-Math.max(1, settings.sseEventBufferLength)), '-1']).catch(failed)
      client.send('PEXPIRE', [key, eventsTtlMs]).catch(failed)
    },
    async after(sessionId, lastEventId) {
      const last = parseEventId(lastEventId.trim())
      if (last === undefined) return []
      try {
        const items = (await client.send('LRANGE', [eventsKey(sessionId), '0', '-1'])) as string[]
        return items
          .map((item) => JSON.parse(item) as { id: string; data: string })
          .filter((event) => {
            const at = parseEventId(event.id)
            return at !== undefined && at.streamId === last.streamId && at.seq > last.seq
          })
      } catch (error) {
        log.warn(`redis: could not read the SSE events of a session (${(error as Error).message})`)
        return []
      }
    },
    close: () => client.close(),
  }
}
