/** lib/transport/stdio-client.ts: spawned stdio peers (SDK servers and hostile fixtures). */
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { McpxError } from '../../../lib/errors/index.ts'
import { createStdioTransport } from '../../../lib/transport/index.ts'
import { testSettings } from '../../harness.ts'
import { callTool, initialize, initialized, listTools, open, PEERS, resultOf, toolText } from './peer-harness.ts'

const settings = testSettings({ shutdownGraceMs: 300 })
const bun = process.execPath
const legacy = (mode = 'stdio') => ({ command: bun, args: [join(PEERS, 'sdk-legacy-fixture.ts'), mode] })
const hostile = (mode: string, arg?: string) => ({
  command: bun,
  args: [join(PEERS, 'hostile-stdio-fixture.ts'), mode, ...(arg ? [arg] : [])],
})

/** Running (a zombie awaiting its reaper counts as gone). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2))
  } catch {
    return false
  }
}

describe('stdio client transport', () => {
  test('talks to the SDK 1.x server: initialize, tools/list, tools/call with string and numeric ids', async () => {
    await using peer = await open(createStdioTransport(legacy(), settings))
    await peer.transport.send(initialize('init-1'))
    const init = resultOf<{ serverInfo: { name: string } }>(await peer.rec.response('init-1'))
    expect(init.serverInfo.name).toBe('sdk-legacy-fixture')
    await peer.transport.send(initialized)
    await peer.transport.send(listTools(2))
    const list = resultOf<{ tools: { name: string }[] }>(await peer.rec.response(2))
    expect(list.tools.map((t) => t.name)).toContain('echo')
    await peer.transport.send(callTool('c-3', 'echo', { text: 'héllo 世界' }))
    expect(toolText(await peer.rec.response('c-3'))).toBe('héllo 世界')
  })

  test('talks to the SDK 2.x server over stdio in the modern era: server/discover then a stateless tools/call', async () => {
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }
    await using peer = await open(createStdioTransport({ command: bun, args: [join(PEERS, 'sdk-modern-fixture.ts'), 'stdio'] }, settings))
    await peer.transport.send({ jsonrpc: '2.0', id: 'd', method: 'server/discover', params: { _meta: meta } })
    expect(resultOf<{ supportedVersions: string[] }>(await peer.rec.response('d')).supportedVersions).toContain('2026-07-28')
    await peer.transport.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'modern' }, _meta: meta },
    })
    expect(toolText(await peer.rec.response(1))).toBe('modern')
  })

  test('notifications sent before a result arrive in order', async () => {
    await using peer = await open(createStdioTransport(legacy(), settings))
    await peer.transport.send(initialize(1))
    await peer.rec.response(1)
    await peer.transport.send(initialized)
    await peer.transport.send(callTool(2, 'notify', { count: 3 }))
    await peer.rec.response(2)
    const methods = peer.rec.messages.slice(1).map((m) => ('method' in m ? m.method : `response ${m.id}`))
    expect(methods).toEqual(['notifications/message', 'notifications/message', 'notifications/message', 'response 2'])
  })

  test('close() ends cleanly: onClose once with no reason, the process is gone, send afterwards fails', async () => {
    const peer = await open(createStdioTransport(legacy(), settings))
    const pid = peer.transport.pid!
    await peer.transport.close()
    expect(await peer.rec.closed).toBeUndefined()
    await peer.transport.close()
    expect(peer.rec.closeCount()).toBe(1)
    expect(alive(pid)).toBe(false)
    await expect(peer.transport.send(listTools(1))).rejects.toMatchObject({ code: 'CONNECT' })
  })

  test('a server that dies mid-call closes the transport with CONNECT, exit code and stderr tail', async () => {
    await using peer = await open(createStdioTransport(legacy(), settings))
    await peer.transport.send(initialize(1))
    await peer.rec.response(1)
    await peer.transport.send(callTool(2, 'exit', { code: 3 }))
    const reason = await peer.rec.closed
    expect(reason).toBeInstanceOf(McpxError)
    expect(reason!.code).toBe('CONNECT')
    expect(reason!.message).toMatch(/exited with code 3: .*fixture exiting with 3 on request/)
    expect(reason!.data).toMatchObject({ exitCode: 3, signal: null })
    expect(peer.rec.closeCount()).toBe(1)
  })

  test('hostile: dies on the first request → CONNECT naming code 7 and quoting stderr', async () => {
    await using peer = await open(createStdioTransport(hostile('die'), settings))
    await peer.transport.send(listTools(1))
    const reason = await peer.rec.closed
    expect(reason?.code).toBe('CONNECT')
    expect(reason?.message).toContain('exited with code 7')
    expect(reason?.message).toContain('fatal: the fixture died on purpose')
  })

  test('a command that does not exist fails start() with a clear CONNECT error', async () => {
    const transport = createStdioTransport({ command: '/nonexistent/mcp-server-xyz' }, settings)
    const error = await transport.start({ onMessage() {}, onClose() {} }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(McpxError)
    expect((error as McpxError).code).toBe('CONNECT')
    expect((error as McpxError).message).toContain('/nonexistent/mcp-server-xyz')
  })

  test('garbage lines are reported as PROTOCOL errors and the answer after them still arrives', async () => {
    await using peer = await open(createStdioTransport(hostile('garbage'), settings))
    await peer.transport.send(listTools(1))
    expect(await peer.rec.response(1)).toEqual({ jsonrpc: '2.0', id: 1, result: { method: 'tools/list' } })
    expect(peer.rec.errors.map((e) => e.code)).toEqual(['PROTOCOL', 'PROTOCOL', 'PROTOCOL'])
    expect(peer.rec.errors[0]!.data).toMatchObject({ frame: 'this is not json' })
    expect(peer.rec.errors[1]!.data).toMatchObject({ id: 5 })
  })

  test('a 2025-03-26 batch line is split into its messages', async () => {
    await using peer = await open(createStdioTransport(hostile('batch'), settings))
    await peer.transport.send(listTools(9))
    expect(await peer.rec.response(9)).toEqual({ jsonrpc: '2.0', id: 9, result: { batched: true } })
    expect(peer.rec.messages[0]).toMatchObject({ method: 'notifications/message' })
  })

  test('a 1 GiB line is skipped with a clear error while memory stays bounded; the request it answered gets an error naming the limit', async () => {
    const before = process.memoryUsage().rss
    await using peer = await open(createStdioTransport(hostile('huge', String(1 << 30)), testSettings({ maxFrameBytes: 1 << 20 })))
    await peer.transport.send(listTools(1))
    expect(await peer.rec.response(1)).toEqual({ jsonrpc: '2.0', id: 1, result: { method: 'tools/list', afterHuge: true } })
    const [error] = peer.rec.errors
    expect(error?.code).toBe('PROTOCOL')
    expect(error?.message).toContain(
      `stdout line of ${(1 << 30) + 50} bytes exceeds maxFrameBytes (${1 << 20}; setting maxFrameBytes, MCPX_MAX_FRAME_BYTES); answered request "huge" with an error`,
    )
    expect(error?.data).toMatchObject({ bytes: (1 << 30) + 50, maxFrameBytes: 1 << 20, setting: 'maxFrameBytes' })
    expect(String(error?.data?.frame)).toStartWith('{"jsonrpc":"2.0","id":"huge"')
    // Its id was readable from the line's start: the request it answered is failed at once.
    const answer = (await peer.rec.response('huge')) as { error?: { code: number; message: string } }
    expect(answer.error?.code).toBe(-32603)
    expect(answer.error?.message).toContain('exceeds maxFrameBytes')
    // Holding the line would cost ≥ 1 GiB; the framer keeps at most one frame (1 MiB) plus chunks.
    expect(process.memoryUsage().rss - before).toBeLessThan(256 * 1024 * 1024)
  })

  test('a server that never answers is closed cleanly by close()', async () => {
    const peer = await open(createStdioTransport(hostile('hang'), settings))
    await peer.transport.send(listTools(1))
    await peer.transport.close()
    expect(await peer.rec.closed).toBeUndefined()
    expect(peer.rec.messages).toEqual([])
  })

  test('close() leaves no orphan: a grandchild in the group is killed too', async () => {
    const peer = await open(createStdioTransport(hostile('grandchild'), settings))
    await peer.transport.send(listTools(1))
    const result = resultOf<{ grandchildPid: number }>(await peer.rec.response(1))
    expect(alive(result.grandchildPid)).toBe(true)
    await peer.transport.close()
    expect(alive(result.grandchildPid)).toBe(false)
  })

  test('a server ignoring stdin EOF and SIGTERM is SIGKILLed by close()', async () => {
    const peer = await open(createStdioTransport(hostile('stubborn'), settings))
    await peer.transport.send(listTools(1))
    await peer.rec.response(1)
    const pid = peer.transport.pid!
    await peer.transport.close()
    expect(await peer.rec.closed).toBeUndefined()
    expect(alive(pid)).toBe(false)
    expect(peer.transport.stderrTail()).toContain('ignoring SIGTERM')
  })

  test('a server that never reads stdin: a blocked send is cancelled by its signal and close() still ends the group', async () => {
    const peer = await open(createStdioTransport(hostile('deaf'), settings))
    const pid = peer.transport.pid!
    const controller = new AbortController()
    // 8 MiB cannot fit in a pipe (at most 1 MiB on Linux) that nobody reads: this send blocks.
    const blocked = peer.transport.send(callTool(1, 'echo', { text: 'x'.repeat(8 << 20) }), { signal: controller.signal })
    controller.abort()
    await expect(blocked).rejects.toMatchObject({ code: 'CANCELLED' })
    await peer.transport.close()
    expect(await peer.rec.closed).toBeUndefined()
    expect(alive(pid)).toBe(false)
  })

  test('a chatty stderr never stalls the server and only its tail is kept', async () => {
    const peer = await open(createStdioTransport(hostile('chatty', String(4 << 20)), testSettings({ stderrBufferBytes: 1024 })))
    for (const id of [1, 2]) {
      await peer.transport.send(listTools(id))
      await peer.rec.response(id)
    }
    await peer.transport.close()
    const tail = peer.transport.stderrTail()
    expect(tail.length).toBeLessThanOrEqual(1024)
    expect(tail).toEndWith('tail\n')
  })

  test('env is the given parent environment plus the configured one; cwd is honoured', async () => {
    const script =
      'process.stdout.write(JSON.stringify({jsonrpc:"2.0",method:"env",params:{x:process.env.MCPX_TEST_X,path:process.env.PATH ?? null,gone:"MCPX_TEST_GONE" in process.env,cwd:process.cwd()}})+"\\n")'
    const parentEnv = { PATH: '/parent/bin', MCPX_TEST_X: 'parent', MCPX_TEST_GONE: undefined }
    await using peer = await open(
      createStdioTransport({ command: bun, args: ['-e', script], cwd: '/tmp', env: { MCPX_TEST_X: 'yes' }, parentEnv }, settings),
    )
    const message = await peer.rec.next((m) => 'method' in m && m.method === 'env')
    expect(message).toEqual({ jsonrpc: '2.0', method: 'env', params: { x: 'yes', path: '/parent/bin', gone: false, cwd: '/tmp' } })
  })

  test("without a parent environment the child sees only its configured env, not mcpx's", async () => {
    const script =
      'process.stdout.write(JSON.stringify({jsonrpc:"2.0",method:"env",params:{x:process.env.MCPX_TEST_X,path:process.env.PATH ?? null}})+"\\n")'
    await using peer = await open(createStdioTransport({ command: bun, args: ['-e', script], env: { MCPX_TEST_X: 'yes' } }, settings))
    const message = await peer.rec.next((m) => 'method' in m && m.method === 'env')
    expect(message).toEqual({ jsonrpc: '2.0', method: 'env', params: { x: 'yes', path: null } })
  })
})
