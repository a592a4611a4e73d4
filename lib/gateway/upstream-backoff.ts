/**
 * When an upstream is tried again: after each consecutive failure the waits double (the hold on
 * calls, connectFailureHoldMs; the background restart, restartBackoffMs), up to restartBackoffMaxMs.
 * One pending background restart at a time, whose moment `mcpx servers` shows.
 */
import type { Settings } from '../settings/index.ts'

type BackoffSettings = Pick<Settings, 'connectFailureHoldMs' | 'restartBackoffMs' | 'restartBackoffMaxMs'>

export class UpstreamBackoff {
  /** Consecutive failures since the last connection. */
  failures = 0
  /** Until when calls get the last error without a new try (Date.now() time). */
  holdUntil = 0
  #timer?: ReturnType<typeof setTimeout>
  #at?: number

  constructor(private readonly settings: BackoffSettings) {}

  /** Wait `baseMs` doubled per failure before the last, up to restartBackoffMaxMs. */
  waitMs(baseMs: number): number {
    return Math.min(this.settings.restartBackoffMaxMs, baseMs * 2 ** Math.max(0, this.failures - 1))
  }

  /** One more failure: calls are held off for a while. */
  failed(): void {
    this.failures += 1
    this.holdUntil = Date.now() + this.waitMs(this.settings.connectFailureHoldMs)
  }

  /** Run `restart` in the background after the current wait (replacing one pending). */
  restartLater(restart: () => void): void {
    this.cancel()
    const waitMs = this.waitMs(this.settings.restartBackoffMs)
    this.#at = Date.now() + waitMs
    this.#timer = setTimeout(() => {
      this.#at = undefined
      restart()
    }, waitMs)
    this.#timer.unref?.()
  }

  /** ms until the pending background restart, if one is. */
  get restartInMs(): number | undefined {
    return this.#at === undefined ? undefined : Math.max(0, Math.round(this.#at - Date.now()))
  }

  /** Connected: no failures, nothing pending. */
  reset(): void {
    this.failures = 0
    this.cancel()
  }

  cancel(): void {
    clearTimeout(this.#timer)
    this.#at = undefined
  }
}
