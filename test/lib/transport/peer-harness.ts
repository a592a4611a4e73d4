/**
 * Helpers for transport tests: a recording set of handlers whose waits resolve on events (never on
 * time), raw JSON-RPC builders, and a spawner for HTTP fixtures that announce their URL.
 */
import { isAbsolute, join } from 'node:path'
import type { McpxError } from '../../../lib/errors/index.ts'
import type { Transport, TransportHandlers } from '../../../lib/transport/index.ts'
import type { JsonRpcMessage, JsonRpcRequest } from '../../../lib/wire/index.ts'
import { REPO_ROOT } from '../../harness.ts'

export const PEERS = join(REPO_ROOT, 'test/fixtures/peers')

export interface Recorder {
  handlers: TransportHandlers
  messages: JsonRpcMessage[]
  errors: McpxError[]
  /** Resolves with the close reason (undefined for an asked-for close). */
  closed: Promise<McpxError | undefined>
  closeCount: () => number
  /** The first message (already received or future) that matches. */
  next(match: (m: JsonRpcMessage) => boolean): Promise<JsonRpcMessage>
  response(id: string | number): Promise<JsonRpcMessage>
  nextError(): Promise<McpxError>
}

export function record(): Recorder {
  const messages: JsonRpcMessage[] = []
  const errors: McpxError[] = []
  const waiters: { match: (m: JsonRpcMessage) => boolean; resolve: (m: JsonRpcMessage) => void }[] = []
  const errorWaiters: ((e: McpxError) => void)[] = []
  let closes = 0
  let resolveClosed!: (reason: McpxError | undefined) => void
  const closed = new Promise<McpxError | undefined>((resolve) => (resolveClosed = resolve))
  const rec: Recorder = {
    messages,
    errors,
    closed,
    closeCount: () => closes,
    handlers: {
      onMessage(message) {
        messages.push(message)
        for (const waiter of [...waiters]) {
          if (waiter.match(message)) {
            waiters.splice(waiters.indexOf(waiter), 1)
            waiter.resolve(message)
          }
        }
      },
      onClose(reason) {
        closes++
        resolveClosed(reason)
      },
      onError(error) {
        errors.push(error)
        errorWaiters.shift()?.(error)
      },
    },
    next(match) {
      const found = messages.find(match)
      if (found) return Promise.resolve(found)
      return new Promise((resolve) => waiters.push({ match, resolve }))
    },
    response: (id) => rec.next((m) => 'id' in m && m.id === id && !('method' in m)),
    nextError() {
      const seen = errors.length
      return new Promise((resolve) => {
        if (errors.length > seen) resolve(errors[seen]!)
        else errorWaiters.push(resolve)
      })
    },
  }
  return rec
}

export function initialize(id: string | number = 1, protocolVersion = '2025-11-25'): JsonRpcRequest {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'mcpx-test', version: '0' } },
  }
}
export const initialized: JsonRpcMessage = { jsonrpc: '2.0', method: 'notifications/initialized' }
export function callTool(id: string | number, name: string, args: Record<string, unknown> = {}): JsonRpcRequest {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }
}
export function listTools(id: string | number): JsonRpcRequest {
  return { jsonrpc: '2.0', id, method: 'tools/list' }
}

/** The `result` member of a response message, typed by the caller. */
export function resultOf<T>(message: JsonRpcMessage): T {
  return (message as unknown as { result: T }).result
}

/** Text of the first content block of a tools/call result message. */
export function toolText(message: JsonRpcMessage): string {
  return resultOf<{ content: { text: string }[] }>(message).content[0]!.text
}

/** Start a transport with a recorder; `await using` closes it. */
export async function open<T extends Transport>(
  transport: T,
): Promise<{ transport: T; rec: Recorder; [Symbol.asyncDispose](): Promise<void> }> {
  const rec = record()
  await transport.start(rec.handlers)
  return { transport, rec, [Symbol.asyncDispose]: () => transport.close() }
}

/**
 * Spawn an HTTP fixture (a file name under PEERS, or a path) that prints `{"url": ...}` as its first
 * stdout line; its stderr is watched.
 */
export async function startHttpPeer(
  fixture: string,
  mode: string,
  /** Added to the fixture's environment. */
  env: Record<string, string> = {},
): Promise<{ url: string; pid: number; stderrLine(match: RegExp): Promise<string>; [Symbol.asyncDispose](): Promise<void> }> {
  const proc = Bun.spawn([process.execPath, isAbsolute(fixture) ? fixture : join(PEERS, fixture), mode], {
    env: { ...process.env, ...env },
    stdout: 'pipe',
    stderr: 'pipe',
    stdin: 'ignore',
  })
  const reader = proc.stdout.getReader()
  let text = ''
  while (!text.includes('\n')) {
    const next = await reader.read()
    if (next.done) throw new Error(`${fixture} ${mode} exited before announcing its URL`)
    text += new TextDecoder().decode(next.value)
  }
  reader.releaseLock()
  const { url } = JSON.parse(text.slice(0, text.indexOf('\n'))) as { url: string }
  const lines: string[] = []
  const waiters: { match: RegExp; resolve: (line: string) => void }[] = []
  void (async () => {
    const decoder = new TextDecoder()
    let partial = ''
    const err = proc.stderr.getReader()
    for (let next = await err.read(); !next.done; next = await err.read()) {
      partial += decoder.decode(next.value, { stream: true })
      const parts = partial.split('\n')
      partial = parts.pop()!
      for (const line of parts) {
        lines.push(line)
        for (const waiter of [...waiters]) if (waiter.match.test(line)) waiters.splice(waiters.indexOf(waiter), 1), waiter.resolve(line)
      }
    }
  })()
  return {
    url,
    pid: proc.pid,
    stderrLine(match) {
      const found = lines.find((line) => match.test(line))
      return found !== undefined ? Promise.resolve(found) : new Promise((resolve) => waiters.push({ match, resolve }))
    },
    async [Symbol.asyncDispose]() {
      proc.kill()
      await proc.exited
    },
  }
}
