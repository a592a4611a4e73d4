/** Paths of the replay acceptance peers and helpers that run a process announcing a URL on stdout. */
import { join } from 'node:path'
import { REPO_ROOT, mcpxCommand } from '../../../harness.ts'

const PEERS = join(REPO_ROOT, 'test/lib/replay/peers')
export const SDK_LEGACY = join(PEERS, 'sdk-legacy-fixture.ts')
export const SDK_MODERN = join(PEERS, 'sdk-modern-fixture.ts')

export interface Announced extends AsyncDisposable {
  readonly url: string
}

/**
 * Spawn `argv` and read the URL it prints as its first stdout line (`{"url": …}` from a fixture,
 * the bare URL from `mcpx replay --serve --port`). Disposing stops it with SIGTERM.
 */
export async function spawnAnnounced(argv: readonly string[]): Promise<Announced> {
  const proc = Bun.spawn([...argv], { stdout: 'pipe', stderr: 'inherit', stdin: 'ignore' })
  const reader = proc.stdout.getReader()
  let text = ''
  while (!text.includes('\n')) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`${argv.join(' ')} exited before announcing its URL`)
    text += new TextDecoder().decode(value)
  }
  reader.releaseLock()
  const line = text.split('\n')[0]!.trim()
  const url = line.startsWith('{') ? (JSON.parse(line) as { url: string }).url : line
  return {
    url,
    async [Symbol.asyncDispose]() {
      proc.kill('SIGTERM')
      await proc.exited
    },
  }
}

/** An SDK fixture over HTTP (`--changed-add` for the variant with one tool changed). */
export function sdkServer(script: string, ...flags: string[]): Promise<Announced> {
  return spawnAnnounced([process.execPath, script, 'http', ...flags])
}

/** `mcpx replay FILE --serve --port 0`: the recording as a Streamable HTTP server. */
export function replayServer(file: string): Promise<Announced> {
  return spawnAnnounced([...mcpxCommand(), 'replay', file, '--serve', '--port', '0'])
}
