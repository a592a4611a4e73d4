/**
 * `npm run soak`: the reliability suite (test/reliability/) at full size — 10,000 hostile frames per
 * transport, 50 × 200 HTTP calls per era, 20 × 100 `mcpx serve` calls, a 1,000-connection burst,
 * 20,000 soak calls — against a freshly built binary. `npm test` runs the same files at about a
 * fifth of these counts. Extra args go to `bun test` (e.g. a file name).
 */
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname.replace(/\/$/, '')
const bun = process.execPath
const build = Bun.spawnSync([bun, 'scripts/build.ts'], { cwd: root, stdout: 'inherit', stderr: 'inherit' })
if (build.exitCode !== 0) process.exit(build.exitCode ?? 1)
const files = process.argv.slice(2)
const run = Bun.spawn([bun, 'test', '--timeout', '1800000', ...(files.length > 0 ? files : ['test/reliability'])], {
  cwd: root,
  env: { ...process.env, MCPX_RELIABILITY: 'full', MCPX_EXE: join(root, 'dist/mcpx') },
  stdout: 'inherit',
  stderr: 'inherit',
})
process.exit(await run.exited)
