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

  test('a chunk that is exactly one line is delivered as the same bytes split anywhere would be', () => {
    const chunks = ['{"a":"héllo 世界"}\n', '{"b":2}\r\n', '\n', '   \n', `{"c":"${'x'.repeat(20)}"}\n`, '{"d":4}\n']
    const whole = framer(24)
    for (const chunk of chunks) whole.f.push(bytes(chunk))
    const split = framer(24)
    for (const chunk of chunks) for (const byte of bytes(chunk)) split.f.push(new Uint8Array([byte]))
    expect(whole.lines).toEqual(['{"a":"héllo 世界"}', '{"b":2}', '{"d":4}'])
    expect(whole.lines).toEqual(split.lines)
    expect(whole.oversize).toEqual(split.oversize)
    expect(whole.oversize.map((o) => o.bytes)).toEqual([28])
  })

  test('a whole-line chunk of invalid UTF-8 goes to onInvalidUtf8 with a strict framer', () => {
    const lines: string[] = []
    const invalid: string[] = []
    const f = createLineFramer({
      maxFrameBytes: 64,
      onLine: (l) => lines.push(l),
      onOversize: () => {},
      onInvalidUtf8: (h) => invalid.push(h),
    })
    f.push(new Uint8Array([0x7b, 0xff, 0x7d, 0x0a]))
    f.push(bytes('{"ok":1}\n'))
    expect(invalid).toEqual(['{\ufffd}'])
    expect(lines).toEqual(['{"ok":1}'])
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
