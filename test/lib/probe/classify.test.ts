/** lib/probe/classify.ts: what a probe's answers say about a server's era and transport. */
import { describe, expect, test } from 'bun:test'
import { type Observation, classify } from '../../../lib/probe/index.ts'

const modernHttp: Observation = {
  era: 'modern',
  transport: 'streamable-http',
  ok: true,
  revision: '2026-07-28',
  supportedVersions: ['2026-07-28'],
  serverInfo: { name: 'srv', version: '2.0.0' },
  capabilities: { tools: {} },
  ms: 5,
}
const legacyHttp: Observation = {
  era: 'legacy',
  transport: 'streamable-http',
  ok: true,
  revision: '2025-11-25',
  serverInfo: { name: 'srv', version: '1.0.0' },
  capabilities: { prompts: {} },
  ms: 7,
}
const legacySse: Observation = {
  era: 'legacy',
  transport: 'http+sse',
  ok: true,
  revision: '2024-11-05',
  serverInfo: { name: 'old', version: '0.1' },
  capabilities: {},
  ms: 9,
}
const failed = (
  era: Observation['era'],
  transport: Observation['transport'],
  code: NonNullable<Observation['error']>['code'],
  message: string,
  data?: Record<string, unknown>,
): Observation => ({
  era,
  transport,
  ok: false,
  error: { code, message, data },
  ms: 1,
})

describe('classify', () => {
  const cases: { name: string; observations: Observation[]; expect: Record<string, unknown> }[] = [
    {
      name: 'modern only',
      observations: [
        modernHttp,
        failed('legacy', 'streamable-http', 'PEER', 'Method not found'),
        failed('legacy', 'http+sse', 'CONNECT', 'HTTP 405', { httpStatus: 405 }),
      ],
      expect: {
        era: 'modern',
        transport: 'streamable-http',
        protocolVersions: ['2026-07-28'],
        server: { name: 'srv', version: '2.0.0' },
        failure: undefined,
      },
    },
    {
      name: 'both eras → dual, modern preferred for identity',
      observations: [modernHttp, legacyHttp],
      expect: {
        era: 'dual',
        transport: 'streamable-http',
        protocolVersions: ['2025-11-25', '2026-07-28'],
        server: { name: 'srv', version: '2.0.0' },
        capabilities: { tools: {} },
      },
    },
    {
      name: 'legacy over HTTP+SSE only',
      observations: [
        failed('modern', 'streamable-http', 'CONNECT', 'HTTP 404', { httpStatus: 404 }),
        failed('legacy', 'streamable-http', 'CONNECT', 'HTTP 404', { httpStatus: 404 }),
        legacySse,
      ],
      expect: { era: 'legacy', transport: 'http+sse', protocolVersions: ['2024-11-05'], server: { name: 'old', version: '0.1' } },
    },
    {
      name: 'nothing listening',
      observations: [failed('modern', 'streamable-http', 'CONNECT', 'Unable to connect')],
      expect: {
        era: 'none',
        transport: null,
        failure: { code: 'CONNECT', diagnosis: 'nothing answers at http://x/mcp: Unable to connect' },
      },
    },
    {
      name: 'a web page, not MCP',
      observations: [
        failed('modern', 'streamable-http', 'CONNECT', 'HTTP 404', { httpStatus: 404 }),
        failed('legacy', 'streamable-http', 'CONNECT', 'HTTP 404', { httpStatus: 404 }),
        failed('legacy', 'http+sse', 'PROTOCOL', 'no endpoint event', { httpStatus: 200 }),
      ],
      expect: {
        era: 'none',
        failure: { code: 'CONNECT', diagnosis: 'http://x/mcp is not an MCP endpoint (HTTP 404, 200 to every MCP request)' },
      },
    },
    {
      name: '401 → AUTH with metadata location',
      observations: [
        failed('modern', 'streamable-http', 'AUTH', 'needs auth', { resourceMetadata: 'http://x/.well-known/oauth-protected-resource' }),
      ],
      expect: {
        era: 'none',
        auth: { required: true, resourceMetadata: 'http://x/.well-known/oauth-protected-resource' },
        failure: { code: 'AUTH', diagnosis: 'needs auth' },
      },
    },
  ]
  for (const c of cases) {
    test(c.name, () => {
      const report = classify(c.observations, 'http://x/mcp')
      for (const [key, value] of Object.entries(c.expect)) expect(report[key as keyof typeof report] as unknown).toEqual(value)
    })
  }

  test('a command that exits at once is CONNECT naming the exit', () => {
    const report = classify(
      [failed('modern', 'stdio', 'CONNECT', 'server x exited with code 1'), failed('legacy', 'stdio', 'CONNECT', 'write failed')],
      'x',
    )
    expect(report.failure).toEqual({ code: 'CONNECT', diagnosis: 'x did not stay up to answer: server x exited with code 1' })
  })

  test('stdio legacy after a silent modern probe', () => {
    const report = classify([failed('modern', 'stdio', 'TIMEOUT', 'no answer'), { ...legacyHttp, transport: 'stdio' }], 'x')
    expect([report.era, report.transport, report.failure]).toEqual(['legacy', 'stdio', undefined])
  })
})
