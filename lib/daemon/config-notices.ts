/**
 * Config-change notices between replicas sharing a Redis (settings.redisUrl; Bun's built-in
 * RedisClient, pub/sub on `<redisKeyPrefix>config-changed`). A replica that loads a changed config
 * because its own files changed publishes `{ replica, hash }` (the SHA-256 of its config file's
 * bytes); every other replica re-reads its own config file at once instead of waiting for its
 * watcher's debounce or poll — replicas on several machines, each with its deployed copy, converge
 * as soon as the copy has landed. A replica whose file still differs from the announced content
 * says so in its log (each replica serves its own file; the notice never carries the config).
 * Re-reads caused by a notice publish nothing, so notices never echo.
 */
import { readFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { RedisClient } from 'bun'
import { log } from '../log/index.ts'
import type { Settings } from '../settings/index.ts'
import type { ConfigSource } from './config-source.ts'

interface ConfigNotice {
  readonly replica: string
  readonly hash: string
}

/** The SHA-256 of the config file's bytes (`absent`: the built-in default, or a file that is gone). */
export function configHash(file: string | null): string {
  if (file === null) return 'absent'
  try {
    return new Bun.CryptoHasher('sha256').update(readFileSync(file)).digest('hex')
  } catch {
    return 'absent'
  }
}

const short = (hash: string) => hash.slice(0, 12)

/** Follow and send notices while the daemon runs; returns the stop, or undefined without redisUrl. */
export function followConfigNotices(settings: Settings, source: ConfigSource): (() => void) | undefined {
  const url = settings.redisUrl.trim()
  if (url === '') return undefined
  const channel = `${settings.redisKeyPrefix}config-changed`
  const me = settings.replicaId || `${hostname()}:${process.pid}`
  // A subscribed client can only (un)subscribe, so publishing takes a second connection.
  const publisher = new RedisClient(url)
  const subscriber = new RedisClient(url)
  let hash = configHash(source.config.source)
  source.onLoaded((config, cause) => {
    const next = configHash(config.source)
    const changed = next !== hash
    hash = next
    if (cause !== 'local' || !changed) return
    const notice: ConfigNotice = { replica: me, hash: next }
    publisher.publish(channel, JSON.stringify(notice)).then(
      (receivers) => log.info(`config change announced to ${Math.max(0, receivers - 1)} other replica(s) (content ${short(next)})`),
      (error: Error) =>
        log.warn(`redis: could not announce the config change (${error.message}); other replicas wait for their own file watchers`),
    )
  })
  subscriber
    .subscribe(channel, (message) => {
      let notice: ConfigNotice
      try {
        notice = JSON.parse(message) as ConfigNotice
      } catch {
        return log.warn(`redis: ignored a config notice that is not JSON: ${message.slice(0, 80)}`)
      }
      if (notice.replica === me || typeof notice.hash !== 'string') return
      void source.reread().then(() => {
        const mine = configHash(source.config.source)
        const file = source.config.source ?? 'the built-in default'
        if (mine === notice.hash)
          log.info(`config ${file} re-read on the notice of replica ${notice.replica}: same content (${short(mine)})`)
        else
          log.warn(
            `config ${file} differs from the one replica ${notice.replica} announced (${short(mine)} here, ${short(notice.hash)} there); this replica serves its own file`,
          )
      })
    })
    .catch((error: Error) =>
      log.warn(`redis: cannot follow config notices (${error.message}); config changes are seen by this replica's file watcher only`),
    )
  return () => {
    publisher.close()
    subscriber.close()
  }
}
