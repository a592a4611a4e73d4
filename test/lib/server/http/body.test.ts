/** lib/server/http/body.ts and body-read.ts: Accept and Content-Type checks and byte-capped body reading. */
import { describe, expect, test } from 'bun:test'
import { accepts, checkAccept } from '../../../../lib/server/http/body.ts'
import { BodyRead, type ReadBodyOptions, type ReadBodyResult, parseJsonBody, startBody } from '../../../../lib/server/http/body-read.ts'

const URL_ = 'http://localhost/mcp'
const BOTH = 'application/json, text/event-stream'

/** A POST body's JSON as the HTTP handler reads it: startBody with the media type check, its wait, parseJsonBody. */
async function readJsonBody(request: Request, options: ReadBodyOptions): Promise<ReadBodyResult> {
  const read = startBody(request, options, true)
  return read instanceof BodyRead ? parseJsonBody(read.bytes(await read.settled), options) : read
}

function post(body: BodyInit | null, headers: Record<string, string> = { 'content-type': 'application/json' }): Request {
  return new Request(URL_, { method: 'POST', headers, body })
}

describe('readJsonBody', () => {
  test('parses a JSON body', async () => {
    const result = await readJsonBody(post('{"jsonrpc":"2.0","id":1,"method":"ping"}'), { maxFrameBytes: 1024 })
    expect(result).toEqual({ ok: true, value: { jsonrpc: '2.0', id: 1, method: 'ping' } })
  })

  test('content type parameters and case are tolerated', async () => {
    const result = await readJsonBody(post('[]', { 'content-type': 'Application/JSON; charset=utf-8' }), { maxFrameBytes: 1024 })
    expect(result).toEqual({ ok: true, value: [] })
  })

  test('415 for text/plain, forms and a missing Content-Type (no CORS simple requests)', async () => {
    for (const headers of [{ 'content-type': 'text/plain' }, { 'content-type': 'application/x-www-form-urlencoded' }, {}] as Record<
      string,
      string
    >[]) {
      const result = await readJsonBody(post('{}', headers), { maxFrameBytes: 1024 })
      expect(result.ok).toBe(false)
      if (!result.ok) expect(result.response.status).toBe(415)
    }
  })

  test('400 + -32700 on bad JSON and on invalid UTF-8', async () => {
    for (const body of ['{"jsonrpc":', new Uint8Array([0x7b, 0xff, 0x7d])]) {
      const result = await readJsonBody(post(body), { maxFrameBytes: 1024 })
      expect(result.ok).toBe(false)
      if (result.ok) continue
      expect(result.response.status).toBe(400)
      const json = await result.response.json()
      expect(json.error.code).toBe(-32700)
      expect(json.jsonrpc).toBe('2.0')
    }
  })

  test('413 from Content-Length before reading', async () => {
    const request = new Request(URL_, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': '5000' },
      body: '{}',
    })
    const result = await readJsonBody(request, { maxFrameBytes: 100 })
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.response.status).toBe(413)
    expect(request.bodyUsed).toBe(false)
  })

  test('413 while streaming a chunked body that exceeds the cap, over a real listener', async () => {
    let chunksPulled = 0
    await using server = Bun.serve({
      port: 0,
      async fetch(request) {
        const result = await readJsonBody(request, { maxFrameBytes: 64 })
        return result.ok ? Response.json(result.value) : result.response
      },
    })
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        chunksPulled++
        if (chunksPulled > 50) return controller.close()
        controller.enqueue(new TextEncoder().encode(`"${'x'.repeat(30)}",`))
      },
    })
    const response = await fetch(`http://127.0.0.1:${server.port}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    })
    expect(response.status).toBe(413)
    expect((await response.json()).error.message).toContain('64 bytes')
  })

  test('a body exactly at the cap is accepted', async () => {
    const text = `"${'a'.repeat(8)}"`
    const result = await readJsonBody(post(text), { maxFrameBytes: text.length })
    expect(result).toEqual({ ok: true, value: 'a'.repeat(8) })
  })
})

describe('Accept', () => {
  function withAccept(accept: string | undefined, method = 'POST'): Request {
    return new Request(URL_, { method, headers: accept === undefined ? {} : { accept } })
  }

  test('media ranges, wildcards and q=0', () => {
    expect(accepts(withAccept('application/json'), 'application/json')).toBe(true)
    expect(accepts(withAccept('application/*'), 'application/json')).toBe(true)
    expect(accepts(withAccept('*/*'), 'text/event-stream')).toBe(true)
    expect(accepts(withAccept('text/html'), 'application/json')).toBe(false)
    expect(accepts(withAccept('*/*, application/json;q=0'), 'application/json')).toBe(false)
    expect(accepts(withAccept(undefined), 'application/json')).toBe(true)
  })

  test('POST needs both types from 2025-03-26 on (both eras); 406 otherwise', async () => {
    for (const revision of ['2025-03-26', '2025-11-25', '2026-07-28'] as const) {
      expect(checkAccept(withAccept(BOTH), revision, {})).toBeUndefined()
      const refused = checkAccept(withAccept('application/json'), revision, {})
      expect(refused?.status).toBe(406)
      expect((await refused!.json()).error.message).toContain('text/event-stream')
    }
  })

  test('2024-11-05 POST has no Accept rule; GET needs text/event-stream', () => {
    expect(checkAccept(withAccept('application/json'), '2024-11-05', {})).toBeUndefined()
    expect(checkAccept(withAccept('text/event-stream', 'GET'), '2025-11-25', {})).toBeUndefined()
    expect(checkAccept(withAccept('application/json', 'GET'), '2025-11-25', {})?.status).toBe(406)
  })
})
