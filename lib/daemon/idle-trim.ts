/**
 * Giving memory back while the daemon is quiet. JavaScriptCore collects when the heap grows, not
 * when a process stops allocating, so an idle daemon would keep the garbage of its last burst of
 * calls, and the compiled code of every function it ever ran, for as long as it idles. Two stages,
 * each at most once per quiet period (a request or channel traffic starts a new one):
 *   - after `gcAfterMs`: one full collection (Bun.gc(true)); nothing has to be rebuilt after it;
 *   - after `shrinkAfterMs`: Bun.shrink(), JSC's VM::shrinkFootprintWhenIdle — it drops all
 *     bytecode and JIT code, collects again and returns free malloc memory to the system. The next
 *     calls compile their code again: measured, about 1 ms more CPU per call for the first hundred
 *     calls and a few hundred µs more for the next two thousand (README "Start-up and memory").
 * After either stage, with `pageOutSliceMb`, the clean file pages go back to the kernel too
 * (page-out.ts, loaded with the first page-out), a slice at a time, stopping when activity resumes.
 * One timer, re-armed only when it fires: the request path only notes when it was last active.
 */

export interface IdleTrimOptions {
  /** Quiet time before the full collection; 0 = never. */
  readonly gcAfterMs: number
  /** Quiet time before the compiled code is dropped too; 0 = never. */
  readonly shrinkAfterMs: number
  /** performance.now() of the last activity (a request ended, channel bytes arrived). */
  lastActive(): number
  /** At the shrink stage, before its page-out: end what can start again on demand (idle sandboxes). */
  releaseIdle?(): Promise<void>
  /** After each stage, page out the clean file pages this many MiB at a time (page-out.ts); 0 = not. */
  readonly pageOutSliceMb?: number
  /** Told what a page-out did (the daemon log's debug line). */
  onPageOut?(report: string): void
  /** Told after each stage ran (the daemon log's debug line). */
  onTrim?(stage: IdleTrimStage, ms: number): void
}

export type IdleTrimStage = 'gc' | 'shrink'

interface Stage {
  readonly name: IdleTrimStage
  readonly afterMs: number
  run(): void
}

/**
 * Page out the file pages (page-out.ts, loaded now, not at start-up), `sliceMb` MiB at a time until
 * `stop()`; resolves with the line for the daemon log, failures included. 0 MiB: nothing is done.
 */
export function pageOutLater(sliceMb: number, stop: () => boolean): Promise<string> {
  if (!(sliceMb > 0)) return Promise.resolve('off')
  return import('./page-out.ts')
    .then(({ pageOutFileMappings }) => pageOutFileMappings({ sliceMb, stop }))
    .catch((error: unknown) => `failed: ${(error as Error).message}`)
}

export function startIdleTrim(options: IdleTrimOptions): { stop(): void } {
  const stages: Stage[] = [
    { name: 'gc' as const, afterMs: options.gcAfterMs, run: () => Bun.gc(true) },
    { name: 'shrink' as const, afterMs: options.shrinkAfterMs, run: () => Bun.shrink() },
  ]
    .filter((stage) => stage.afterMs > 0)
    .sort((a, b) => a.afterMs - b.afterMs)
  let timer: ReturnType<typeof setTimeout> | undefined
  if (stages.length === 0) return { stop() {} }
  const pageOut = (sliceMb: number, quietSince: number, after?: Promise<void>) =>
    void Promise.resolve(after)
      .catch(() => {})
      .then(() => pageOutLater(sliceMb, () => options.lastActive() !== quietSince))
      .then((report) => options.onPageOut?.(report))
  // The quiet period the stages ran for (its start), and how many of them ran.
  let period = Number.NaN
  let done = 0
  const check = () => {
    const last = options.lastActive()
    if (last !== period) {
      period = last
      done = 0
    }
    const quietMs = performance.now() - last
    // A later stage includes what the earlier ones do (shrink collects too): run only the last one due.
    let due: Stage | undefined
    while (done < stages.length && quietMs >= stages[done]!.afterMs) due = stages[done++]
    if (due) {
      const started = performance.now()
      due.run()
      // Processes ended first: the pages they shared with this one are its own by the page-out.
      const released = due.name === 'shrink' ? options.releaseIdle?.() : undefined
      if (options.pageOutSliceMb) pageOut(options.pageOutSliceMb, last, released)
      options.onTrim?.(due.name, performance.now() - started)
    }
    // Never later than the first stage's delay: activity after a stage starts a new quiet period,
    // whose first stage is due that long after it, not when this period's next stage would have been.
    const first = stages[0]!.afterMs
    const next = done < stages.length ? Math.min(stages[done]!.afterMs - quietMs, first) : first
    timer = setTimeout(check, Math.max(1, next))
    // An idle daemon exits on its own timer (daemonIdleMs); this one must not keep it alive.
    timer.unref?.()
  }
  timer = setTimeout(check, stages[0]!.afterMs)
  timer.unref?.()
  return {
    stop() {
      if (timer) clearTimeout(timer)
    },
  }
}
