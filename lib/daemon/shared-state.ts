/**
 * State replicas share through Redis when `settings.redisUrl` is set (Bun's built-in RedisClient;
 * nothing here is needed on one machine): the revocation list of ended legacy sessions, so a session
 * DELETEd, idle-expired or evicted on one replica is 404 on every replica that could rebuild it from
 * its sealed id (2025-11-25 basic/transports.mdx: a terminated session's id answers 404). Keys hold
 * a digest of the id, never the id, and expire when the id could no longer be rebuilt anyway.
 */
import { createHash } from 'node:crypto'
import { RedisClient } from 'bun'
import { log } from '../log.ts'
import type { Settings } from '../settings/index.ts'

export interface SharedState {
  /** Record that a session ended; `ttlMs`: how long its id could still be presented. */
  revokeSession(id: string, ttlMs: number): Promise<void>
  /** True when some replica ended the session; an unreachable Redis counts as ended (fail closed). */
  sessionRevoked(id: string): Promise<boolean>
  close(): void
}

export function createSharedState(settings: Settings): SharedState | undefined {
  const url = settings.redisUrl.trim()
  if (url === '') return undefined
  const client = new RedisClient(url)
  const key = (id: string) => `${settings.redisKeyPrefix}session-ended:${createHash('sha256').update(id).digest('base64url')}`
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
    close: () => client.close(),
  }
}
