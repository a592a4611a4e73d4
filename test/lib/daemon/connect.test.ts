/**
 * "Busy" is not "not running": a daemon whose listen backlog is full refuses connects (Bun reports
 * the kernel's EAGAIN as ECONNREFUSED), and a client must retry the connect with backoff instead of
 * concluding the daemon is gone. The stand-in daemon is a real process that holds the lock and
 * blocks its loop while a burst of connects arrives.
 */
import { describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ensurePrivateDir, homeLayout } from '../../../lib/config/index.ts'
import { connectFailure, retryWhileBusy } from '../../../lib/daemon/index.ts'
import { REPO_ROOT, tempDir } from '../../harness.ts'

const BURST = 1_200
const STALL_MS = '1500'
const RETRY = { deadlineMs: 20_000, backoffMs: 5, backoffMaxMs: 200 }

async function stalledDaemon(home: string) {
  const layout = homeLayout(home, join(home, 'config.json'))
  ensurePrivateDir(layout.runDir)
  const child = Bun.spawn(
    [process.execPath, join(REPO_ROOT, 'test/fixtures/peers/stalling-listener.ts'), layout.lock, layout.channelSocket, STALL_MS],
    { stdin: 'pipe', stdout: 'pipe', stderr: 'inherit' },
  )
  const reader = child.stdout.getReader()
  await reader.read()
  return { layout, stop: async () => (child.stdin.end(), await child.exited) }
}

const connectOnce = (socket: string) => Bun.connect({ unix: socket, socket: { data() {} } }).then((s) => s.end())

describe('connecting to a busy daemon', () => {
  test('a burst past the backlog: refused connects are classified busy, and retried connects all get through', async () => {
    using dir = tempDir('mcpx-busy')
    const control = await stalledDaemon(join(dir.path, 'a'))
    const failures: unknown[] = []
    await Promise.all(
      Array.from({ length: BURST }, () => connectOnce(control.layout.channelSocket).catch((error) => void failures.push(error))),
    )
    // The burst did overflow the backlog (else this test could not fail) and each refusal reads as busy…
    expect(failures.length).toBeGreaterThan(0)
    expect(new Set(failures.map((error) => connectFailure(error, control.layout, control.layout.channelSocket)))).toEqual(new Set(['busy']))
    await control.stop()

    const busy = await stalledDaemon(join(dir.path, 'b'))
    const kindsWhileBusy = new Set<string | undefined>()
    let connected = 0
    await Promise.all(
      Array.from({ length: BURST }, () =>
        retryWhileBusy(
          () =>
            connectOnce(busy.layout.channelSocket).catch((error) => {
              kindsWhileBusy.add(connectFailure(error, busy.layout, busy.layout.channelSocket))
              throw error
            }),
          busy.layout,
          busy.layout.channelSocket,
          RETRY,
        ).then(() => void connected++),
      ),
    )
    await busy.stop()
    // …so with retries every connect got through, once the daemon took its clients again.
    expect(connected).toBe(BURST)
    expect([...kindsWhileBusy]).toEqual(['busy'])
  }, 60_000)

  test('no socket, or a socket whose lock owner is gone, is "not running" and is not retried', async () => {
    using dir = tempDir('mcpx-absent')
    const layout = homeLayout(dir.path, join(dir.path, 'config.json'))
    ensurePrivateDir(layout.runDir)
    const missing = await connectOnce(layout.channelSocket).catch((error) => error)
    expect(connectFailure(missing, layout, layout.channelSocket)).toBe('absent')
    // A socket file left by a dead daemon, and a lock naming a pid that does not run.
    const stale = Bun.listen({ unix: layout.channelSocket, socket: { data() {} } })
    stale.stop(true)
    writeFileSync(layout.channelSocket, '')
    writeFileSync(layout.lock, '2147483646\n')
    let attempts = 0
    const refused = await retryWhileBusy(() => (attempts++, connectOnce(layout.channelSocket)), layout, layout.channelSocket, RETRY).catch(
      (error) => error,
    )
    expect(connectFailure(refused, layout, layout.channelSocket)).toBe('absent')
    expect(attempts).toBe(1)
  })
})
