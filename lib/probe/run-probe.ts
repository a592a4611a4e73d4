/**
 * The probe runner: tries each era × transport against one server with lib/client (fresh
 * connection per attempt, verdict cache bypassed) and hands the observations to classify().
 * stdio: modern (`server/discover` within probeTimeoutMs) and legacy (`initialize`), each in its own
 * spawn because a legacy server may exit on the unknown probe. HTTP: modern and legacy over
 * Streamable HTTP, then legacy HTTP+SSE only when legacy Streamable HTTP failed.
 */
import {
  type ConnectInternals,
  type JsonObject,
  type McpClient,
  type Target,
  type TimingStep,
  connect,
  isHttpTarget,
} from '../client/index.ts'
import { McpxError, RpcError, asMcpxError } from '../errors/index.ts'
import type { Settings } from '../settings/index.ts'
import type { AuthProvider, TransportKind } from '../transport/index.ts'
import {
  type Era,
  HANDSHAKE_METHOD_OF,
  LEGACY_REVISIONS,
  type LegacyRevision,
  capabilitiesForHosts,
  isRecord,
  listProblems,
  modelRuleProblems,
} from '../wire/index.ts'
import { type Observation, type ProbeReport, classify } from './classify.ts'

export interface ProbeOptions extends ConnectInternals {
  settings: Settings
  auth?: AuthProvider
  /** Environment a stdio server inherits (the CLI's); default none. */
  parentEnv?: Readonly<Record<string, string | undefined>>
}

export interface ProbeResult extends ProbeReport {
  target: string
  timings: TimingStep[]
  observations: Observation[]
}

function describeTarget(target: Target): string {
  return isHttpTarget(target) ? target.url : [target.command, ...(target.args ?? [])].join(' ')
}

export async function runProbe(target: Target, options: ProbeOptions): Promise<ProbeResult> {
  const observations: Observation[] = []
  const timings: TimingStep[] = []
  const attempt = async (era: Era, transport: TransportKind): Promise<Observation> => {
    const observation = await observe(target, era, transport, options, timings)
    observations.push(observation)
    return observation
  }
  let legacy: Observation
  if (isHttpTarget(target)) {
    const modern = await attempt('modern', 'streamable-http')
    // Nothing listening, or auth needed: every other attempt would say the same.
    if (!modern.ok && isFinal(modern)) return finish(target, observations, timings)
    legacy = await attempt('legacy', 'streamable-http')
    if (!legacy.ok && !isFinal(legacy)) legacy = await attempt('legacy', 'http+sse')
  } else {
    await attempt('modern', 'stdio')
    legacy = await attempt('legacy', 'stdio')
  }
  // initialize offered the latest legacy revision and the server answered the newest it keeps: offering
  // each older one on the transport that worked tells which others it keeps too (a server answers with
  // the offered revision when it supports it: 2025-11-25 basic/lifecycle.mdx "Version Negotiation").
  // At once (a stdio server started through npx takes seconds each), reported in revision order.
  if (legacy.ok) {
    const older = LEGACY_REVISIONS.filter((revision) => revision < String(legacy.revision))
    const steps = older.map((): TimingStep[] => [])
    const offers = await Promise.all(older.map((revision, i) => observe(target, 'legacy', legacy.transport, options, steps[i]!, revision)))
    observations.push(...offers)
    timings.push(...steps.flat())
  }
  return finish(target, observations, timings)
}

function finish(target: Target, observations: Observation[], timings: TimingStep[]): ProbeResult {
  const label = describeTarget(target)
  return { target: label, ...classify(observations, label), timings, observations }
}

function isFinal(observation: Observation): boolean {
  const error = observation.error
  if (!error) return false
  if (error.code === 'AUTH') return true
  return error.code === 'CONNECT' && error.data?.httpStatus === undefined
}

async function observe(
  target: Target,
  era: Era,
  transport: TransportKind,
  options: ProbeOptions,
  timings: TimingStep[],
  /** The legacy revision initialize offers (default the latest). */
  legacyOffer?: LegacyRevision,
): Promise<Observation> {
  const label = `${era}/${transport}`
  const started = performance.now()
  // stdio silence after the modern probe is the answer "legacy", so it gets the probe deadline.
  // Every other step has its own probe deadline, so `probe -- sleep 30` ends in seconds.
  const stepMs =
    era === 'modern' && transport === 'stdio'
      ? options.settings.probeTimeoutMs
      : Math.min(options.settings.requestTimeoutMs, options.settings.probeStepTimeoutMs)
  const settings = { ...options.settings, requestTimeoutMs: stepMs }
  const pinnedTarget: Target = isHttpTarget(target) ? { ...target, transport: transport === 'stdio' ? undefined : transport } : target
  try {
    const client = await connect(pinnedTarget, {
      settings,
      era,
      auth: options.auth,
      ...(options.parentEnv !== undefined && { parentEnv: options.parentEnv }),
      noCache: true,
      ...(legacyOffer !== undefined && { legacyOffer }),
      serverStream: false,
      transports: options.transports,
      onWarning: () => {},
    })
    const server = client.server
    // Once per era and transport (not per older revision offered): what hosts' parsers would refuse.
    const problems = legacyOffer === undefined ? await problemsOf(client, era) : undefined
    // An offer of an older revision is one line: what the server answered to it.
    if (legacyOffer === undefined) for (const step of client.timings) timings.push({ ...step, step: `${label}: ${step.step}` })
    else
      timings.push({
        step: `${label}: initialize offering ${legacyOffer}, answered ${server.revision}`,
        ms: Math.round(performance.now() - started),
        ok: true,
      })
    await client.close().catch(() => {})
    return {
      era,
      transport,
      ok: true,
      revision: server.revision,
      supportedVersions: server.supportedVersions,
      serverInfo: server.serverInfo,
      capabilities: server.capabilities,
      ...(problems !== undefined && { problems }),
      ms: Math.round(performance.now() - started),
    }
  } catch (error) {
    const mcpx = asMcpxError(error, 'CONNECT')
    const ms = Math.round(performance.now() - started)
    timings.push({ step: `${label}: connect`, ms, ok: false, detail: mcpx.message })
    return {
      era,
      transport,
      ok: false,
      error: { code: mcpx.code, message: mcpx.message, data: mcpx.data, ...(mcpx instanceof RpcError && { rpcCode: mcpx.rpcCode }) },
      ms,
    }
  }
}

/** The lists a declared capability promises, in the order problems are reported. */
const LIST_METHODS: ReadonlyArray<readonly [string, string]> = [
  ['tools', 'tools/list'],
  ['prompts', 'prompts/list'],
  ['resources', 'resources/list'],
  ['resources', 'resources/templates/list'],
]

/**
 * What a host built on the official SDKs would refuse in the server's handshake and the first page
 * of each list it declares (wire listProblems, capabilitiesForHosts: the repairs mcpx makes for its
 * own hosts, reported to the server's author instead), and in its tools what hosts' model APIs
 * refuse (wire modelRuleProblems). A list request that fails is reported too,
 * except templates refused outright (many servers with resources have none).
 */
async function problemsOf(client: McpClient, era: Era): Promise<string[]> {
  const handshake = HANDSHAKE_METHOD_OF[era]
  const problems: string[] = []
  const { capabilities, serverInfo } = client.server
  capabilitiesForHosts({ ...capabilities }, (problem) => problems.push(`${handshake}: ${problem}`))
  if (!isRecord(serverInfo) || typeof serverInfo.name !== 'string' || typeof serverInfo.version !== 'string')
    problems.push(`${handshake}: \`serverInfo\` needs a string \`name\` and \`version\``)
  const declared = LIST_METHODS.filter(([capability]) => capabilities[capability])
  const found = await Promise.all(
    declared.map(async ([, method]): Promise<string[]> => {
      try {
        const result = await client.request(method, {})
        return [...listProblems(method, result), ...(method === 'tools/list' ? toolRuleProblems(result) : [])]
      } catch (error) {
        const failure = asMcpxError(error)
        if (method === 'resources/templates/list' && failure.code !== 'PROTOCOL') return []
        return [failure.message.startsWith(method) ? failure.message : `${method}: ${failure.message}`]
      }
    }),
  )
  return [...problems, ...found.flat()]
}

/** What hosts' model APIs refuse in a tools/list page (wire modelRuleProblems), a line per tool and rule. */
function toolRuleProblems(result: JsonObject): string[] {
  const tools = Array.isArray(result.tools) ? result.tools.filter(isRecord) : []
  return tools.flatMap((tool) =>
    modelRuleProblems(tool).map((problem) => `tools/list: ${typeof tool.name === 'string' ? JSON.stringify(tool.name) : '#?'}: ${problem}`),
  )
}

/** The error the CLI exits with when a probe found no working era. */
export function probeFailure(result: ProbeResult): McpxError | undefined {
  if (!result.failure) return undefined
  return new McpxError(result.failure.code, result.failure.diagnosis, {
    target: result.target,
    ...(result.auth.resourceMetadata ? { resourceMetadata: result.auth.resourceMetadata } : {}),
  })
}
