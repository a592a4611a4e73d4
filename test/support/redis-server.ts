/**
 * A real redis-server for the replica tests: on a given loopback port, nothing persisted, and answering PING
 * before the caller goes on.
 */
import { RedisClient } from 'bun'

export async function startRedisServer(binary: string, port: number): Promise<ReturnType<typeof Bun.spawn>> {
  const redis = Bun.spawn([binary, '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdout: 'ignore',
    stderr: 'inherit',
  })
  const probe = new RedisClient(`redis://127.0.0.1:${port}`)
  for (let ok = false; !ok; )
    ok = await probe.send('PING', []).then(
      () => true,
      async () => (await Bun.sleep(50), false),
    )
  probe.close()
  return redis
}
