/**
 * Pure verdict of `mcpx probe`: from what each era × transport attempt observed, decide the era
 * (`modern`, `legacy`, `dual`), the transport that worked, the revisions, the server identity,
 * whether auth is required (and where its RFC 9728 metadata lives), and — when nothing worked —
 * one diagnosis with the error code that sets the exit status (CONNECT 3, AUTH 4, PEER 5).
 */
import { type ErrorCode, RPC } from '../errors/index.ts'
import type { TransportKind } from '../transport/index.ts'
import type { Era } from '../wire/index.ts'

export interface Observation {
  era: Era
  transport: TransportKind
  ok: boolean
  /** Negotiated (legacy) or chosen (modern) revision. */
  revision?: string
  /** DiscoverResult.supportedVersions (modern). */
  supportedVersions?: string[]
  serverInfo?: { name?: unknown; version?: unknown }
  capabilities?: Record<string, unknown>
  /** What hosts' parsers would refuse in the handshake and the lists (run-probe.ts problemsOf); set on a working attempt. */
  problems?: string[]
  error?: { code: ErrorCode; message: string; data?: Record<string, unknown>; rpcCode?: number }
  ms: number
}

export interface ProbeReport {
  era: Era | 'dual' | 'none'
  transport: TransportKind | null
  /** Every transport an attempt succeeded on. */
  transports: TransportKind[]
  protocolVersions: string[]
  server: { name: string; version: string } | null
  capabilities: Record<string, unknown>
  auth: { required: boolean; resourceMetadata?: string }
  /** Of the attempt reported: what hosts built on the official SDKs would refuse (mcpx repairs it for its own hosts). */
  problems: string[]
  /** Set when nothing worked: why, and the stable code the CLI exits with. */
  failure?: { code: ErrorCode; diagnosis: string }
}

const PREFERENCE: readonly [Era, TransportKind][] = [
  ['modern', 'stdio'],
  ['modern', 'streamable-http'],
  ['legacy', 'stdio'],
  ['legacy', 'streamable-http'],
  ['legacy', 'http+sse'],
]

export function classify(observations: readonly Observation[], target = 'the server'): ProbeReport {
  const good = observations.filter((o) => o.ok)
  const modern = good.some((o) => o.era === 'modern')
  const legacy = good.some((o) => o.era === 'legacy')
  const best = PREFERENCE.map(([era, transport]) => good.find((o) => o.era === era && o.transport === transport)).find(
    (o) => o !== undefined,
  )
  const versions = new Set<string>()
  for (const o of good) {
    if (o.revision) versions.add(o.revision)
    for (const v of o.supportedVersions ?? []) versions.add(v)
  }
  const authObservation = observations.find((o) => o.error?.code === 'AUTH')
  const resourceMetadata = authObservation?.error?.data?.resourceMetadata
  const report: ProbeReport = {
    era: modern && legacy ? 'dual' : modern ? 'modern' : legacy ? 'legacy' : 'none',
    transport: best?.transport ?? null,
    transports: [...new Set(good.map((o) => o.transport))],
    protocolVersions: [...versions].sort(),
    server: best?.serverInfo ? { name: String(best.serverInfo.name ?? ''), version: String(best.serverInfo.version ?? '') } : null,
    capabilities: best?.capabilities ?? {},
    auth: authObservation ? { required: true, ...(typeof resourceMetadata === 'string' ? { resourceMetadata } : {}) } : { required: false },
    problems: best?.problems ?? [],
  }
  if (!best) report.failure = diagnose(observations, target)
  return report
}

function diagnose(observations: readonly Observation[], target: string): { code: ErrorCode; diagnosis: string } {
  const errors = observations.map((o) => o.error).filter((e) => e !== undefined)
  const auth = errors.find((e) => e.code === 'AUTH')
  if (auth) return { code: 'AUTH', diagnosis: auth.message }
  if (errors.length === 0) return { code: 'CONNECT', diagnosis: `${target}: no attempt was made` }
  const http = errors.map((e) => e.data?.httpStatus).filter((s): s is number => typeof s === 'number')
  const stdio = observations.some((o) => o.transport === 'stdio')
  if (stdio) {
    const exited = errors.find((e) => e.code === 'CONNECT')
    if (exited) return { code: 'CONNECT', diagnosis: `${target} did not stay up to answer: ${exited.message}` }
    // No answer to server/discover and "method not found" for initialize (`cat` echoes our own
    // request back): nothing MCP is there — the CONNECT case of the probe's exit codes.
    if (errors.every((e) => e.code === 'TIMEOUT' || e.rpcCode === RPC.METHOD_NOT_FOUND))
      return { code: 'CONNECT', diagnosis: `${target} is not an MCP server (it answered neither server/discover nor initialize)` }
  } else if (http.length === 0 && errors.every((e) => e.code === 'CONNECT' || e.code === 'TIMEOUT')) {
    return { code: 'CONNECT', diagnosis: `nothing answers at ${target}: ${errors[0]!.message}` }
  } else if (
    http.length > 0 &&
    errors.every((e) => e.code === 'CONNECT' || e.code === 'PROTOCOL' || e.code === 'TIMEOUT' || e.code === 'PEER')
  ) {
    return { code: 'CONNECT', diagnosis: `${target} is not an MCP endpoint (HTTP ${[...new Set(http)].join(', ')} to every MCP request)` }
  }
  const era = errors.find((e) => e.code === 'ERA')
  if (era) return { code: 'ERA', diagnosis: era.message }
  if (errors.every((e) => e.code === 'TIMEOUT')) return { code: 'CONNECT', diagnosis: `${target} never answered (${errors[0]!.message})` }
  const first = errors.find((e) => e.code !== 'TIMEOUT') ?? errors[0]!
  return {
    code: first.code === 'TIMEOUT' ? 'CONNECT' : first.code,
    diagnosis: `${target} does not speak MCP as mcpx knows it: ${first.message}`,
  }
}
