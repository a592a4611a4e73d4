/**
 * lib/daemon/unix-post.ts: the warm call's one POST on the daemon's Unix socket, without fetch.
 * Against a real Bun.serve on a socket in a temp dir (the server the daemon runs): a streamed
 * answer (chunked) arrives line by line, a plain one (Content-Length) whole, headers and status as
 * sent; a socket nobody serves rejects with the connect error's code, as fetch's does.
 */
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { ChunkedBody, postOverUnix } from '../../../lib/daemon/index.ts'
import { tempDir } from '../../harness.ts'

function serveOn(socket: string, handler: (request: Request) => Response | Promise<Response>) {
  return Bun.serve({ unix: socket, fetch: handler })
}

describe('postOverUnix', () => {
  test('a streamed answer comes as it is written; the request body, status and headers pass unchanged', async () => {
    using dir = tempDir('mcpx-unix-post')
    const socket = join(dir.path, 'daemon.sock')
    let received: unknown
    const server = serveOn(socket, async (request) => {
      received = { method: request.method, path: new URL(request.url).pathname, body: await request.json() }
      let step = 0
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          step += 1
          if (step > 3) return controller.close()
          await Bun.sleep(20)
          controller.enqueue(new TextEncoder().encode(`${JSON.stringify({ step, pad: 'x'.repeat(step * 40_000) })}\n`))
        },
      })
      return new Response(body, { status: 200, headers: { 'Content-Type': 'application/x-ndjson', 'Mcpx-Build': 'b1' } })
    })
    try {
      const response = await postOverUnix(socket, '/v1/call', JSON.stringify({ tool: 'echo', text: 'é' }))
      expect(received).toEqual({ method: 'POST', path: '/v1/call', body: { tool: 'echo', text: 'é' } })
      expect([response.status, response.headers.get('mcpx-build'), response.headers.get('content-type')]).toEqual([
        200,
        'b1',
        'application/x-ndjson',
      ])
      const lines = (await response.text())
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as { step: number; pad: string })
      expect(lines.map((line) => [line.step, line.pad.length])).toEqual([
        [1, 40_000],
        [2, 80_000],
        [3, 120_000],
      ])
    } finally {
      server.stop(true)
    }
  })

  test('a plain answer (Content-Length) and an error status', async () => {
    using dir = tempDir('mcpx-unix-post-plain')
    const socket = join(dir.path, 'daemon.sock')
    const server = serveOn(socket, () => Response.json({ error: { code: 'USAGE', message: 'no' } }, { status: 400 }))
    try {
      const response = await postOverUnix(socket, '/v1/call', '{}')
      expect(response.status).toBe(400)
      expect(await response.json()).toEqual({ error: { code: 'USAGE', message: 'no' } })
    } finally {
      server.stop(true)
    }
  })

  test('a request larger than the socket buffer goes out whole', async () => {
    using dir = tempDir('mcpx-unix-post-large')
    const socket = join(dir.path, 'daemon.sock')
    const server = serveOn(socket, async (request) => Response.json({ length: ((await request.json()) as { text: string }).text.length }))
    try {
      const text = 'y'.repeat(8_000_000)
      const response = await postOverUnix(socket, '/v1/call', JSON.stringify({ text }))
      expect(await response.json()).toEqual({ length: text.length })
    } finally {
      server.stop(true)
    }
  })

  test('an answer cut short ends its body where it was cut', async () => {
    using dir = tempDir('mcpx-unix-post-cut')
    const socket = join(dir.path, 'daemon.sock')
    // A peer that sends a chunked head and one line, then closes mid-answer (as a daemon that died would).
    const server = Bun.listen({
      unix: socket,
      socket: {
        data(s) {
          s.end('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nline1\n\r\n20\r\n{"type":"res')
        },
      },
    })
    try {
      const response = await postOverUnix(socket, '/v1/call', '{}')
      expect(await response.text()).toBe('line1\n{"type":"res')
    } finally {
      server.stop(true)
    }
  })

  test('nobody serving the socket: the connect error, with its code', async () => {
    using dir = tempDir('mcpx-unix-post-none')
    const error = await postOverUnix(join(dir.path, 'daemon.sock'), '/v1/call', '{}').catch((e: unknown) => e)
    expect((error as NodeJS.ErrnoException).code).toBe('ENOENT')
  })
})

describe('ChunkedBody', () => {
  test('decodes a chunked body split at every byte, with a chunk extension and a trailer', () => {
    const wire = new TextEncoder().encode('5;ext=1\r\nhello\r\n18\r\n, a chunk of twenty-four\r\n0\r\nTrailer: x\r\n\r\n')
    for (let cut = 1; cut < wire.length; cut++) {
      const parts: string[] = []
      const body = new ChunkedBody((bytes) => parts.push(new TextDecoder().decode(bytes)))
      body.push(wire.subarray(0, cut))
      body.push(wire.subarray(cut))
      expect([parts.join(''), body.done]).toEqual(['hello, a chunk of twenty-four', true])
    }
  })

  test('a malformed size is an error', () => {
    expect(() => new ChunkedBody(() => {}).push(new TextEncoder().encode('zz\r\n'))).toThrow('malformed chunk size')
  })
})
