/** Paths of the client engine's peer fixtures and a helper that runs an HTTP one. */
import { join } from 'node:path'
import { REPO_ROOT } from '../../../harness.ts'

const PEERS = join(REPO_ROOT, 'test/lib/client/peers')
export const LEGACY = join(PEERS, 'legacy-everything-fixture.ts')
export const MODERN = join(PEERS, 'modern-everything-fixture.ts')

/** Spawn an HTTP fixture and read the `{"url"}` line it prints once listening. */
export async function serveFixture(script: string, mode: string) {
  const proc = Bun.spawn([process.execPath, script, mode], { stdout: 'pipe', stderr: 'ignore', stdin: 'ignore' })
  const reader = proc.stdout.getReader()
  let text = ''
  while (!text.includes('\n')) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`${script} ${mode} exited before announcing its URL`)
    text += new TextDecoder().decode(value)
  }
  reader.releaseLock()
  const { url } = JSON.parse(text.split('\n')[0]!) as { url: string }
  return {
    url,
    async [Symbol.asyncDispose]() {
      proc.kill()
      await proc.exited
    },
  }
}

