/**
 * A loopback TCP port the kernel just handed out and released: free for a process started a moment later
 * (a test's daemon, HAProxy, redis-server, the conformance fixture). One owner for the scripts and the tests.
 */
import { createServer } from 'node:net'

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}
