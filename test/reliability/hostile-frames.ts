/**
 * Hostile JSON-RPC frames for the framing fuzz, generated from a seed (the same seed, the same
 * frames): invalid and truncated JSON, frames around maxFrameBytes, deep nesting, every id type
 * (integers beyond 2^53 included), batches, binary and invalid UTF-8, duplicate and `__proto__`
 * keys, wrong shapes and methods, a failing `initialize`. None names a `valid-*` id, and none
 * cancels anything, so the valid calls interleaved with them must all be answered.
 */

/** xorshift32: small, deterministic, good enough to pick frames. */
export function random(seed: number): () => number {
  let state = seed >>> 0 || 1
  return () => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return (state >>> 0) / 2 ** 32
  }
}

const ENC = new TextEncoder()
const VALID = (id: unknown, method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method, params })

const IDS: string[] = [
  'null',
  'true',
  'false',
  '1.5',
  '-1',
  '0',
  '9007199254740993',
  '-9007199254740993',
  '1e400',
  '""',
  '"x"',
  '{}',
  '[]',
  '[1]',
  `"${'i'.repeat(5000)}"`,
  '"\\u0000"',
  '"\\ud800"',
]

/** One hostile frame as bytes (no trailing newline; stdio adds one, HTTP sends it as the body). */
export function hostileFrame(next: () => number, maxFrameBytes: number): { kind: string; bytes: Uint8Array } {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!
  const id = pick(IDS)
  const kinds: Array<[string, () => string | Uint8Array]> = [
    [
      'not-json',
      () =>
        pick([
          '{',
          '}',
          'nul',
          '{"jsonrpc":',
          'hello',
          '[[[',
          '{"a":1,}',
          "{'a':1}",
          '\u0000',
          'NaN',
          '{"jsonrpc":"2.0","id":1,"method":"ping"',
        ]),
    ],
    [
      'truncated',
      () => {
        const full = VALID(7, 'tools/call', { name: 'up_echo', arguments: { text: 'x'.repeat(50) } })
        return full.slice(0, Math.floor(next() * full.length))
      },
    ],
    [
      'random-bytes',
      () => Uint8Array.from({ length: 1 + Math.floor(next() * 64) }, () => Math.floor(next() * 256)).map((b) => (b === 0x0a ? 0x20 : b)),
    ],
    [
      'invalid-utf8',
      () =>
        Uint8Array.from([
          ...ENC.encode('{"jsonrpc":"2.0","id":"u8","method":"tools/call","params":{"name":"up_echo","arguments":{"text":"'),
          0xff,
          0xfe,
          0xc3,
          ...ENC.encode('"}}}'),
        ]),
    ],
    [
      'lone-surrogate',
      () => '{"jsonrpc":"2.0","id":"sur","method":"tools/call","params":{"name":"up_echo","arguments":{"text":"\\ud800"}}}',
    ],
    ['deep-array', () => '['.repeat(1000 + Math.floor(next() * 20_000)) + ']'.repeat(10)],
    ['deep-object', () => `${'{"a":'.repeat(1000 + Math.floor(next() * 5_000))}1${'}'.repeat(1000)}`],
    [
      'deep-params',
      () =>
        `{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"up_echo","arguments":{"text":${'['.repeat(5000)}${']'.repeat(5000)}}}}`,
    ],
    ['id-type', () => `{"jsonrpc":"2.0","id":${id},"method":"ping"}`],
    ['id-type-call', () => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"up_echo","arguments":{"text":"id"}}}`],
    [
      'batch',
      () =>
        pick([
          '[]',
          '[1,2,3]',
          `[${VALID('b1', 'ping', {})},${VALID('b2', 'tools/list', {})}]`,
          '[[]]',
          `[${VALID('b3', 'initialize', {})}]`,
        ]),
    ],
    ['duplicate-keys', () => '{"jsonrpc":"2.0","id":"dup","id":"dup2","method":"ping","method":"tools/list"}'],
    [
      'proto-keys',
      () =>
        pick([
          '{"__proto__":{"jsonrpc":"2.0","id":"p","method":"ping"}}',
          '{"jsonrpc":"2.0","id":"proto","method":"tools/call","params":{"__proto__":{"name":"up_echo"},"name":"up_echo","arguments":{"__proto__":{"text":"polluted"},"constructor":{"prototype":{"x":1}},"text":"p"}}}',
          '{"jsonrpc":"2.0","id":"ctor","method":"constructor","params":{}}',
          '{"jsonrpc":"2.0","id":"tostr","method":"toString"}',
        ]),
    ],
    [
      'wrong-shape',
      () =>
        pick([
          '{"jsonrpc":"1.0","id":"v","method":"ping"}',
          '{"id":"nv","method":"ping"}',
          '{"jsonrpc":"2.0","id":"m","method":42}',
          '{"jsonrpc":"2.0","id":"pp","method":"tools/call","params":"str"}',
          '{"jsonrpc":"2.0","id":"pa","method":"tools/call","params":[1,2]}',
          '{"jsonrpc":"2.0","result":{},"id":"stray"}',
          '{"jsonrpc":"2.0","error":{"code":1},"id":"stray-e"}',
          '"just a string"',
          '42',
          'null',
          'true',
        ]),
    ],
    [
      'unknown',
      () =>
        pick([
          VALID('u1', 'no/such/method', {}),
          VALID('u2', 'tools/call', { name: 'no_such_tool', arguments: {} }),
          VALID('u3', 'tools/call', { name: 'up_echo', arguments: { text: 5 } }),
          VALID('u4', 'resources/read', { uri: 'nope://x' }),
          VALID('u5', 'prompts/get', { name: 'nope' }),
        ]),
    ],
    [
      'notification',
      () =>
        pick([
          '{"jsonrpc":"2.0","method":"notifications/unknown"}',
          '{"jsonrpc":"2.0","method":"notifications/initialized","params":5}',
          '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"nobody"}}',
          '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"zz","progress":1}}',
        ]),
    ],
    ['bad-initialize', () => VALID('init-bad', 'initialize', pick([{ protocolVersion: 42 }, {}, { protocolVersion: ['2025-11-25'] }]))],
    [
      'near-max',
      () => {
        const size = pick([maxFrameBytes - 1, maxFrameBytes, maxFrameBytes + 1, maxFrameBytes * 2])
        const head = '{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"up_echo","arguments":{"text":"'
        const tail = '"}}}'
        return head + 'y'.repeat(Math.max(0, size - head.length - tail.length)) + tail
      },
    ],
    ['whitespace', () => pick([' ', '\t', '\r', ' \r', '\u00a0'])],
  ]
  const usable = process.env.FUZZ_SKIP ? kinds.filter(([k]) => !process.env.FUZZ_SKIP!.split(',').includes(k)) : kinds
  const [kind, make] = pick(usable)
  const made = make()
  return { kind, bytes: typeof made === 'string' ? ENC.encode(made) : made }
}
