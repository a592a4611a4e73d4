/** lib/daemon/lock.ts and token.ts: the single-daemon lock and the bearer token file. */
import { describe, expect, test } from 'bun:test'
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { acquireLock, ensureToken, readToken } from '../../../lib/daemon/index.ts'
import { McpxError } from '../../../lib/errors/index.ts'
import { tempDir } from '../../harness.ts'

async function deadPid(): Promise<number> {
  await using proc = Bun.spawn(['true'])
  await proc.exited
  return proc.pid
}

describe('daemon lock', () => {
  test('a live owner keeps the lock; release removes it', () => {
    using dir = tempDir('mcpx-lock')
    const path = join(dir.path, 'daemon.lock')
    const lock = acquireLock(path)
    expect(readFileSync(path, 'utf8').split(' ')[0]).toBe(String(process.pid))
    expect(() => acquireLock(path, process.pid + 1)).toThrow(McpxError)
    expect(() => acquireLock(path, process.pid + 1)).toThrow(`already running (pid ${process.pid}`)
    lock.release()
    expect(existsSync(path)).toBe(false)
  })

  test('a lock whose pid is gone is stale and taken over', async () => {
    using dir = tempDir('mcpx-lock')
    const path = join(dir.path, 'daemon.lock')
    writeFileSync(path, `${await deadPid()}\n`)
    const lock = acquireLock(path)
    expect(readFileSync(path, 'utf8').split(' ')[0]).toBe(String(process.pid))
    lock.release()
  })

  test('a lock held by a zombie (killed, never reaped) is stale and taken over', async () => {
    using dir = tempDir('mcpx-lock')
    const path = join(dir.path, 'daemon.lock')
    // The backgrounded sleep outlives the shell's exec into `sleep 30`, which never reaps it: a zombie.
    await using parent = Bun.spawn(['sh', '-c', 'sleep 0.5 & echo $!; exec sleep 30'], { stdout: 'pipe' })
    const zombie = Number((await readLine(parent.stdout)).trim())
    await waitFor(() => procState(zombie) === 'Z')
    writeFileSync(path, `${zombie}\n`)
    const lock = acquireLock(path)
    expect(readFileSync(path, 'utf8').split(' ')[0]).toBe(String(process.pid))
    lock.release()
    parent.kill()
  })

  test('a lock whose pid now belongs to another program (other start time) is stale', () => {
    using dir = tempDir('mcpx-lock')
    const path = join(dir.path, 'daemon.lock')
    // This test process is alive, but it is not the process that wrote start time 1.
    writeFileSync(path, `${process.pid} 1\n`)
    const lock = acquireLock(path, process.pid + 1)
    expect(readFileSync(path, 'utf8').split(' ')[0]).toBe(String(process.pid + 1))
    lock.release()
  })
})

async function readLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader()
  let text = ''
  while (!text.includes('\n')) {
    const { value, done } = await reader.read()
    if (done) break
    text += new TextDecoder().decode(value)
  }
  reader.releaseLock()
  return text
}

function procState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]
  } catch {
    return undefined
  }
}

async function waitFor(check: () => boolean): Promise<void> {
  while (!check()) await Bun.sleep(10)
}

describe('daemon token', () => {
  test('is created 0600 and reused', () => {
    using dir = tempDir('mcpx-token')
    const path = join(dir.path, 'token')
    const token = ensureToken(path)
    expect(token).toMatch(/^[0-9a-f]{64}$/)
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(ensureToken(path)).toBe(token)
  })

  test('a token file others can read is not trusted and is replaced', () => {
    using dir = tempDir('mcpx-token')
    const path = join(dir.path, 'token')
    const token = ensureToken(path)
    chmodSync(path, 0o644)
    expect(readToken(path)).toBeNull()
    const replaced = ensureToken(path)
    expect(replaced).not.toBe(token)
    expect(statSync(path).mode & 0o777).toBe(0o600)
  })
})
