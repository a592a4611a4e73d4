/**
 * Hot reload of the config file: when it changes on disk, the daemon re-reads it; a valid file
 * reconfigures the pool (servers added, removed or changed; the rest keep their connections), and
 * a malformed one is reported (log + `config.invalid` event) while the daemon keeps serving the
 * config it has. Settings in the file take effect at the next daemon start.
 */
import { type FSWatcher, watch } from 'node:fs'
import { basename, dirname } from 'node:path'
import type { McpxConfig } from '../config/index.ts'
import { asMcpxError } from '../errors/index.ts'
import { log } from '../log.ts'

export interface ConfigWatchOptions {
  /** The file to watch (the daemon's config source). */
  readonly file: string
  /** Re-read and validate it; throws CONFIG naming the problem. */
  readonly load: () => McpxConfig
  readonly apply: (config: McpxConfig) => Promise<unknown>
  readonly emit: (type: string, data: unknown) => void
  /** Editors write in bursts (truncate, write, rename): wait this long for quiet. */
  readonly debounceMs: number
}

export function watchConfig(options: ConfigWatchOptions): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined
  let watcher: FSWatcher | undefined
  const reload = async () => {
    let config: McpxConfig
    try {
      config = options.load()
    } catch (error) {
      const failure = asMcpxError(error, 'CONFIG')
      log.error(`config ${options.file} not reloaded, still serving the previous one: ${failure.message}`)
      options.emit('config.invalid', { file: options.file, error: failure.toJSON() })
      return
    }
    const changes = await options.apply(config)
    log.info(`config ${options.file} reloaded`)
    options.emit('config.reloaded', { file: options.file, changes })
  }
  // Watch the directory: editors that replace the file (rename over it) end a file watch.
  try {
    watcher = watch(dirname(options.file), (_event, name) => {
      if (name !== null && name !== basename(options.file)) return
      clearTimeout(timer)
      timer = setTimeout(() => void reload(), options.debounceMs)
    })
  } catch (error) {
    log.warn(`config ${options.file} will not be reloaded on change: ${(error as Error).message}`)
  }
  return () => {
    clearTimeout(timer)
    watcher?.close()
  }
}
