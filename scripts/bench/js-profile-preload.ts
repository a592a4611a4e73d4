/**
 * Preloaded (BUN_OPTIONS=--preload=…) into a process js-profile.ts measures: the first SIGUSR2
 * starts JavaScriptCore's sampling profiler (bun:jsc `profile`, every $MCPX_BENCH_PROFILE_INTERVAL_US
 * µs), the second stops it and writes the samples to `$MCPX_BENCH_PROFILE_DIR/profile-<pid>.json`.
 * A signal, not a timer or a request, so nothing of the preload runs on the path being measured.
 */
import { profile } from 'bun:jsc'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

const directory = process.env.MCPX_BENCH_PROFILE_DIR
const interval = Number(process.env.MCPX_BENCH_PROFILE_INTERVAL_US)
if (directory !== undefined && Number.isFinite(interval)) {
  let stop: (() => void) | undefined
  process.on('SIGUSR2', () => {
    if (stop !== undefined) return stop()
    const stopped = new Promise<void>((resolve) => {
      stop = resolve
    })
    void profile(() => stopped, interval).then((sampled) =>
      writeFileSync(join(directory, `profile-${process.pid}.json`), JSON.stringify(sampled.stackTraces)),
    )
  })
}
