/**
 * The daemon's config, followed on disk. The daemon serves one config location (the explicit
 * file, or the default location whether or not a file exists there yet — then the built-in default
 * until one appears). Whatever changes — the file, its envFile, the environment snapshot, a file
 * appearing at the default location — the config is re-read: a valid one reconfigures the pool,
 * one that does not parse is reported (log, `config.invalid` event, `problem` for every CLI
 * command) while the daemon keeps serving what it has. Changes are noticed three ways: a
 * directory watch (debounced), a stat poll (directories that do not exist yet cannot be watched),
 * and a check before every /v1 operation, so a CLI command right after an edit sees the edit.
 */
import { type FSWatcher, existsSync, statSync, watch } from 'node:fs'
import { basename, dirname } from 'node:path'
import type { McpxConfig } from '../config/index.ts'
import { asMcpxError } from '../errors/index.ts'
import { log } from '../log/index.ts'

export interface ConfigProblem {
  /** The file that was not loaded. */
  readonly file: string
  readonly message: string
  /** When the config being served instead was loaded (null: nothing loaded yet). */
  readonly servingSince: string | null
}

/** `local`: this daemon saw its files change; `notice`: another replica announced a change. */
export type ReloadCause = 'local' | 'notice'

export interface ConfigSourceOptions {
  /** Files whose change means "re-read": config candidates, envFile, environment snapshot. */
  readonly watched: () => readonly string[]
  /** Read, interpolate and validate the config; throws CONFIG naming the problem. */
  readonly load: () => McpxConfig
  /** The config served when the first load fails (no servers). */
  readonly empty: McpxConfig
  readonly emit: (type: string, data: unknown) => void
  readonly debounceMs: number
  readonly pollMs: number
}

export class ConfigSource {
  #config: McpxConfig
  #problem: ConfigProblem | undefined
  #loadedAt: Date | null
  #fingerprint: string
  #apply: (config: McpxConfig) => Promise<unknown> = async () => {}
  #reloading: Promise<void> | undefined
  #loaded: (config: McpxConfig, cause: ReloadCause) => void = () => {}

  constructor(private readonly options: ConfigSourceOptions) {
    this.#fingerprint = this.#currentFingerprint()
    try {
      this.#config = options.load()
      this.#loadedAt = new Date()
    } catch (error) {
      this.#config = options.empty
      this.#loadedAt = null
      this.#problem = this.#problemFrom(error)
      log.error(`config ${this.#problem.file} not loaded: ${this.#problem.message}; serving no servers`)
    }
  }

  get config(): McpxConfig {
    return this.#config
  }

  /** Set while the file on disk could not be loaded (the daemon serves the previous version). */
  get problem(): ConfigProblem | undefined {
    return this.#problem
  }

  /** How a new config is applied (the pool's reconfigure). */
  onChange(apply: (config: McpxConfig) => Promise<unknown>): void {
    this.#apply = apply
  }

  /** Told after each config (re)loaded and applied, with what made it re-read (config-notices.ts). */
  onLoaded(listener: (config: McpxConfig, cause: ReloadCause) => void): void {
    this.#loaded = listener
  }

  /** Re-read when anything watched changed since the last read; resolves once applied. */
  check(): Promise<void> {
    if (this.#reloading) return this.#reloading
    const fingerprint = this.#currentFingerprint()
    if (fingerprint === this.#fingerprint) return Promise.resolve()
    this.#fingerprint = fingerprint
    this.#reloading = this.#reload('local').finally(() => (this.#reloading = undefined))
    return this.#reloading
  }

  /** Re-read now whether or not the files look changed (another replica's notice); resolves once applied. */
  async reread(): Promise<void> {
    await this.#reloading
    this.#fingerprint = this.#currentFingerprint()
    this.#reloading = this.#reload('notice').finally(() => (this.#reloading = undefined))
    return this.#reloading
  }

  async #reload(cause: ReloadCause): Promise<void> {
    let config: McpxConfig
    try {
      config = this.options.load()
    } catch (error) {
      this.#problem = this.#problemFrom(error)
      log.error(`config ${this.#problem.file} not reloaded, still serving the previous one: ${this.#problem.message}`)
      this.options.emit('config.invalid', { file: this.#problem.file, error: asMcpxError(error, 'CONFIG').toJSON() })
      return
    }
    this.#problem = undefined
    this.#config = config
    this.#loadedAt = new Date()
    const changes = (await this.#apply(config)) as { added?: string[]; removed?: string[]; changed?: string[] } | undefined
    const file = config.source ?? 'the built-in default'
    const summary = ['added', 'removed', 'changed'].flatMap((kind) => {
      const names = changes?.[kind as 'added'] ?? []
      return names.length > 0 ? [`${kind} ${names.join(', ')}`] : []
    })
    // An environment snapshot refreshed with the same values changes nothing worth a line.
    if (summary.length > 0) log.info(`config ${file} reloaded: ${summary.join('; ')}`)
    else log.debug(`config ${file} re-read: no server changed`)
    this.options.emit('config.reloaded', { file, changes })
    this.#loaded(config, cause)
  }

  #problemFrom(error: unknown): ConfigProblem {
    const failure = asMcpxError(error, 'CONFIG')
    const file = typeof failure.data?.file === 'string' ? failure.data.file : (this.options.watched()[0] ?? 'config')
    // The message already names the file ("config FILE: …"); keep only the reason.
    const message = failure.message.startsWith(`config ${file}: `) ? failure.message.slice(`config ${file}: `.length) : failure.message
    return { file, message, servingSince: this.#loadedAt?.toISOString() ?? null }
  }

  #currentFingerprint(): string {
    return this.options
      .watched()
      .map((path) => `${path}=${fileStamp(path)}`)
      .join('\n')
  }

  /** Follow the watched files until the returned function is called. */
  watch(): () => void {
    let timer: ReturnType<typeof setTimeout> | undefined
    const soon = () => {
      clearTimeout(timer)
      timer = setTimeout(() => void this.check(), this.options.debounceMs)
    }
    const watchers = new Map<string, FSWatcher>()
    const follow = () => {
      // Watch each watched file's directory (editors replace files by rename, which ends a file watch).
      for (const path of this.options.watched()) {
        const dir = dirname(path)
        if (watchers.has(dir) || !existsSync(dir)) continue
        try {
          const names = () => new Set(this.options.watched().map((p) => basename(p)))
          watchers.set(
            dir,
            watch(dir, (_event, name) => (name === null || names().has(name)) && soon()),
          )
        } catch (error) {
          log.debug(`cannot watch ${dir}: ${(error as Error).message}`)
        }
      }
    }
    follow()
    const poll = setInterval(() => {
      follow()
      void this.check()
    }, this.options.pollMs)
    poll.unref?.()
    return () => {
      clearTimeout(timer)
      clearInterval(poll)
      for (const watcher of watchers.values()) watcher.close()
    }
  }
}

function fileStamp(path: string): string {
  try {
    const stat = statSync(path)
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}`
  } catch {
    return 'absent'
  }
}
