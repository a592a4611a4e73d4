/** lib/transport/line-framer.ts: newline-delimited JSON framing with a byte cap. */
import { describe, expect, test } from 'bun:test'
import { createLineFramer, encodeFrame, type OversizeFrame } from '../../../lib/transport/index.ts'

function framer(maxFrameBytes = 1024) {
  const lines: string[] = []
  const oversize: OversizeFrame[] = []
  const f = createLineFramer({ maxFrameBytes, onLine: (l) => lines.push(l), onOversize: (o) => oversize.push(o) })
  return { f, lines, oversize }
}
const bytes = (s: string) => new TextEncoder().encode(s)

describe('line framer', () => {
  test('splits lines across and within chunks, tolerates CRLF and skips blank lines', () => {
    const { f, lines } = framer()
    f.push(bytes('{"a":1}\n{"b"'))
    f.push(bytes(':2}\r\n\n  \n{"c":3}'))
    expect(lines).toEqual(['{"a":1}', '{"b":2}'])
    f.end()
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}'])
  })

  test('a multi-byte UTF-8 character split across chunks decodes intact', () => {
    const { f, lines } = framer()
    const all = bytes('{"t":"héllo 世界 🎉"}\n')
    for (let i = 0; i < all.length; i++) f.push(all.subarray(i, i + 1))
    expect(lines).toEqual(['{"t":"héllo 世界 🎉"}'])
  })

  test('an oversized line is reported with its size and skipped; framing continues', () => {
    const { f, lines, oversize } = framer(16)
    f.push(bytes('{"ok":1}\n{"big":"'))
    f.push(bytes('x'.repeat(100)))
    f.push(bytes('x'.repeat(100)))
    expect(oversize).toEqual([])
    f.push(bytes('"}\n{"ok":2}\n'))
    expect(lines).toEqual(['{"ok":1}', '{"ok":2}'])
    expect(oversize).toEqual([{ bytes: 210, maxFrameBytes: 16, head: `{"big":"${'x'.repeat(200)}"}`.slice(0, 210), terminated: true }])
  })

  test('an oversized line wholly inside one chunk and one cut off by end() are both reported', () => {
    const { f, lines, oversize } = framer(4)
    f.push(bytes('123456\n12\n1234567'))
    f.end()
    expect(lines).toEqual(['12'])
    expect(oversize.map((o) => [o.bytes, o.terminated])).toEqual([
      [6, true],
      [7, false],
    ])
  })

  test('a line of exactly maxFrameBytes passes', () => {
    const { f, lines, oversize } = framer(8)
    f.push(bytes('12345678\n'))
    expect(lines).toEqual(['12345678'])
    expect(oversize).toEqual([])
  })

  test('encodeFrame is one line of compact JSON even when values contain newlines', () => {
    expect(encodeFrame({ text: 'a\nb' })).toBe('{"text":"a\\nb"}\n')
  })
})
