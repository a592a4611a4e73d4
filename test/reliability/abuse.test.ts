/**
 * Abuse: 20 request bodies that never finish (chunked without an end, a Content-Length never
 * reached, a body trickling a byte at a time, an unauthenticated chunked POST) and 20 connections
 * that never send a byte, all against the daemon's TCP listener: each is closed by its timeout
 * (httpBodyTimeoutMs, httpIdleTimeoutMs; the unauthenticated one at once, its body unread) while a
 * control client's calls keep succeeding.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { connect, type Socket } from 'node:net'
import { type DaemonProcess, HttpHost, fixtureServer, startDaemon, textOf } from './support.ts'

setDefaultTimeout(300_000)

const BODIES = 20
const IDLE = 20

let daemon: DaemonProcess
beforeAll(async () => {
  daemon = await startDaemon({ up: fixtureServer() }, { MCPX_HTTP_IDLE_TIMEOUT_MS: '2000', MCPX_HTTP_BODY_TIMEOUT_MS: '2000' })
})
afterAll(async () => {
  await daemon?.[Symbol.asyncDispose]()
})

interface Abuser {
  readonly kind: string
  readonly closed: Promise<string>
  readonly socket: Socket
}

function abuser(kind: string, port: number, start: (socket: Socket) => void): Abuser {
  const socket = connect(port, '127.0.0.1')
  let received = ''
  const closed = new Promise<string>((resolve) => {
    socket.on('data', (chunk) => (received += chunk.toString()))
    socket.on('error', () => {})
    socket.on('close', () => resolve(received))
  })
  socket.on('connect', () => start(socket))
  return { kind, closed, socket }
}

test(`${BODIES} never-finishing bodies and ${IDLE} idle connections are closed by their timeouts while a control client's calls succeed`, async () => {
  const port = Number(new URL(daemon.mcpUrl).port)
  const auth = `Authorization: Bearer ${daemon.token}\r\n`
  const head = (extra: string) =>
    `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n${extra}`
  const kinds: Array<[string, (socket: Socket) => void]> = [
    ['chunked-never-ends', (s) => s.write(`${head(auth)}Transfer-Encoding: chunked\r\n\r\n5\r\n{"jso\r\n`)],
    ['short-content-length', (s) => s.write(`${head(auth)}Content-Length: 1000\r\n\r\n{"jsonrpc":"2.0"`)],
    [
      'trickle',
      (s) => {
        s.write(`${head(auth)}Transfer-Encoding: chunked\r\n\r\n`)
        const timer = setInterval(() => (s.writable ? s.write('1\r\n \r\n') : clearInterval(timer)), 300)
        s.on('close', () => clearInterval(timer))
      },
    ],
    ['unauthenticated-chunked', (s) => s.write(`${head('')}Transfer-Encoding: chunked\r\n\r\n5\r\n{"jso\r\n`)],
  ]
  const abusers: Abuser[] = []
  for (let i = 0; i < BODIES; i++) {
    const [kind, start] = kinds[i % kinds.length]!
    abusers.push(abuser(kind, port, start))
  }
  for (let i = 0; i < IDLE; i++) abusers.push(abuser('idle', port, () => {}))

  const control = new HttpHost(`${daemon.mcpUrl}?codemode=false`, daemon.token, 'modern')
  let calls = 0
  let succeeded = 0
  let allClosed = false
  const closing = Promise.all(abusers.map((a) => a.closed)).then((answers) => ((allClosed = true), answers))
  // The control client calls throughout, until every abuser's connection has been closed.
  for (let i = 0; !allClosed && i < 2_000; i++) {
    calls++
    if (textOf((await control.call(`control-${i}`, 'up_echo', { text: `c${i}` })).messages[0]) === `c${i}`) succeeded++
    await Bun.sleep(50)
  }
  const answers = await closing
  expect(allClosed).toBe(true)
  expect(succeeded).toBe(calls)
  expect(calls).toBeGreaterThan(0)
  // What each got before its connection was closed: a 408 or 401 for the bodies, nothing for idle ones.
  const seen = abusers.map((a, i) => `${a.kind}: ${/^HTTP\/1\.1 (\d{3})/.exec(answers[i]!)?.[1] ?? 'closed'}`)
  for (const line of seen) {
    if (line.startsWith('unauthenticated')) expect(line).toBe('unauthenticated-chunked: 401')
    else if (line.startsWith('idle')) expect(line).toBe('idle: closed')
    else expect(line).toMatch(/: (408|closed)$/)
  }
  expect(seen.filter((line) => line.startsWith('trickle'))).toEqual(Array(BODIES / kinds.length).fill('trickle: 408'))
})

test('a method /mcp does not serve gets 405 with a JSON-RPC body; an unauthenticated request is answered 401 and its connection closed', async () => {
  const put = await fetch(daemon.mcpUrl, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${daemon.token}`, 'Content-Type': 'application/json' },
    body: '{}',
  })
  expect(put.status).toBe(405)
  expect(put.headers.get('allow')).toContain('POST')
  expect(await put.json()).toMatchObject({
    jsonrpc: '2.0',
    error: { code: -32600, message: expect.stringContaining('Method Not Allowed') },
  })
  const anonymous = await fetch(daemon.mcpUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
  })
  expect(anonymous.status).toBe(401)
  expect(anonymous.headers.get('connection')).toBe('close')
  expect(await anonymous.json()).not.toHaveProperty('id')
})
