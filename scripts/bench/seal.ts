/**
 * Micro-benchmark of sealed tokens (lib/server/seal.ts, AES-256-GCM): µs per seal and per open of
 * a requestState-sized payload, and the requestState codec's seal+open beside it. Same-run
 * figures only; run alone: `bun scripts/bench/seal.ts [--ops 20000]`. Markdown on stdout.
 */
import { parseArgs } from 'node:util'
import { createRequestStateCodec, openSealed as open, randomKeyRing, seal } from '../../lib/server/index.ts'

const { values } = parseArgs({ options: { ops: { type: 'string', default: '20000' } } })
const ops = Number(values.ops)
const ring = randomKeyRing()
const payload = JSON.stringify({ answers: { q1: { action: 'accept', content: { name: 'Ada', age: 36 } } }, asked: ['q1'], state: { park: 'p-1234567890' }, m: 'tools/call', d: 'x'.repeat(43), x: Date.now(), p: 'y'.repeat(43) })

function perOp(run: () => void): number {
  for (let i = 0; i < ops / 10; i++) run()
  const start = performance.now()
  for (let i = 0; i < ops; i++) run()
  return ((performance.now() - start) * 1000) / ops
}

const token = seal(ring, payload, 'bench')
const sealUs = perOp(() => seal(ring, payload, 'bench'))
const openUs = perOp(() => open(ring, token, 'bench'))
const codec = createRequestStateCodec(60_000, ring)
const params = { name: 'tool', arguments: { query: 'bench' } }
const state = { answers: { q1: { action: 'accept', content: { name: 'Ada' } } }, asked: ['q1'], state: { park: 'p-1' } }
const codecToken = codec.seal('tools/call', params, state, 'alice')
const codecUs = perOp(() => codec.open('tools/call', params, codec.seal('tools/call', params, state, 'alice'), 'alice'))

console.log(`| operation (${ops} ops, ${payload.length}-byte payload, token ${token.length} chars) | µs/op |`)
console.log('|---|---|')
console.log(`| seal (AES-256-GCM) | ${sealUs.toFixed(2)} |`)
console.log(`| open | ${openUs.toFixed(2)} |`)
console.log(`| requestState codec seal + open (with digests; token ${codecToken.length} chars) | ${codecUs.toFixed(2)} |`)
