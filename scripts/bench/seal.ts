/**
 * Micro-benchmark of sealed tokens (lib/server/seal.ts, AES-256-GCM): µs per seal and per open of
 * a requestState-sized payload, a legacy session id's seal and open, and the requestState codec's
 * seal+open beside them; then what replica mode does per request in steady state (the forwarder's
 * look at a request of a session this replica owns, whose id it opened before, and at a plain 2026
 * request), each over requests built beforehand. Same-run figures only. Part of
 * `bun scripts/bench.ts --only cluster`; alone: `bun scripts/bench/seal.ts [--ops 20000]`. Markdown on stdout.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createReplicaForwarder } from '../../lib/daemon/index.ts'
import { defaultSettings } from '../../lib/settings/index.ts'
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
  /** forwarder.forward on a request of a session this replica minted (the id's owner already known). */
  readonly forwardLegacyUs: number
  /** forwarder.forward on a 2026 request (no session header). */
  readonly forwardModernUs: number
}

/** µs per forwarder.forward() call in a replica of two, over `ops` requests built beforehand (headers read once each, as in the daemon). */
function measureForwarder(ops: number): { legacy: number; modern: number } {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-bench-seal-'))
  try {
    const keyFile = join(dir, 'seal.keys')
    writeFileSync(keyFile, `${'ab'.repeat(32)}\n`, { mode: 0o600 })
    const forwarder = createReplicaForwarder(
      defaultSettings({ replicaId: 'replica-1', replicaPeers: 'replica-2=http://127.0.0.1:1', sealKeyFile: keyFile }),
    )!
    const session = forwarder.newSessionId({ revision: '2025-11-25', clientCapabilities: {}, clientInfo: { name: 'bench', version: '1' } })
    const url = new URL('http://127.0.0.1:1/mcp?codemode=false')
    const build = (headers: Record<string, string>) =>
      Array.from({ length: ops }, () => new Request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }))
    const perRequest = (requests: Request[]): number => {
      for (const request of requests) request.headers.get('content-type')
      const start = performance.now()
      for (const request of requests) if (forwarder.forward(request, url) !== undefined) throw new Error('served here, not forwarded')
      return ((performance.now() - start) * 1000) / requests.length
    }
    // The first look opens the id (one AES-GCM open); every later one finds its owner kept.
    perRequest(build({ 'mcp-session-id': session }))
    return { legacy: perRequest(build({ 'mcp-session-id': session })), modern: perRequest(build({ 'mcp-protocol-version': '2026-07-28' })) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
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
  const forward = measureForwarder(ops)
  return {
    ops,
    forwardLegacyUs: forward.legacy,
    forwardModernUs: forward.modern,
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
    `| legacy session id: open (once per id on each replica: what it says is kept) | ${f.sessionOpenUs.toFixed(2)} |`,
    `| requestState codec seal + open (with digests) | ${f.codecUs.toFixed(2)} |`,
    `| replica mode per request, legacy session this replica owns (id opened before: its owner is kept) | ${f.forwardLegacyUs.toFixed(2)} |`,
    `| replica mode per request, 2026-07-28 without requestState or taskId | ${f.forwardModernUs.toFixed(2)} |`,
  ].join('\n')
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { ops: { type: 'string', default: '20000' } } })
  console.log(renderSeal(measureSeal(Number(values.ops))))
}
