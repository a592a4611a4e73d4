/**
 * The stdio server under bad input and at its end (in-process, through serveStdio's streams):
 * a failed initialize leaves the session as it was; invalid UTF-8 is refused with -32700 (as over
 * HTTP) and the tool never runs; a malformed notification gets no reply; an error that names no
 * request carries no `id` member from 2025-11-25 on and is not sent at all under older revisions;
 * on stdin EOF what was read is answered within shutdownGraceMs and what still runs then is
 * failed with an error — every request gets exactly one answer.
 */
import { describe, expect, test } from 'bun:test'
import { Engine, defineServer, serveStdio } from '../../../lib/server/index.ts'
import { testSettings } from '../../harness.ts'
import { call, init } from './messages.ts'

const settings = testSettings({ shutdownGraceMs: 300 })
let ran = 0
const server = defineServer({
  info: { name: 'stdio-reliability', version: '1.0.0' },
  tools: [
    {
      name: 'echo',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      handler: async (args) => (ran++, { content: [{ type: 'text', text: String(args.text) }] }),
    },
    {
      name: 'quick',
      inputSchema: { type: 'object' },
      handler: async () => (await Bun.sleep(50), { content: [{ type: 'text', text: 'quick done' }] }),
    },
    // Ignores its signal: only the engine's shutdown answer can end it.
    { name: 'stuck', inputSchema: { type: 'object' }, handler: () => new Promise(() => {}) },
  ],
})

function open() {
  let feed!: ReadableStreamDefaultController<Uint8Array>
  const input = new ReadableStream<Uint8Array>({ start: (c) => void (feed = c) })
  const lines: Record<string, unknown>[] = []
  const waiting: (() => void)[] = []
  const written: string[] = []
  const output = {
    write(text: string) {
      written.push(text)
      for (const line of text.split('\n')) if (line.trim()) lines.push(JSON.parse(line))
      for (const wake of waiting.splice(0)) wake()
    },
  }
  const stdio = serveStdio(new Engine(server, settings), settings, { input, output })
  const send = (value: unknown) => feed.enqueue(new TextEncoder().encode(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`))
  const sendBytes = (bytes: number[]) => feed.enqueue(Uint8Array.from([...bytes, 0x0a]))
  const answer = async (id: unknown) => {
    for (;;) {
      const found = lines.find((m) => m.id === id)
      if (found) return found
      await new Promise<void>((resolve) => waiting.push(resolve))
    }
  }
  /** Let queued input be read and answered (a few turns of the loop). */
  const settle = () => Bun.sleep(50)
  return {
    stdio,
    lines,
    send,
    sendBytes,
    answer,
    settle,
    end: () => feed.close(),
    get text() {
      return written.join('')
    },
  }
}

describe('stdio server reliability', () => {
  test('a failed initialize (protocolVersion 42) leaves the session exactly as it was', async () => {
    const peer = open()
    peer.send(init(1, '2025-06-18'))
    expect((await peer.answer(1)).result).toMatchObject({ protocolVersion: '2025-06-18' })
    peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
    peer.send(init(2, 42))
    expect((await peer.answer(2)).error).toMatchObject({ code: -32602 })
    peer.send(call(3, 'echo', { text: 'still 2025-06-18' }))
    const after = await peer.answer(3)
    expect(after.result).toMatchObject({ content: [{ text: 'still 2025-06-18' }] })
    // 2025-06-18 results carry no resultType: the negotiated revision still shapes them.
    expect(after.result).not.toHaveProperty('resultType')
    peer.end()
    await peer.stdio.closed
  })

  test('invalid UTF-8 is refused with -32700 (no id member at 2025-11-25) and the tool never runs; a malformed notification gets no reply', async () => {
    const peer = open()
    peer.send(init(1, '2025-11-25'))
    await peer.answer(1)
    const before = ran
    peer.sendBytes([
      ...new TextEncoder().encode('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"'),
      0xff,
      0xfe,
      ...new TextEncoder().encode('"}}}'),
    ])
    peer.send({ jsonrpc: '2.0', method: 'notifications/initialized', params: 5 })
    peer.send(call(6, 'echo', { text: 'next' }))
    await peer.answer(6)
    await peer.settle()
    expect(ran).toBe(before + 1)
    const unnamed = peer.lines.filter((m) => m.id === undefined && 'error' in m)
    expect(unnamed).toEqual([{ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: line is not valid UTF-8' } }])
    expect(peer.lines.filter((m) => !('id' in m) && !('method' in m))).toHaveLength(1)
    expect(peer.lines).toHaveLength(3)
    peer.end()
    await peer.stdio.closed
  })

  test('under a revision whose schema requires an id (2025-06-18), an error that names no request is logged, not sent', async () => {
    const peer = open()
    peer.send(init(1, '2025-06-18'))
    await peer.answer(1)
    peer.send('this is not json')
    peer.send(call(2, 'echo', { text: 'after' }))
    await peer.answer(2)
    await peer.settle()
    expect(peer.lines.map((m) => m.id)).toEqual([1, 2])
    peer.end()
    await peer.stdio.closed
  })

  test('JSON nested beyond maxJsonDepth is refused with -32700 naming the setting, before parsing; the next call is served', async () => {
    const peer = open()
    peer.send(init(1, '2025-11-25'))
    await peer.answer(1)
    peer.send(
      `{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"echo","arguments":{"text":${'['.repeat(200_000)}${']'.repeat(200_000)}}}}`,
    )
    peer.send(call(2, 'echo', { text: 'shallow' }))
    expect((await peer.answer(2)).result).toMatchObject({ content: [{ text: 'shallow' }] })
    const refused = peer.lines.find((m) => 'error' in m && m.id === undefined) as { error: { code: number; message: string } }
    expect(refused.error.code).toBe(-32700)
    expect(refused.error.message).toContain(`nested deeper than ${settings.maxJsonDepth} levels (setting maxJsonDepth`)
    peer.end()
    await peer.stdio.closed
  })

  test('ids beyond 2^53 come back byte for byte', async () => {
    const peer = open()
    const raw: string[] = []
    peer.send(init(1, '2025-11-25'))
    await peer.answer(1)
    for (const id of ['9007199254740993', '-9007199254740993', '123456789012345678901234567890']) {
      peer.send(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`)
      raw.push(id)
    }
    peer.send(call('last', 'echo', { text: 'x' }))
    await peer.answer('last')
    await peer.settle()
    for (const id of raw) expect(peer.text).toContain(`"id":${id},`)
    peer.end()
    await peer.stdio.closed
  })

  test('stdin EOF: requests already read are answered within shutdownGraceMs; one still running then gets an error; exactly one answer each', async () => {
    const peer = open()
    peer.send(init(1, '2025-11-25'))
    await peer.answer(1)
    peer.send(call('quick', 'quick'))
    peer.send(call('stuck', 'stuck'))
    await peer.settle()
    peer.end()
    await peer.stdio.closed
    const quick = peer.lines.filter((m) => m.id === 'quick')
    const stuck = peer.lines.filter((m) => m.id === 'stuck')
    expect(quick).toHaveLength(1)
    expect(quick[0]!.result).toMatchObject({ content: [{ text: 'quick done' }] })
    expect(stuck).toHaveLength(1)
    expect((stuck[0]!.error as { message: string }).message).toContain(
      'stdin closed: the request was stopped before it finished and may or may not have run',
    )
  })
})
