/**
 * Micro-benchmark of sealed tokens (lib/server/seal.ts, AES-256-GCM): µs per seal and per open of
 * a requestState-sized payload, a legacy session id's seal and open, and the requestState codec's
 * seal+open beside them. Same-run figures only. Part of `bun scripts/bench.ts --only cluster`;
 * alone: `bun scripts/bench/seal.ts [--ops 20000]`. Markdown on stdout.
 */
import { parseArgs } from 'node:util'
import { createRequestStateCodec, openSealed as open, openSession, randomKeyRing, seal, sealedSessionIds } from '../../lib/server/index.ts'

export interface SealFigures {
  readonly ops: number
  readonly payloadBytes: number
  readonly tokenChars: number
  readonly sealUs: number
  readonly openUs: number
  readonly sessionIdChars: number
  readonly sessionSealUs: number
  readonly sessionOpenUs: number
  readonly codecUs: number
}

export function measureSeal(ops: number): SealFigures {
  const ring = randomKeyRing()
  const payload = JSON.stringify({
    answers: { q1: { action: 'accept', content: { name: 'Ada', age: 36 } } },
    asked: ['q1'],
    state: { park: 'p-1234567890' },
    m: 'tools/call',
    d: 'x'.repeat(43),
    x: Date.now(),
    p: 'y'.repeat(43),
  })
  const perOp = (run: () => void): number => {
    for (let i = 0; i < ops / 10; i++) run()
    const start = performance.now()
    for (let i = 0; i < ops; i++) run()
    return ((performance.now() - start) * 1000) / ops
  }
  const token = seal(ring, payload, 'bench')
  const sealUs = perOp(() => seal(ring, payload, 'bench'))
  const openUs = perOp(() => open(ring, token, 'bench'))
  const mint = sealedSessionIds(ring, 'replica-1')
  const seed = {
    revision: '2025-11-25' as const,
    clientCapabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} },
    clientInfo: { name: 'bench-host', version: '1.0.0' },
  }
  const sessionId = mint(seed)
  const sessionSealUs = perOp(() => mint(seed))
  const sessionOpenUs = perOp(() => openSession(ring, sessionId))
  const codec = createRequestStateCodec(60_000, ring)
  const params = { name: 'tool', arguments: { query: 'bench' } }
  const state = { answers: { q1: { action: 'accept', content: { name: 'Ada' } } }, asked: ['q1'], state: { park: 'p-1' } }
  const codecUs = perOp(() => codec.open('tools/call', params, codec.seal('tools/call', params, state, 'alice'), 'alice'))
  return {
    ops,
    payloadBytes: payload.length,
    tokenChars: token.length,
    sealUs,
    openUs,
    sessionIdChars: sessionId.length,
    sessionSealUs,
    sessionOpenUs,
    codecUs,
  }
}

export function renderSeal(f: SealFigures): string {
  return [
    `| operation (${f.ops} ops each) | µs/op |`,
    '|---|---|',
    `| seal, ${f.payloadBytes}-byte payload (AES-256-GCM; token ${f.tokenChars} chars) | ${f.sealUs.toFixed(2)} |`,
    `| open, same token | ${f.openUs.toFixed(2)} |`,
    `| legacy session id: seal (id ${f.sessionIdChars} chars) | ${f.sessionSealUs.toFixed(2)} |`,
    `| legacy session id: open (each request of a session on a replica) | ${f.sessionOpenUs.toFixed(2)} |`,
    `| requestState codec seal + open (with digests) | ${f.codecUs.toFixed(2)} |`,
  ].join('\n')
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { ops: { type: 'string', default: '20000' } } })
  console.log(renderSeal(measureSeal(Number(values.ops))))
}
